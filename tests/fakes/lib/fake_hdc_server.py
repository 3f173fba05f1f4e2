"""The fake hdc's server: `hdc start` starts a stand-in that only listens on the server's port
(`-s [ip:]port`, else OHOS_HDC_SERVER_PORT, else 8710) and accepts connections, `hdc kill`
stops it. rein checks that a server answers before it runs hdc, and never lets hdc start one
(shared/toolchain/hdc/README.md: any client command starts a server when none answers); the fake
client itself never connects.

Its pid and start time are kept beside the state folder, in `.<state>.hdc-server.json`, never
in it: programs rein runs may write the state folder (home config `[spawn] writable`), and `hdc
kill` run by a person must not signal a pid they chose. `hdc kill` signals the pid only while
`/proc/<pid>/stat` still shows the start time the server recorded (not a reused pid).
"""

import json
import os
import signal
import socket

import fakelib

DEFAULT_PORT = 8710


def port(opts):
    listen = opts.get("s")
    if listen:
        return int(listen.rsplit(":", 1)[-1])
    return int(os.environ.get("OHOS_HDC_SERVER_PORT") or DEFAULT_PORT)


def answers(number):
    try:
        socket.create_connection(("127.0.0.1", number), timeout=1).close()
        return True
    except OSError:
        return False


def start(opts):
    number = port(opts)
    if answers(number):
        return
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", number))
    listener.listen(64)
    if os.fork() > 0:
        listener.close()
        return
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    record_server(os.getpid())
    while True:
        connection, _ = listener.accept()
        connection.close()


def server_file():
    """Beside the state folder, where the programs rein runs cannot write."""
    state = os.path.normpath(fakelib.state_dir())
    return os.path.join(os.path.dirname(state), ".%s.hdc-server.json" % os.path.basename(state))


def started_at(pid):
    """The process's start time in clock ticks (`/proc/<pid>/stat` field 22), or None."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: fields after it follow the last ')'.
    return stat.rsplit(")", 1)[-1].split()[19]


def record_server(pid):
    path = server_file()
    tmp = "%s.%d.tmp" % (path, pid)
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"pid": pid, "started": started_at(pid)}, f)
    os.replace(tmp, path)


def kill(quiet=False):
    try:
        with open(server_file(), encoding="utf-8") as f:
            server = json.load(f)
    except (OSError, ValueError):
        server = None
    if isinstance(server, dict) and isinstance(server.get("pid"), int) and server.get("started"):
        if started_at(server["pid"]) == server["started"]:
            try:
                os.kill(server["pid"], signal.SIGTERM)
            except OSError:
                pass
        try:
            os.remove(server_file())
        except OSError:
            pass
    if not quiet:
        fakelib.outln("Kill server finish")
