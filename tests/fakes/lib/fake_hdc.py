"""Fake `hdc`: client-side parsing, device selection, app and file commands.

Like the real client it always exits 0 and reports failure only through text
(src/host/main.cpp ends client mode in `_exit(0)`).
"""

import os
import shlex
import sys

import fake_device as dev
import fake_hdc_file
import fake_hdc_server
import fakelib

# Registered commands (main.cpp IsRegisterCommand): one- and two-word forms.
SINGLE = {
    "version", "help", "discover", "checkserver", "checkdevice", "wait", "any", "tconn",
    "shell", "fport", "rport", "kill", "start", "keygen", "install", "uninstall", "hilog",
    "smode", "bugreport", "tmode", "sideload", "jpid", "track-jpid", "update", "flash",
    "erase", "format",
}
DOUBLE = {"list targets", "file send", "file recv", "target mount", "target boot"}
OPTSTRING_WITH_ARG = set("sdetl")
OPTSTRING_FLAGS = set("hvpfmncS")
DEVICE_COMMANDS = {
    "shell", "install", "uninstall", "file send", "file recv", "hilog", "target mount",
    "target boot", "smode", "tmode", "jpid", "track-jpid", "bugreport", "sideload", "rport",
}

NEED_KEY = "[Fail]ExecuteCommand need connect-key? please confirm a device by help info"
NO_MATCH = "[Fail]Not match target founded, check connect-key please"
OFFLINE = "[Fail][E001005] Device not found or connected"
UNAUTHORIZED = (
    "[Fail][E000002]:The device unauthorized.\r\n"
    "This server's public key is not set.\r\n"
    "Please check for a confirmation dialog on your device.\r\n"
    "Otherwise try 'hdc kill' if that seems wrong."
)
DENIED = (
    "[Fail][E000003]:The device unauthorized.\r\n"
    "The user denied the access for the device.\r\n"
    "Please execute 'hdc kill' and redo your command,\r\n"
    "then check for a confirmation dialog on your device."
)
NOT_READY = (
    "[Fail][E000004]:The communication channel is being established.\r\n"
    "Please wait for several seconds and try again."
)

USAGE = """
                         OpenHarmony device connector(hdc) ... (rein fake)

 -h/help [verbose]                     - Print hdc help
 -v/version                            - Print hdc version
 -t connectkey                         - Use device with given connect key
 list targets [-v]                     - List all devices status, -v for detail
 tconn key                             - Connect device via key, TCP use ip:port
 kill [-r]                             - Kill server
 file send|recv [option] src dst       - Transfer a file
 install [-r] src                      - Send package(s) to device and install them
 uninstall [-k] package                - Remove application package from device
 hilog                                 - Show device log
 shell [COMMAND...]                    - Run shell command
"""


def split_option_and_command(argv):
    """main.cpp SplitOptionAndCommand: everything before the first registered command is an
    option; the command and its arguments follow."""
    for i, arg in enumerate(argv):
        if i + 1 < len(argv) and "%s %s" % (arg, argv[i + 1]) in DOUBLE:
            return argv[:i], ["%s %s" % (arg, argv[i + 1])] + argv[i + 2 :]
        if arg in SINGLE or arg.startswith("wait"):
            return argv[:i], argv[i:]
    return argv, []


def parse_options(options):
    """getopt("hvpfmncs:Sd:e:t:l:") with GNU permutation and opterr=0: unknown characters are
    skipped, so `--version` reaches 'v' like the real client."""
    parsed = {}
    i = 0
    while i < len(options):
        arg = options[i]
        i += 1
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-":
            continue
        j = 1
        while j < len(arg):
            c = arg[j]
            j += 1
            if c in OPTSTRING_FLAGS:
                parsed.setdefault(c, True)
                if c in "hv":
                    return parsed
            elif c in OPTSTRING_WITH_ARG:
                if j < len(arg):
                    parsed[c] = arg[j:]
                elif i < len(options):
                    parsed[c] = options[i]
                    i += 1
                break
    return parsed


