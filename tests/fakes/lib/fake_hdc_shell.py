"""Device-side commands of the fake `hdc shell`: aa, bm, hilog, pidof, param, snapshot_display."""

import hashlib
import json
import re
import time

import fake_device as dev
import fakelib

# aa error codes: code -> (message, cause, solutions), copied from ability_command.cpp
# CreateMessageMap (openharmony/ability_ability_runtime tools/aa/src/ability_command.cpp).
AA_ERRORS = {
    10104001: (
        "The specified ability does not exist",
        "The specified Ability is not installed",
        [
            "Check if the parameter abilityName of aa -a and the parameter bundleName of -b are correct",
            "Check if the application corresponding to the specified bundleName is installed",
            "For multi-HAP applications, it is necessary to confirm whether the HAP to which"
            " the ability belongs has been installed",
        ],
    ),
    10104002: (
        "Failed to retrieve specified package information.",
        "The application corresponding to the specified package name is not installed.",
        [
            "Check if the bundleName is correct",
            "Check whether the application corresponding to the specified bundleName is installed",
        ],
    ),
    10103001: (
        "Failed to verify the visibility of the target ability.",
        "Application visibility check failed",
        [
            "Check if the exported configuration of the Ability field in the module.json5 of the pulled"
            " application is set to true. If not, set it to true"
        ],
    ),
    10105001: (
        "Ability service connection failed",
        "Failed to obtain the ability remote service",
        ["Try restarting the device and executing again"],
    ),
    10105002: (
        "Failed to get the ability service",
        "The abilityInfo is empty when generating the Ability request through BMS",
        ["Check if the application corresponding to the specified bundleName is installed"],
    ),
    10106001: (
        "not developer Mode",
        "The current device is not in developer mode",
        ["Enable developer mode in the settings"],
    ),
    10106101: (
        "Another ability is being started. Wait until it finishes starting",
        "High system concurrency",
        ["No need to process, just wait for the startup"],
    ),
    10106102: (
        "The device screen is locked during the application launch, unlock screen failed.",
        "The current mode is developer mode, and the screen cannot be unlocked automatically",
        ["Check in the settings whether the current device is in developer mode, and turn off developer mode"],
    ),
    10108101: (
        "An internal error occurs while attempting to launch the ability.",
        "Kernel common errors such as memory allocation and multithreading processing. "
        "Specific reasons may include: internal object being null, processing timeout, "
        "failure to obtain application information from package management, failure to obtain system service, "
        "the number of launched ability instances has reached the limit, etc",
        [
            "Confirm whether the system memory is sufficient and "
            "if there are any issues with the system version used by the device",
            "Check if too many abilities have been launched",
            "Try restarting the device",
        ],
    ),
}

# What `aa force-stop` answers for a bundle that is not installed: GUESS (KillProcess's error
# for an unknown bundle is not in the tool's sources); the text is 10104002's.
FORCE_STOP_UNKNOWN = 10104002

# The template's first log line (DevEco's EntryAbility.ets: hilog.info(0x0000, 'testTag',
# '%{public}s', 'Ability onCreate')), used when an installed ability records none.
TEMPLATE_ON_CREATE = [{"level": "I", "domain": 0, "tag": "testTag", "message": "Ability onCreate"}]


def aa_error_info(code):
    """AaToolErrorInfo::ToString (tools/aa/include/shell_command.h): every line ends in "\n"."""
    message, cause, solutions = AA_ERRORS.get(code, AA_ERRORS[10108101])
    text = "Error Code:%d  Error Message:%s\n" % (code, message)
    text += "Error cause: %s\n" % cause
    text += "  Try the following:\n"
    for s in solutions:
        text += "  > %s\n" % s
    return text


def _flag(words, name):
    if name in words:
        i = words.index(name)
        if i + 1 < len(words):
            return words[i + 1]
    return None


def _abilities(app):
    out = []
    for a in app.get("abilities") or []:
        out.append({"name": a, "exported": True} if isinstance(a, str) else a)
    return out


