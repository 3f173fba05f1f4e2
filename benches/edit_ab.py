#!/usr/bin/env python3
"""The 64 MiB edit at the end of the file, several rein binaries and the shell's floor
interleaved in one run (issue 41): is a change faster, at the machine's load of the moment?

    python3 benches/edit_ab.py path/to/rein-before path/to/rein-after   # RUNS=21 for more

Each round runs every binary and the floor once (`cat SOURCE > tmp; sync tmp; mv tmp FILE`,
as `benches/file_ops.rs`), in turn, the order reversed every other round; round 0 is a
warm-up. Every binary edits its own copy of the file, swapping two markers, so each keeps the
same pre-images. Prints each one's median, range and ratio to the floor's median. Files go
under `$GROWTH_DIR` (default the system's temp dir), which should be the disk rein edits on,
not tmpfs.
"""
import json, os, statistics, subprocess, sys, tempfile, time

RUNS = int(os.environ.get("RUNS", "11"))
SIZE = 64 << 20
LINE = b"    let value = compute(input, 42); // the quick brown fox jumps over the lazy dog\n"
A, B = "REIN_BENCH_END_MARKER_A", "REIN_BENCH_END_MARKER_B"


def text(marker):
    tail = (marker + "\n").encode()
    body = (LINE * (SIZE // len(LINE) + 1))[: SIZE - len(tail)]
    return body[:-1] + b"\n" + tail


def command(root, name, binary, old, new):
    if binary is None:
        return ["sh", "-c", f"cat {new} > tmp && sync tmp && mv tmp big.txt"], f"{root}/floor/ws"
    args = json.dumps({"path": "big.txt", "old_string": old, "new_string": new})
    ws, home = f"{root}/{name}/ws", f"{root}/{name}/home"
    return [binary, "--workspace", ws, "--home", home, "--json", "call", "edit_file", args], None


def main():
    binaries = {f"rein{i}": os.path.abspath(b) for i, b in enumerate(sys.argv[1:])}
    if not binaries:
        sys.exit(__doc__)
    binaries["floor"] = None
    with tempfile.TemporaryDirectory(dir=os.environ.get("GROWTH_DIR")) as root:
        for name in binaries:
            os.makedirs(f"{root}/{name}/ws")
            os.makedirs(f"{root}/{name}/home")
            with open(f"{root}/{name}/ws/big.txt", "wb") as f:
                f.write(text(A))
        for marker in (A, B):
            with open(f"{root}/floor/ws/{marker}", "wb") as f:
                f.write(text(marker))
        times = {name: [] for name in binaries}
        for round in range(RUNS + 1):
            old, new = (A, B) if round % 2 == 0 else (B, A)
            names = list(binaries) if round % 2 == 0 else list(binaries)[::-1]
            for name in names:
                argv, cwd = command(root, name, binaries[name], old, new)
                start = time.perf_counter()
                subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
                if round > 0:
                    times[name].append((time.perf_counter() - start) * 1e3)
    floor = statistics.median(times["floor"])
    for name, binary in binaries.items():
        median = statistics.median(times[name])
        low, high = min(times[name]), max(times[name])
        print(f"{binary or 'floor':50s} median {median:7.1f} ms  range {low:6.1f}-{high:6.1f}  ratio {median / floor:.2f}")
    print(f"{RUNS} runs each; load average at the end: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