def select_device(key, devices):
    """(device, None) or (None, failure text) as the server answers (server_for_client.cpp)."""
    if key:
        found = [d for d in devices if d["key"] == key]
        if not found:
            return None, NO_MATCH
        d = found[0]
        if d["status"] == "Offline":
            return None, OFFLINE
    else:
        usable = [d for d in devices if d["status"] != "Offline"]
        if len(usable) != 1:
            return None, NEED_KEY
        d = usable[0]
    if d["status"] == "Unauthorized":
        return None, DENIED if d.get("auth_denied") else UNAUTHORIZED
    if d.get("channel_not_ready"):
        return None, NOT_READY
    return d, None


def list_targets(devices, verbose):
    """The server's answer; with none, the real build prints `[Empty]\r\n`, and with -v
    `[Empty]\r\thdc\n` (observed, tests/fakes/README.md "Where the real tools differed")."""
    if verbose:
        lines = ["%s\t\t%s\t%s\t%s\thdc" % (d["key"], d["conn"], d["status"], d["name"]) for d in devices]
    else:
        lines = []
        for d in devices:
            if d["status"] == "Connected":
                lines.append(d["key"])
            elif d["status"] == "Unauthorized":
                lines.append("%s\tUnauthorized" % d["key"])
    if lines:
        fakelib.outln("\n".join(lines))
    else:
        fakelib.out("[Empty]\r\thdc\n" if verbose else "[Empty]\r\n")


def tconn(rest, devices):
    target = rest[0] if rest else ""
    if ":" in target:
        ip = target.split(":", 1)[0]
        parts = ip.split(".")
        if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
            fakelib.outln("[Fail][E001104]:IP address incorrect")
            return
    failed = fakelib.scenario("hdc").get("tconn_fail")
    for d in devices:
        if d["key"] == target and d["status"] == "Connected":
            fakelib.out("[Info]Target is connected, repeat operation\r\n")
            return
    devices = [d for d in devices if d["key"] != target]
    if failed:
        # The server keeps the key it could not reach, as an Offline target (observed).
        devices.append({"key": target, "status": "Offline", "conn": "TCP", "name": "unknown..."})
    else:
        devices.append({"key": target, "status": "Connected", "conn": "TCP", "name": "localhost"})
    dev.save_devices(devices)
    fakelib.out("[Fail]Connect failed\r\n" if failed else "Connect OK\r\n")


def run(argv, conf):
    options, command = split_option_and_command(argv)
    opts = parse_options(options)
    version = "Ver: %s" % conf.get("version", "3.2.0f")
    if opts.get("h"):
        fakelib.err(USAGE)
        return
    if opts.get("v"):
        fakelib.outln(version)
        return
    if not command:
        fakelib.outln("Unknown operation command...")
        fakelib.err(USAGE)
        return
    name, rest = command[0], command[1:]
    devices = dev.list_devices()
    if name == "version":
        fakelib.outln(version)
    elif name == "help":
        fakelib.out(USAGE)
    elif name == "list targets":
        list_targets(devices, "-v" in rest)
    elif name == "checkserver":
        fakelib.outln("Client version:%s, server version:%s" % (version, version))
    elif name == "kill":
        # client.cpp KillMethodByUv: `kill -r` restarts the server and says nothing.
        fake_hdc_server.kill(quiet="-r" in rest)
    elif name == "start":
        fake_hdc_server.start(opts)
    elif name in ("keygen", "discover", "any") or name.startswith("wait"):
        pass  # `wait` returns at once: a fake device never takes time to appear
    elif name == "tconn":
        tconn(rest, devices)
    elif name == "fport" and rest[:1] == ["ls"]:
        fakelib.out("[Empty]\r\n")
    elif name in DEVICE_COMMANDS or name == "fport":
        device, failure = select_device(opts.get("t"), devices)
        if failure:
            # The server's EchoClient ends a message with "\r\n" (server_for_client.cpp).
            fakelib.out(failure + "\r\n")
            return
        run_on_device(name, rest, device["key"], conf)
    else:
        fakelib.outln("Unknown operation command...")
        fakelib.err(USAGE)


