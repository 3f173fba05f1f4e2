"""Shared machinery of the fake HarmonyOS toolchain (see ../README.md).

State lives in one directory (REIN_FAKE_STATE, else <tmp>/rein-fake-state) as small JSON
files that tests write directly. Every fake logs its invocation to calls.log, then applies
the common behaviours (spam output, sleep, spawn a child, ignore SIGTERM) before doing its
real work. Output is written as bytes so "\\r\\n" and trailing spaces reach the caller as is.
"""

import contextlib
import json
import os
import signal
import sys
import time

try:
    import fcntl
except ImportError:  # not POSIX: no locking, tests there run one fake at a time
    fcntl = None

STATE_DIR_NAME = "rein-fake-state"


def state_dir():
    """The state directory; created on first use."""
    path = os.environ.get("REIN_FAKE_STATE")
    if not path:
        import tempfile  # only here: keeps the fakes' start-up short

        path = os.path.join(tempfile.gettempdir(), STATE_DIR_NAME)
    os.makedirs(path, exist_ok=True)
    return path


def state_path(name):
    return os.path.join(state_dir(), name)


def read_json(name, default):
    """Reads a state file; a missing or empty file gives `default`."""
    path = state_path(name)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return default
    if not raw.strip():
        return default
    return json.loads(raw.decode("utf-8"))


def write_json(name, value):
    """Atomic replace, so a test reading concurrently never sees half a file."""
    path = state_path(name)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


@contextlib.contextmanager
def state_lock():
    """Serialises read-modify-write of state between concurrent fakes."""
    if fcntl is None:
        yield
        return
    with open(state_path(".lock"), "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def append_line(name, value):
    line = (json.dumps(value, sort_keys=True) + "\n").encode("utf-8")
    fd = os.open(state_path(name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def scenario(program):
    """Scenario switches for `program`: scenario.json's "all" section overlaid by its own."""
    data = read_json("scenario.json", {})
    merged = dict(data.get("all") or {})
    merged.update(data.get(program) or {})
    return merged


# ---------------------------------------------------------------------------------------------
# output


def out(text):
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def err(text):
    sys.stderr.buffer.write(text.encode("utf-8"))
    sys.stderr.buffer.flush()


def outln(text=""):
    out(text + "\n")


def errln(text=""):
    err(text + "\n")


# ---------------------------------------------------------------------------------------------
# invocation log and common behaviours

SPAM_BEGIN = b"REIN_FAKE_SPAM_BEGIN\n"
SPAM_END = b"REIN_FAKE_SPAM_END\n"


def log_call(program, argv, raw_argv=None):
    entry = {
        "program": program,
        "argv": list(argv),
        "cwd": os.getcwd(),
        "pid": os.getpid(),
        "time": time.time(),
        "env": dict(os.environ),
    }
    if raw_argv is not None:
        entry["raw_argv"] = list(raw_argv)
        entry["cmdline"] = read_cmdline()
    append_line("calls.log", entry)


def read_cmdline():
    """This process's /proc/self/cmdline as other processes see it (None where there is none)."""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return None


def _setting(env_name, conf, key, default):
    value = os.environ.get(env_name)
    if value not in (None, ""):
        return value
    return conf.get(key, default)


def _spam(total, stream):
    """Writes exactly `total` bytes: a BEGIN line, numbered filler lines, an END line."""
    if total <= 0:
        return
    targets = {"stdout": [sys.stdout.buffer], "stderr": [sys.stderr.buffer]}
    outs = targets.get(stream, [sys.stdout.buffer, sys.stderr.buffer])
    body = total - len(SPAM_BEGIN) - len(SPAM_END)
    if body < 0:
        chunks = [(SPAM_BEGIN + SPAM_END)[:total]]
    else:
        line = b"spam " + b"x" * 94 + b"\n"  # 100 bytes
        block = line * 1024
        chunks = [SPAM_BEGIN]
        left = body
        while left >= len(block):
            chunks.append(block)
            left -= len(block)
        chunks.append(block[:left])
        chunks.append(SPAM_END)
    for o in outs:
        for chunk in chunks:
            o.write(chunk)
        o.flush()


def common_behaviours(program, argv):
    """Applies spam/sleep/child/ignore-TERM if configured and the `match` filter fits."""
    conf = scenario(program)
    match = _setting("REIN_FAKE_MATCH", conf, "match", "")
    if match and match not in " ".join(argv):
        return
    if str(_setting("REIN_FAKE_IGNORE_TERM", conf, "ignore_term", "")).lower() in ("1", "true"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    spam = int(_setting("REIN_FAKE_SPAM_BYTES", conf, "spam_bytes", 0) or 0)
    _spam(spam, str(_setting("REIN_FAKE_SPAM_STREAM", conf, "spam_stream", "stdout")))
    sleep_ms = int(_setting("REIN_FAKE_SLEEP_MS", conf, "sleep_ms", 0) or 0)
    if sleep_ms <= 0:
        return
    if str(_setting("REIN_FAKE_CHILD", conf, "spawn_child", "")).lower() in ("1", "true"):
        import subprocess

        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(%f)" % (sleep_ms / 1000.0 + 30)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        append_line("children.log", {"program": program, "pid": os.getpid(), "child_pid": child.pid})
    time.sleep(sleep_ms / 1000.0)


def start(program, argv, raw_argv=None):
    """Every fake's first call: log, then the common behaviours. `raw_argv` is what the program
    was given when `argv` is what it made of it (java's argument files)."""
    log_call(program, argv, raw_argv)
    common_behaviours(program, argv)


def resolve(path):
    """A path as the real tools see it: relative to the current directory, not normalised."""
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
