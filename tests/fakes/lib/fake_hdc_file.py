"""`hdc file send|recv`: files live in the device state's "files" map (see ../README.md)."""

import os

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


def _finish(size, conf):
    ms = int(conf.get("transfer_ms", 2)) or 1
    fakelib.outln(
        "FileTransfer finish, Size:%d, File count = 1, time:%dms rate:%.2fkB/s" % (size, ms, size / ms)
    )


def _open_failed(path):
    fakelib.outln("[Fail]Error opening file: no such file or directory, path:%s" % path)


def send(rest, state, conf):
    args = _transfer_args(rest)
    if len(args) < 2:
        fakelib.outln("[Fail]There is no local and remote path")
        return
    local, remote = fakelib.resolve(args[0]), args[1]
    if not os.path.isfile(local):
        _open_failed(local)
        return
    with open(local, "rb") as f:
        data = f.read()
    entry = {"size": len(data), "source": local}
    if len(data) <= 1 << 20:
        entry["content_hex"] = data.hex()
    state["files"][remote] = entry
    _finish(len(data), conf)


def recv(rest, state, conf):
    args = _transfer_args(rest)
    if len(args) < 2:
        fakelib.outln("[Fail]There is no local and remote path")
        return
    remote, local = args[0], fakelib.resolve(args[1])
    entry = state["files"].get(remote)
    if entry is None:
        _open_failed(remote)
        return
    if os.path.isdir(local):
        local = os.path.join(local, os.path.basename(remote))
    if not os.path.isdir(os.path.dirname(local) or "."):
        _open_failed(local)
        return
    if entry.get("kind") == "jpeg":
        data = fakelib.TINY_JPEG
    else:
        data = bytes.fromhex(entry.get("content_hex", "")) or b"\0" * int(entry.get("size", 0))
    with open(local, "wb") as f:
        f.write(data)
    _finish(len(data), conf)