def aa_start(words, state, conf):
    ability, bundle, module = _flag(words, "-a"), _flag(words, "-b"), _flag(words, "-m")
    if not ability or not bundle:
        fakelib.out(
            ("error: -a <ability-name> is expected\n" if not ability else "error: -b <bundle-name> is expected\n")
            + "usage: aa start <options>\n"
        )
        return
    code = state.get("start_error")
    app = state["installed"].get(bundle)
    found = None
    if app and (not module or module == app.get("module")):
        found = next((a for a in _abilities(app) if a.get("name") == ability), None)
    if not code:
        if state.get("screen_locked"):
            code = 10106102
        elif found is None:
            code = 10104001
        elif not found.get("exported", True):
            code = 10103001
    if code:
        fakelib.out("error: failed to start ability.\n" + aa_error_info(int(code)))
        return
    running = [r for r in state["running"] if r.get("bundle") == bundle]
    if not any(r.get("ability") == ability for r in running):
        pid = running[0]["pid"] if running else dev.new_pid(state)
        proc = {"bundle": bundle, "ability": ability, "pid": pid}
        crash = _crash_for(state, bundle)
        if crash is not None:
            proc["crash"] = crash
            proc["dies_at"] = time.time() + int(crash.get("after_ms", 0)) / 1000.0
        state["running"].append(proc)
        if crash is None or int(crash.get("after_ms", 0)) > 0:
            _log_on_create(state, conf, found, pid)
    fakelib.outln("start ability successfully.")


def _crash_for(state, bundle):
    """The device's `crash_on_launch` setting for `bundle` ({after_ms, error_name,
    error_message}, or true for the defaults), or None."""
    crash = (state.get("crash_on_launch") or {}).get(bundle)
    if crash is None or crash is False:
        return None
    return crash if isinstance(crash, dict) else {}


def _log_on_create(state, conf, ability, pid):
    """The lines the ability's onCreate logs (recorded in the HAP by the fake hvigorw from its
    source), or the DevEco template's line."""
    stamp = dev.now_stamp(conf)
    for entry in ability.get("onCreateLogs") or TEMPLATE_ON_CREATE:
        if isinstance(entry, str):
            entry = {"level": "I", "domain": 0, "tag": "testTag", "message": entry}
        level = entry.get("level", "I")
        state["hilog"].append(
            dev.hilog_line(stamp, pid, pid, level, int(entry.get("domain", 0)), entry.get("tag", "testTag"), entry["message"])
        )


def aa(words, state, conf):
    sub = words[1] if len(words) > 1 else "help"
    if sub == "start":
        aa_start(words, state, conf)
    elif sub == "force-stop":
        bundle = words[2] if len(words) > 2 else ""
        if bundle in state["installed"]:
            state["running"] = [r for r in state["running"] if r.get("bundle") != bundle]
            fakelib.outln("force stop process successfully.")
        else:
            fakelib.out("error: failed to force stop process.\n" + aa_error_info(FORCE_STOP_UNKNOWN))
    elif sub == "dump":
        fakelib.outln("User ID #100")
        fakelib.outln("  current mission lists:{")
        for n, r in enumerate(state["running"], 1):
            app = state["installed"].get(r["bundle"], {})
            fakelib.outln(
                "    Mission ID #%d  mission name #[#%s:%s:%s]  lockedState #0  mission affinity #[]"
                % (n, r["bundle"], app.get("module", "entry"), r["ability"])
            )
        fakelib.outln("  }")
    else:
        fakelib.out("usage: aa <command> <options>\nThese are common aa commands list:\n")


def bm_dump(bundle, state):
    app = state["installed"].get(bundle)
    if app is None:
        fakelib.outln("error: failed to get information and the parameters may be wrong.")
        return
    fingerprint = hashlib.sha256(str(app.get("signer")).encode("utf-8")).hexdigest().upper()
    now_ms = int(time.time() * 1000)
    module = app.get("module") or "entry"
    abilities = [dict(a, bundleName=bundle, moduleName=module) for a in _abilities(app)]
    info = {
        "appId": "%s_%s" % (bundle, fingerprint[:44]),
        "applicationInfo": {
            "appProvisionType": "release" if app.get("buildMode") == "release" else "debug",
            "bundleName": bundle,
            "debug": app.get("buildMode") != "release",
            "versionCode": app.get("versionCode"),
            "versionName": app.get("versionName"),
        },
        "hapModuleInfos": [
            {
                "abilityInfos": abilities,
                "mainAbility": app.get("mainAbility"),
                "mainElementName": app.get("mainAbility"),
                "moduleName": module,
                "name": module,
            }
        ],
        "installTime": app.get("installTime", now_ms),
        "mainEntry": module,
        "name": bundle,
        "signatureInfo": {"appId": "%s_%s" % (bundle, fingerprint[:44]), "fingerprint": fingerprint},
        "updateTime": app.get("updateTime", now_ms),
        "versionCode": app.get("versionCode"),
        "versionName": app.get("versionName"),
    }
    fakelib.outln("%s:" % bundle)
    fakelib.outln(json.dumps(info, indent=4, sort_keys=True))


