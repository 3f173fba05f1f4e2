#!/usr/bin/env python3
"""A plain MCP client (JSON lines over stdio, no SDK) for benches/mcp_pipeline.rs: starts the
server given after `--`, initializes it, writes CALLS `tools/call` requests at once from a
thread (as a client with many requests in flight would), reads every response, and prints
the calls per second from the first request written to the last response read.

    python3 benches/mcp_pipeline_client.py CALLS TOOL PATH -- server args...
"""

import json
import subprocess
import sys
import threading
import time


def main() -> None:
    calls, tool, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send, receive = server.stdin, server.stdout
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "rein-bench-python", "version": "0"},
        },
    }
    send.write((json.dumps(initialize) + "\n").encode())
    send.flush()
    while json.loads(receive.readline()).get("id") != 0:
        pass
    send.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    send.flush()
    requests = b"".join(
        (
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": {"path": path}},
                }
            )
            + "\n"
        ).encode()
        for i in range(1, calls + 1)
    )

    def write() -> None:
        send.write(requests)
        send.flush()

    started = time.perf_counter()
    writer = threading.Thread(target=write)
    writer.start()
    answered = 0
    while answered < calls:
        line = receive.readline()
        if not line:
            sys.exit(f"{command[0]} closed its stdout after {answered} answers")
        message = json.loads(line)
        if "id" in message and ("result" in message or "error" in message):
            if "error" in message or message["result"].get("isError"):
                sys.exit(f"{command[0]}: {line!r}")
            answered += 1
    elapsed = time.perf_counter() - started
    writer.join()
    send.close()
    server.wait()
    print(f"{calls / elapsed:.1f}")


if __name__ == "__main__":
    main()