def run_on_device(name, rest, key, conf):
    if name == "install":
        install(rest, key, conf)
    elif name == "uninstall":
        uninstall(rest, key, conf)
    elif name == "file send":
        fake_hdc_file.send(rest, key, conf)
    elif name == "file recv":
        fake_hdc_file.recv(rest, key, conf)
    elif name == "shell":
        shell(rest, key)
    elif name == "hilog":
        fakelib.out(dev.run(key, ["hilog", "-x"] + rest))
    elif name == "fport":
        fakelib.out("Forwardport result:OK\r\n")
    elif name == "target boot":
        dev.run(key, ["reboot"])
    # target mount, smode, tmode, jpid, ...: accepted silently


def shell(rest, key):
    if rest[:1] == ["-b"]:
        rest = rest[2:]
    elif rest[:1] and rest[0].startswith("-"):
        # The client knows -b alone (observed: `hdc shell -x`).
        fakelib.outln("[Fail][E003003] Unsupport shell option: %s" % rest[0])
        return
    # The client joins its arguments with spaces and wraps each one holding a space in double
    # quotes, escaping nothing (main.cpp SplitOptionAndCommand); the daemon strips one pair of
    # quotes enclosing the whole line and runs it with /bin/sh -c (observed on the real build,
    # shared/HARMONY.md). So `shell "aa start -a A -b B"` runs aa, and among several arguments
    # `-a "-p Faultlogger -l"` reaches the device as one word.
    line = " ".join('"%s"' % a if " " in a else a for a in rest)
    if len(line) >= 2 and line[0] == '"' and line[-1] == '"':
        line = line[1:-1]
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    if words:
        fakelib.out(dev.run(key, words))


# ---------------------------------------------------------------------------------------------
# app install / uninstall: the host sends each package, the daemon runs `bm install [OPTIONS]
# -p <package>` and sends back bm's output with every "\n" made a space (developtools_hdc
# src/daemon/daemon_app.cpp PackageShell, AsyncInstallFinish); the client prints one line per
# package and `AppMod finish` (src/host/host_app.cpp CheckInstallContinue, printed by the
# client: "\n"); uninstall is printed by the server ("\r\n", server_for_client.cpp).
# A path that does not end in .hap, .hsp or .app is a folder: the client sends it as one tar
# (host_app.cpp BeginInstall, Dir2Tar), the daemon unpacks it and runs one `bm install -p
# <folder>` (daemon_app.cpp WhenTransferFinish, Tar2Dir), so its packages install together;
# the line shows the folder's path. Several package paths are several installs, one at a time.


def _app_line(mode, path, msg, conf):
    if conf.get("install_format") == "old":
        return "[Info]App %s path:%s, queuesize:0, msg:%s" % (mode, path, msg)
    return "[Info]App %s path:%s msg:%s" % (mode, path, msg)


def _install_queue(paths):
    """(display path, what bm gets) pairs in the order the real client sends them: sorted,
    unique, then taken from the back of the queue; a folder is one item."""
    queue = []
    for p in paths:
        full = fakelib.resolve(p)
        if p.endswith((".hap", ".hsp", ".app")):
            queue.append((full, full))
        elif os.path.isdir(full) and not os.path.islink(full):
            queue.append((full, full))
    return list(reversed(sorted(set(queue))))


def install(rest, key, conf):
    options = [a for a in rest if a.startswith("-")]
    queue = _install_queue([a for a in rest if not a.startswith("-")])
    if not queue:
        fakelib.outln("[Fail][E006001] Not any installation package was found")
        return
    for shown, path in queue:
        if not os.path.exists(path):
            fakelib.out(fake_hdc_file.open_failed(path, master=True))
            return
        msg = dev.run(key, ["bm", "install"] + options + ["-p", path]).replace("\n", " ")
        fakelib.outln(_app_line("install", shown, msg, conf))
    fakelib.outln("AppMod finish")


def uninstall(rest, key, conf):
    options = [a for a in rest if a.startswith("-")]
    bundles = [a for a in rest if not a.startswith("-")]
    bundle = bundles[-1] if bundles else ""
    msg = dev.run(key, ["bm", "uninstall"] + options + ["-n", bundle]).replace("\n", " ")
    fakelib.out(_app_line("uninstall", "", msg, conf) + "\r\n")
    fakelib.out("AppMod finish\r\n")


def main(argv):
    fakelib.start("hdc", argv)
    conf = fakelib.scenario("hdc")
    with fakelib.state_lock():
        run(list(argv), conf)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