def bm(words, state):
    sub = words[1] if len(words) > 1 else ""
    if sub == "dump" and "-n" in words:
        bm_dump(_flag(words, "-n") or "", state)
    elif sub == "dump" and "-a" in words:
        fakelib.outln("ID: 100:")
        for b in sorted(state["installed"]):
            fakelib.outln("\t%s" % b)
    elif sub == "get" and "-u" in words:
        fakelib.outln("udid of current device is :")
        fakelib.outln(state["udid"])
    else:
        fakelib.outln("error: parameter error.")


LEVEL_WORDS = {"DEBUG": "D", "INFO": "I", "WARN": "W", "ERROR": "E", "FATAL": "F"}
TYPE_WORDS = {"app": "A", "core": "C", "init": "I", "kmsg": "K", "only_prerelease": "P"}


def _set_filter(value, words=None):
    """`-L D,I` / `-L ^D`: (exclude?, set)."""
    exclude = value.startswith("^")
    items = set()
    for v in value.lstrip("^").split(","):
        v = v.strip()
        if words:
            v = words.get(v.upper(), words.get(v, v.upper() if len(v) == 1 else v))
        items.add(v)
    return exclude, items


def _keep(value, rule):
    if rule is None:
        return True
    exclude, items = rule
    return (value not in items) if exclude else (value in items)


def hilog(words, state, conf):
    if "-r" in words:
        state["hilog"] = []
        fakelib.outln("Log type core,app buffer clear successfully")
        return
    level = _flag(words, "-L")
    tag = _flag(words, "-T")
    domain = _flag(words, "-D")
    pid = _flag(words, "-P")
    kind = _flag(words, "-t")
    regex = _flag(words, "-e")
    rules = {
        "level": _set_filter(level, LEVEL_WORDS) if level else None,
        "tag": _set_filter(tag) if tag else None,
        "pid": _set_filter(pid) if pid else None,
        "kind": _set_filter(kind, TYPE_WORDS) if kind else None,
    }
    domains = {int(d, 16) for d in domain.split(",")} if domain else None
    filtering = any(v is not None for v in rules.values()) or domains or regex
    lines = []
    for line in state["hilog"]:
        p = dev.parse_hilog(line)
        if p is None:
            if not filtering:
                lines.append(line)
            continue
        if not (
            _keep(p["level"], rules["level"])
            and _keep(p["tag"], rules["tag"])
            and _keep(str(p["pid"]), rules["pid"])
            and _keep(p["kind"], rules["kind"])
            and (domains is None or p["domain"] in domains or (p["domain"] & 0xFFFF) in domains)
            and (not regex or re.search(regex, line))
        ):
            continue
        lines.append(line)
    head, tail = _flag(words, "-a"), _flag(words, "-z")
    if head:
        lines = lines[: int(head)]
    if tail:
        lines = lines[-int(tail) :] if int(tail) else []
    for line in lines:
        fakelib.outln(line)


def snapshot_display(words, state, conf):
    path = _flag(words, "-f") or "/data/local/tmp/snapshot_%s.jpeg" % time.strftime("%Y-%m-%d_%H-%M-%S")
    if not path.endswith(".jpeg"):
        fakelib.outln("error: the file name must end with .jpeg")
        return
    state["files"][path] = {"kind": "jpeg", "size": len(fakelib.TINY_JPEG)}
    if conf.get("snapshot_format") == "old":
        fakelib.outln("success: snapshot display 0 , write to %s as jpeg, width 800, height 1280" % path)
    else:
        fakelib.outln("success: snapshot display 0 , write to %s as jpeg, width: 1276, height: 2848" % path)


def param(words, state):
    params = state["params"]
    if len(words) >= 3 and words[1] == "get":
        key = words[2]
        if key in params:
            fakelib.outln(str(params[key]))
        else:
            fakelib.outln('Get parameter "%s" fail! errNum is:106!' % key)
    elif len(words) == 2 and words[1] == "get":
        for k in sorted(params):
            fakelib.outln("%s = %s" % (k, params[k]))
    elif len(words) >= 4 and words[1] == "set":
        params[words[2]] = words[3]
        fakelib.outln('Set parameter %s %s success' % (words[2], words[3]))
    else:
        fakelib.outln("Command list:\n\tparam ls [-r] [name]\n\tparam get [name]\n\tparam set name value")


def date(words, conf):
    """toybox date: `date +FORMAT` is strftime of the local time; the clock is dev.clock."""
    now = dev.clock(conf)
    fmt = next((w[1:] for w in words[1:] if w.startswith("+")), None)
    if fmt is not None:
        fakelib.outln(time.strftime(fmt, now))
    elif len(words) == 1:
        fakelib.outln(time.strftime("%a %b %e %H:%M:%S %Z %Y", now))
    else:
        fakelib.outln("date: setting the date needs root")  # GUESS


