"""The devices the fake hdc server sees (devices.json), and the way to their device side: every
device command runs in the Rust program `rein-fake-device` (tests/fakes/device), the same one
the test rig puts under the real hdcd, so the device's logic has one home (see ../README.md)."""

import os
import re
import shutil
import subprocess

import fakelib

DEVICE_PROGRAM = "rein-fake-device"


def safe_key(key):
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)


def list_devices():
    """devices.json entries with defaults filled in."""
    out = []
    for d in fakelib.read_json("devices.json", []):
        d = dict(d)
        d.setdefault("status", "Connected")
        d.setdefault("conn", "USB")
        d.setdefault("name", "localhost")
        out.append(d)
    return out


def save_devices(devices):
    fakelib.write_json("devices.json", devices)


def root(key):
    """Where the device's `/` is (rein-fake-device's default for a device of the fake hdc),
    with the folder every device has: /data/local/tmp."""
    path = os.path.join(fakelib.state_dir(), "device-%s.fs" % safe_key(key))
    os.makedirs(os.path.join(path, "data", "local", "tmp"), exist_ok=True)
    return path


def file(key, remote):
    """The file behind the device path `remote`."""
    return os.path.join(root(key), remote.lstrip("/"))


def run(key, words):
    """Runs the device command `words` on device `key`; its stdout, as the device printed it.
    The caller holds the state lock (the fake hdc takes it for its whole run)."""
    program = shutil.which(DEVICE_PROGRAM)
    if program is None:
        raise SystemExit(
            "fake hdc: %s is not on PATH; build it (cargo build -p rein-fake-device) and put "
            "its folder (target/debug) on PATH" % DEVICE_PROGRAM
        )
    env = dict(os.environ, REIN_FAKE_STATE=fakelib.state_dir(), REIN_FAKE_DEVICE=key, REIN_FAKE_LOCK_HELD="1")
    env.pop("REIN_FAKE_DEVICE_ROOT", None)
    done = subprocess.run([program] + list(words), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    return done.stdout.decode("utf-8", errors="replace")
