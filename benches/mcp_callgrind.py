#!/usr/bin/env python3
"""Instructions per `tools/call read_file` in `rein serve`, counted by callgrind: repeatable on a
loaded machine, where calls per second are not (docs/src/performance.md).

    cargo bench --bench mcp_pipeline --no-run   # builds target/release/rein
    python3 benches/mcp_callgrind.py [path/to/rein]

Runs the server under `valgrind --tool=callgrind --separate-threads=yes` twice, with 0 and with
CALLS pipelined calls (a 2 KiB file, as benches/mcp_pipeline.rs), waits for every response
before closing stdin, and prints the difference per call: for the worker thread (the runtime's
one worker, which runs the calls) and for the whole process (the stdin reader and stdout
writer threads included). Valgrind does not run SHA-NI, so sha256 (hashing every read) counts
several times what it costs natively; it is shown apart.
"""

import os
import re
import subprocess
import sys
import tempfile
import threading

CALLS = 2000
INIT = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"rein-callgrind","version":"0"}}}\n'
        '{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
CALL = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file",'
        '"arguments":{"path":"bench.txt"}}}\n')


def run(rein, root, calls):
    """Totals per thread file, and the sha256 share, of one callgrind run."""
    out = os.path.join(root, "cg-%d.out" % calls)
    command = ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--callgrind-out-file=" + out,
               rein, "--workspace", os.path.join(root, "ws"), "--home", os.path.join(root, "home"), "serve"]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    requests = (INIT + "".join(CALL % i for i in range(1, calls + 1))).encode()
    writer = threading.Thread(target=lambda: (child.stdin.write(requests), child.stdin.flush()))
    writer.start()
    answered = 0
    while answered < calls + 1:
        line = child.stdout.readline()
        if not line:
            sys.exit("rein serve stopped after %d responses" % answered)
        if b'"result"' in line or b'"error"' in line:
            answered += 1
    writer.join()
    child.stdin.close()
    child.wait()
    threads = {}
    for name in os.listdir(root):
        if name.startswith("cg-%d.out-" % calls):
            text = open(os.path.join(root, name), encoding="utf-8", errors="replace").read()
            total = int(re.search(r"^totals: (\d+)", text, re.M).group(1))
            worker = "multi_thread::worker::Context::run_task" in text
            threads[name] = (total, worker)
    return threads


def sha_share(root, calls):
    name = [n for n in os.listdir(root) if n.startswith("cg-%d.out-" % calls)]
    total = 0
    for n in name:
        out = subprocess.run(["callgrind_annotate", "--inclusive=yes", os.path.join(root, n)],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "sha2::sha256::compress256" in line:
                total += int(line.split()[0].replace(",", ""))
                break
    return total


def main():
    rein = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target/release/rein")
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "ws"))
        os.makedirs(os.path.join(root, "home"))
        with open(os.path.join(root, "ws", "bench.txt"), "w") as f:
            f.write(("x" * 63 + "\n") * 32)
        idle, busy = run(rein, root, 0), run(rein, root, CALLS)
        worker = lambda threads: max((t for t, w in threads.values() if w), default=0)
        whole = lambda threads: sum(t for t, _ in threads.values())
        sha = sha_share(root, CALLS) - sha_share(root, 0)
        print("instructions per tools/call read_file (2 KiB file), %d calls, callgrind:" % CALLS)
        print("  worker thread  %8.0f" % ((worker(busy) - worker(idle)) / CALLS))
        print("  whole process  %8.0f" % ((whole(busy) - whole(idle)) / CALLS))
        print("  of which sha256 (no SHA-NI under valgrind)  %8.0f" % (sha / CALLS))


if __name__ == "__main__":
    main()