# hidumper (hiviewdfx_hidumper sa_dumper.cpp) frames each system ability's dump like this.
ABILITY_LINE = "-------------------------------[ability]-------------------------------"
SA_SEPARATOR = "----------------------------------"
FAULTLOG_SEPARATOR = "******"


def hidumper(words, state, conf):
    sa, args = _flag(words, "-s"), _flag(words, "-a")
    if sa != "1201":
        fakelib.outln("hidumper: only -s 1201 (HiviewService) is faked")  # GUESS
        return
    fakelib.out("\n%s\n\n\n%sHiviewService%s\n" % (ABILITY_LINE, SA_SEPARATOR, SA_SEPARATOR))
    cmds = (args or "").split()
    # hiview_service.cpp DumpRequestDispatcher: "-p <plugin> ..." goes to the plugin, which
    # gets the words from the plugin name on.
    if len(cmds) >= 2 and cmds[0] == "-p" and cmds[1] == "Faultlogger":
        faultlogger_dump(cmds[1:], state)


def _log_time(name):
    """The seconds of a fault log's name (`<type>-<module>-<uid>-YYYYMMDDHHMMSS[mmm].log`)."""
    digits = name.rsplit("-", 1)[-1][:14]
    return time.mktime(time.strptime(digits, "%Y%m%d%H%M%S"))


def faultlogger_dump(cmds, state):
    """faultlog_dump.cpp DumpByCommands: -f NAME, -l, -t TIME, -m MODULE, -d; "Faultlogger"
    (always first here) lists names without the "mmm.log" tail, -LogSuffixWithMs with it."""
    request = {"file": None, "time": 0, "module": "", "compat": False, "detail": False}
    expect = None
    for cmd in cmds:
        if cmd in ("-f", "-t", "-m"):
            expect = cmd
            continue
        if cmd == "Faultlogger":
            request["compat"] = True
        elif cmd == "-LogSuffixWithMs":
            request["compat"] = False
        elif cmd == "-d":
            request["detail"] = True
        elif cmd == "-l":
            pass
        elif cmd.startswith("-"):
            fakelib.outln("Unknown command.")
            return
        elif expect == "-f":
            request["file"] = cmd
        elif expect == "-t":
            request["time"] = time.mktime(time.strptime(cmd, "%Y%m%d%H%M%S")) if len(cmd) == 14 else int(cmd)
        elif expect == "-m":
            request["module"] = cmd
        expect = None
    if expect is not None:
        fakelib.outln("empty parameters.")
        return
    logs = {log["name"]: log["content"] for log in state["faultlogs"]}
    if request["file"]:
        matches = sorted(n for n in logs if request["file"] in n)
        fakelib.outln(logs[matches[-1]] if matches else "Fail to dump the log.")
        return
    names = sorted(
        n for n in logs
        if _log_time(n) > request["time"] and (not request["module"] or n.split("-")[1] == request["module"])
    )
    if not names:
        fakelib.outln("No fault log exist.")
    fakelib.outln("Fault log list:")
    fakelib.outln(FAULTLOG_SEPARATOR)
    for name in names:
        fakelib.outln(name[:-7] if request["compat"] else name)
        if request["detail"]:
            fakelib.outln(logs[name])
            fakelib.outln(FAULTLOG_SEPARATOR)
    fakelib.outln(FAULTLOG_SEPARATOR)


def run(words, device, state, conf):
    cmd = words[0]
    if cmd == "aa":
        aa(words, state, conf)
    elif cmd == "bm":
        bm(words, state)
    elif cmd == "hilog":
        hilog(words, state, conf)
    elif cmd == "pidof":
        bundle = words[1] if len(words) > 1 else ""
        pids = sorted({r["pid"] for r in state["running"] if r.get("bundle") == bundle})
        if pids:
            fakelib.outln(" ".join(str(p) for p in pids))
    elif cmd == "param":
        param(words, state)
    elif cmd == "snapshot_display":
        snapshot_display(words, state, conf)
    elif cmd == "date":
        date(words, conf)
    elif cmd == "hidumper":
        hidumper(words, state, conf)
    elif cmd == "echo":
        fakelib.outln(" ".join(words[1:]))
    elif cmd in ("rm", "reboot", "mount", "ls", "mkdir", "chmod", "kill", "true"):
        if cmd == "reboot":
            state["running"] = []
    else:
        fakelib.outln("/bin/sh: %s: inaccessible or not found" % cmd)
