#!/usr/bin/env python3
"""How rein's costs grow with what it handles (issue 41 point 2), against a floor at each size.

    cargo build --release && python3 benches/growth.py [--tools] [path/to/rein]

`--tools` measures only the tool files (`rein call`, `rein serve`), not the edits.

Every figure is a median of this run; rein and the floor are interleaved. Peak memory is the
ru_maxrss of one more run of each, started by GNU time (`/usr/bin/time -f %M`), in MiB: a child
forked from this Python process would be charged at exec with the memory Python holds (Linux
keeps the copied address space's high-water mark), time's own few MiB are all it is charged
with. docs/src/performance-growth.md holds a table it printed.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
REIN = os.path.abspath(ARGS[0] if ARGS else "target/release/rein")
LINE = b"    let value = compute(input, 42); // the quick brown fox jumps over the lazy dog\n"
SIZES = [("1 KiB", 1 << 10), ("1 MiB", 1 << 20), ("16 MiB", 16 << 20), ("64 MiB", 64 << 20), ("256 MiB", 256 << 20)]
TOOL = 'return {{ name = "t{n}", description = "tool {n}", run = function() return {{ n = {n} }} end }}\n'


def run(argv, cwd=None):
    """Seconds of one process, run to its end."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def run_cpu(argv):
    """Seconds of one process run to its end: wall clock, and the CPU it used (user and system,
    from its rusage), which waits for the machine's other work do not add to."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, argv
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


GNU_TIME = "/usr/bin/time"


def peak_mib(argv, cwd=None):
    """The peak memory of one process run to its end (its ru_maxrss, as GNU time reports it), in
    MiB; None without GNU time."""
    if not os.access(GNU_TIME, os.X_OK):
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name, *argv], cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, check=True)
        return int(out.read().strip().splitlines()[-1]) / 1024


def mib(value):
    return "—" if value is None else f"{value:.0f}"


def text(size, marker):
    tail = marker + b"\n"
    body = (LINE * (size // len(LINE) + 1))[: size - len(tail) - 1] + b"\n"
    return body + tail


def rein(ws, home, *args):
    return [REIN, "--workspace", ws, "--home", home, "--json", *args]


def edits(root, runs):
    print("| file size | rein edit_file | floor | ratio | rein peak MiB | floor peak MiB |")
    print("|---|---|---|---|---|---|")
    for label, size in SIZES:
        ws, home, floor = (os.path.join(root, label.replace(" ", ""), d) for d in ("ws", "home", "floor"))
        for d in (ws, home, floor):
            os.makedirs(d)
        for name, marker in (("big.txt", b"MARK_A"), ("MARK_A", b"MARK_A"), ("MARK_B", b"MARK_B")):
            with open(os.path.join(floor if name != "big.txt" else ws, name), "wb") as f:
                f.write(text(size, marker))
        shutil.copy(os.path.join(ws, "big.txt"), os.path.join(floor, "big.txt"))
        def commands(i):
            """rein's edit and the floor's, run `i` (markers swap every run, so each changes the file)."""
            old, new = ("MARK_A", "MARK_B") if i % 2 == 0 else ("MARK_B", "MARK_A")
            args = json.dumps({"path": "big.txt", "old_string": old, "new_string": new})
            return rein(ws, home, "call", "edit_file", args), ["sh", "-c", f"cat {new} > tmp && sync tmp && mv tmp big.txt"]

        r, fl = [], []
        for i in range(runs + 1):
            rein_argv, floor_argv = commands(i)
            if i % 2 == 0:
                a = run(rein_argv); b = run(floor_argv, cwd=floor)
            else:
                b = run(floor_argv, cwd=floor); a = run(rein_argv)
            if i > 0:
                r.append(a); fl.append(b)
        rein_argv, floor_argv = commands(runs + 1)
        rp, fp = peak_mib(rein_argv), peak_mib(floor_argv, cwd=floor)
        mr, mf = statistics.median(r) * 1e3, statistics.median(fl) * 1e3
        print(f"| {label} | {mr:.1f} ms | {mf:.1f} ms | {mr / mf:.2f} | {mib(rp)} | {mib(fp)} |")
        shutil.rmtree(os.path.join(root, label.replace(" ", "")))


# rein keeps what it read of a tool file only once the file is older than this (its scan cache's
# settle: docs/src/performance-growth.md), as an agent's tool files mostly are.
SETTLE = 2.2


def tool_files(root, runs):
    print("\n| project tool files | `rein call read_file`: wall | CPU | CPU per file | no scan cache yet: wall | CPU | CPU per file |")
    print("|---|---|---|---|---|---|---|")
    base = None
    for count in (0, 100, 1000):
        ws, home = os.path.join(root, f"t{count}", "ws"), os.path.join(root, f"t{count}", "home")
        os.makedirs(os.path.join(ws, "tools")); os.makedirs(home)
        for n in range(count):
            with open(os.path.join(ws, "tools", f"t{n}.lua"), "w") as f:
                f.write(TOOL.format(n=n))
        with open(os.path.join(ws, "small.txt"), "w") as f:
            f.write("line\n" * 50)
        args = json.dumps({"path": "small.txt"})
        call = rein(ws, home, "call", "read_file", args)
        time.sleep(SETTLE)
        run(call)
        # Interleaved: a call finding the cache, and one finding none (it reads every file and
        # writes the cache, as the first call after the files changed does).
        warm, cold = [], []
        for _ in range(runs):
            warm.append(run_cpu(call))
            shutil.rmtree(os.path.join(home, "scans"), ignore_errors=True)
            cold.append(run_cpu(call))
        medians = [statistics.median(t[i] for t in runs_) for runs_ in (warm, cold) for i in (0, 1)]
        base = medians if base is None else base
        cells = []
        for i in (0, 2):
            per = f"{(medians[i + 1] - base[i + 1]) / count * 1e6:.1f} µs" if count else "—"
            cells += [f"{medians[i] * 1e3:.2f} ms", f"{medians[i + 1] * 1e3:.2f} ms", per]
        print(f"| {count} | " + " | ".join(cells) + " |")


def serve(root):
    ws = os.path.join(root, "t1000", "ws")
    home = os.path.join(root, "t1000", "home")
    start = time.perf_counter()
    child = subprocess.Popen([REIN, "--workspace", ws, "--home", home, "serve"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    def send(message):
        child.stdin.write((json.dumps(message) + "\n").encode()); child.stdin.flush()
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
          "capabilities": {}, "clientInfo": {"name": "growth", "version": "0"}}})
    child.stdout.readline()
    started = time.perf_counter() - start
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    child.stdout.readline()
    saved = time.perf_counter()
    with open(os.path.join(ws, "tools", "t0.lua"), "w") as f:
        f.write(TOOL.format(n=0).replace("tool 0", "tool zero"))
    while b"list_changed" not in child.stdout.readline():
        pass
    reloaded = time.perf_counter() - saved
    child.stdin.close(); child.wait()
    print(f"\n`rein serve` with 1000 tool files: start to the initialize response {started * 1e3:.0f} ms; "
          f"one saved tool file to notifications/tools/list_changed {reloaded * 1e3:.0f} ms (100 ms of it the settle)")


if __name__ == "__main__":
    print(f"rein: {REIN}; load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory(dir=os.environ.get("GROWTH_DIR", "/tmp")) as root:
        if "--tools" not in sys.argv:
            edits(root, 5)
        tool_files(root, 31)
        serve(root)
