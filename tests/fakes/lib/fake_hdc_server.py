"""The fake hdc's server: `hdc start` starts a stand-in that only listens on the server's port
(`-s [ip:]port`, else OHOS_HDC_SERVER_PORT, else 8710) and accepts connections, `hdc kill`
stops it. rein checks that a server answers before it runs hdc, and never lets hdc start one
(shared/toolchain/hdc/README.md: any client command starts a server when none answers); the fake
client itself never connects. Its pid is kept in the state file `hdc-server.pid`.
"""

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
    fakelib.write_json("hdc-server.pid", os.getpid())
    while True:
        connection, _ = listener.accept()
        connection.close()


def kill(quiet=False):
    pid = fakelib.read_json("hdc-server.pid", None)
    if pid:
        try:
            os.kill(int(pid), signal.SIGTERM)
        except OSError:
            pass
        fakelib.write_json("hdc-server.pid", None)
    if not quiet:
        fakelib.outln("Kill server finish")
