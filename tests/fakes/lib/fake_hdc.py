"""Fake `hdc`: client-side parsing, device selection, app and file commands.

Like the real client it always exits 0 and reports failure only through text
(src/host/main.cpp ends client mode in `_exit(0)`).
"""

import os
import shlex
import sys

import fake_device as dev
import fake_hdc_file
import fake_hdc_shell
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
    if verbose:
        lines = ["%s\t\t%s\t%s\t%s\thdc" % (d["key"], d["conn"], d["status"], d["name"]) for d in devices]
    else:
        lines = []
        for d in devices:
            if d["status"] == "Connected":
                lines.append(d["key"])
            elif d["status"] == "Unauthorized":
                lines.append("%s\tUnauthorized" % d["key"])
    fakelib.outln("\n".join(lines) if lines else "[Empty]")


def tconn(rest, devices):
    target = rest[0] if rest else ""
    if ":" in target:
        ip = target.split(":", 1)[0]
        parts = ip.split(".")
        if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
            fakelib.outln("[E001104]:IP address incorrect")
            return
    if fakelib.scenario("hdc").get("tconn_fail"):
        fakelib.outln("[Fail]Connect failed")
        return
    for d in devices:
        if d["key"] == target and d["status"] == "Connected":
            fakelib.outln("[Info]Target is connected, repeat operation")
            return
    devices = [d for d in devices if d["key"] != target]
    devices.append({"key": target, "status": "Connected", "conn": "TCP", "name": "localhost"})
    dev.save_devices(devices)
    fakelib.outln("Connect OK")


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
        fake_hdc_server.kill()
    elif name == "start":
        fake_hdc_server.start(opts)
    elif name in ("keygen", "discover", "any") or name.startswith("wait"):
        pass  # `wait` returns at once: a fake device never takes time to appear
    elif name == "tconn":
        tconn(rest, devices)
    elif name == "fport" and rest[:1] == ["ls"]:
        fakelib.outln("[Empty]")
    elif name in DEVICE_COMMANDS or name == "fport":
        device, failure = select_device(opts.get("t"), devices)
        if failure:
            fakelib.outln(failure)
            return
        state = dev.load(device["key"], conf)
        run_on_device(name, rest, device, state, conf)
        dev.save(device["key"], state)
    else:
        fakelib.outln("Unknown operation command...")
        fakelib.err(USAGE)


def run_on_device(name, rest, device, state, conf):
    if name == "install":
        install(rest, state, conf)
    elif name == "uninstall":
        uninstall(rest, state, conf)
    elif name == "file send":
        fake_hdc_file.send(rest, state, conf)
    elif name == "file recv":
        fake_hdc_file.recv(rest, state, conf)
    elif name == "shell":
        shell(rest, device, state, conf)
    elif name == "hilog":
        fake_hdc_shell.run(["hilog", "-x"] + rest, device, state, conf)
    elif name == "fport":
        fakelib.outln("Forwardport result:OK")
    elif name == "target boot":
        state["running"] = []
    # target mount, smode, tmode, jpid, ...: accepted silently


def shell(rest, device, state, conf):
    if rest[:1] == ["-b"]:
        rest = rest[2:]
    # The client joins its arguments into one command line that the device shell splits, so
    # `shell "aa start -a A -b B"` and `shell aa start -a A -b B` run the same command. Among
    # several arguments, one holding a space is wrapped in double quotes first (main.cpp
    # SplitOptionAndCommand), so `-a "-p Faultlogger -l"` reaches the device as one word.
    # (A single argument is taken as the whole command line, as hdc's docs use it: GUESS.)
    if len(rest) == 1:
        line = rest[0]
    else:
        line = " ".join('"%s"' % a if " " in a else a for a in rest)
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    if words:
        fake_hdc_shell.run(words, device, state, conf)


# ---------------------------------------------------------------------------------------------
# app install / uninstall


def _app_line(mode, path, msg, conf):
    if conf.get("install_trailing_space"):
        msg += " "
    if conf.get("install_format") == "old":
        return "[Info]App %s path:%s, queuesize:0, msg:%s" % (mode, path, msg)
    return "[Info]App %s path:%s msg:%s" % (mode, path, msg)


def _install_queue(paths):
    """(display path, hap file) pairs in the order the real client sends them: sorted, unique,
    then taken from the back of the queue."""
    queue = []
    for p in paths:
        full = fakelib.resolve(p)
        if p.endswith((".hap", ".hsp", ".app")):
            queue.append((full, full))
        elif os.path.isdir(full):
            for f in sorted(os.listdir(full)):
                if f.endswith((".hap", ".hsp")):
                    queue.append((full, os.path.join(full, f)))
    return list(reversed(sorted(set(queue))))


def install(rest, state, conf):
    paths = [a for a in rest if not a.startswith("-")]
    queue = _install_queue(paths)
    if not queue:
        fakelib.outln("[Fail][E006001] Not any installation package was found")
        return
    for shown, path in queue:
        if not os.path.isfile(path):
            fakelib.outln("[Fail]Error opening file: no such file or directory, path:%s" % path)
            return
        fakelib.outln(_app_line("install", shown, install_one(path, state), conf))
    fakelib.outln("AppMod finish")


def _install_failure(code, state):
    message = state.get("install_error_message") or dev.INSTALL_ERRORS.get(code, "install failed.")
    return "error: failed to install bundle. code:%d error: %s" % (code, message)


def install_one(path, state):
    hap = fakelib.read_hap(path)
    forced = state.get("install_error")
    if forced:
        return _install_failure(int(forced), state)
    if hap is None:
        return _install_failure(9568337, state)
    if not hap.get("signed"):
        return _install_failure(9568320, state)
    need = dev.sdk_api(hap.get("compatibleSdkVersion"))
    have = dev.sdk_api(state["params"].get("const.ohos.apiversion"))
    if need and have and need > have:
        return _install_failure(9568297, state)
    bundle = hap.get("bundleName")
    old = state["installed"].get(bundle)
    if old:
        if old.get("signer") != hap.get("signer"):
            return _install_failure(9568332, state)
        if int(hap.get("versionCode", 0)) < int(old.get("versionCode", 0)):
            return _install_failure(9568263, state)
    entry = {k: hap.get(k) for k in ("versionCode", "versionName", "signer", "abilities", "mainAbility", "module", "buildMode")}
    entry["hap"] = path
    state["installed"][bundle] = entry
    state["running"] = [r for r in state["running"] if r.get("bundle") != bundle]
    return "install bundle successfully."


def uninstall(rest, state, conf):
    bundles = [a for a in rest if not a.startswith("-")]
    bundle = bundles[-1] if bundles else ""
    if bundle in state["installed"]:
        del state["installed"][bundle]
        state["running"] = [r for r in state["running"] if r.get("bundle") != bundle]
        msg = "uninstall bundle successfully."
    else:
        msg = "error: failed to uninstall bundle. code:%d error: %s" % dev.UNINSTALL_MISSING
    fakelib.outln(_app_line("uninstall", "", msg, conf))
    fakelib.outln("AppMod finish")


def main(argv):
    fakelib.start("hdc", argv)
    conf = fakelib.scenario("hdc")
    with fakelib.state_lock():
        run(list(argv), conf)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
