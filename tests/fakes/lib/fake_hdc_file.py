"""`hdc file send|recv`: a device's files live under its folder in the state directory
(`device-<key>.fs/`, see ../README.md), where rein-fake-device writes them too."""

import os
import time

import fake_device as dev
import fakelib


def _transfer_args(rest):
    args = []
    skip = False
    for a in rest:
        if skip:
            skip = False
        elif a == "-b":
            skip = True
        elif a.startswith("-") and not args:
            continue
        else:
            args.append(a)
    return args


def _finish(size, conf, end):
    """src/common/file.cpp's summary; the client prints a send's with "\\r\\n" (the server relays
    it) and a receive's with "\\n" (observed on the real build, tests/fakes/README.md)."""
    ms = int(conf.get("transfer_ms", 2)) or 1
    fakelib.out(
        "FileTransfer finish, Size:%d, File count = 1, time:%dms rate:%.2fkB/s%s" % (size, ms, size / ms, end)
    )


def _open_failed(path, end):
    fakelib.out("[Fail]Error opening file: no such file or directory, path:%s%s" % (path, end))


def open_failed(path, master):
    """A local file the client cannot open: the [Fail] line, then the client's own fatal log
    line, which it prints on stdout (src/common/transfer.cpp WRITE_LOG(LOG_FATAL, "open
    path:%s, localPath:%s, error:%s, dir:%d, master:%d"), observed with the time stamp)."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    return ("[Fail]Error opening file: no such file or directory, path:%s\n"
            "[F][%s] open path:%s, localPath:%s, error:no such file or directory, dir:0, master:%d\n"
            % (path, stamp, path, path, 1 if master else 0))


def send(rest, key, conf):
    args = _transfer_args(rest)
    if len(args) < 2:
        fakelib.outln("[Fail]There is no local and remote path")
        return
    local, remote = fakelib.resolve(args[0]), args[1]
    if not os.path.isfile(local):
        fakelib.out(open_failed(local, master=True))
        return
    target = dev.file(key, remote)
    if not os.path.isdir(os.path.dirname(target)):
        _open_failed(remote, "\r\n")
        return
    with open(local, "rb") as f:
        data = f.read()
    with open(target, "wb") as f:
        f.write(data)
    _finish(len(data), conf, "\r\n")


def recv(rest, key, conf):
    args = _transfer_args(rest)
    if len(args) < 2:
        fakelib.outln("[Fail]There is no local and remote path")
        return
    remote, local = args[0], fakelib.resolve(args[1])
    source = dev.file(key, remote)
    if not os.path.isfile(source):
        _open_failed(remote, "\r\n")
        return
    if os.path.isdir(local):
        local = os.path.join(local, os.path.basename(remote))
    if not os.path.isdir(os.path.dirname(local) or "."):
        fakelib.out(open_failed(local, master=False))
        return
    with open(source, "rb") as f:
        data = f.read()
    with open(local, "wb") as f:
        f.write(data)
    _finish(len(data), conf, "\n")
