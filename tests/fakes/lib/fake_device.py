"""Device state of the fake hdc: devices.json and device-<key>.json (see ../README.md)."""

import hashlib
import re
import time

import fakelib

# bm install error codes and messages (HARMONY.md §4), as `bm` prints them after "error: ".
INSTALL_ERRORS = {
    9568257: "fail to verify pkcs7 file.",
    9568258: "install releaseType target not same.",
    9568259: "install parse profile missing prop.",
    9568263: "install version downgrade.",
    9568266: "install permission denied.",
    9568286: "install provision type not same.",
    9568289: "install failed due to grant request permissions failed.",
    9568297: "install failed due to older sdk version in the device.",
    9568305: "dependent module does not exist.",
    9568320: "no signature file.",
    9568322: "signature verification failed due to not trusted app source.",
    9568329: "verify signature failed.",
    9568332: "install sign info inconsistent.",
    9568336: "install debug type not same.",
    9568337: "install parse unexpected.",
    9568344: "install parse profile prop check error.",
    9568347: "install parse native so failed.",
}

UNINSTALL_MISSING = (9568386, "uninstall missing installed bundle.")

DEFAULT_PARAMS = {
    "const.ohos.apiversion": "12",
    "const.ohos.fullname": "OpenHarmony-5.0.0.71",
    "const.product.brand": "FAKE",
    "const.product.manufacturer": "FAKE",
    "const.product.software.version": "FAKE 5.0.0.71(SP1C00E71R4P1)",
    "const.security.developermode.state": "true",
    "persist.hdc.mode": "usb",
}

FIRST_PID = 2291
PID_STEP = 17
# The ring buffer keeps this many lines; older ones drop off, newer launches' lines stay.
HILOG_RING = 5000


def _safe_key(key):
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)


def device_file(key):
    return "device-%s.json" % _safe_key(key)


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


def load(key, conf=None):
    """The device's state with every field present, with every process whose time has come
    gone (see `reap`)."""
    d = fakelib.read_json(device_file(key), {})
    d.setdefault("udid", hashlib.sha256(key.encode("utf-8")).hexdigest().upper())
    d.setdefault("installed", {})
    d.setdefault("running", [])
    d.setdefault("hilog", [])
    d.setdefault("files", {})
    params = dict(DEFAULT_PARAMS)
    params.update(d.get("params") or {})
    d["params"] = params
    d.setdefault("next_pid", FIRST_PID)
    d.setdefault("faultlogs", [])
    reap(d, conf or {})
    return d


def save(key, state):
    state = dict(state)
    state["hilog"] = state["hilog"][-HILOG_RING:]
    params = {k: v for k, v in state["params"].items() if DEFAULT_PARAMS.get(k) != v}
    state["params"] = params
    fakelib.write_json(device_file(key), state)


def new_pid(state):
    pid = int(state["next_pid"])
    state["next_pid"] = pid + PID_STEP
    return pid


def now_stamp(conf):
    """hilog time `MM-DD HH:MM:SS.mmm`; scenario hdc.now pins it."""
    if conf.get("now"):
        return conf["now"]
    t = time.time()
    return time.strftime("%m-%d %H:%M:%S", time.localtime(t)) + ".%03d" % int((t % 1) * 1000)


def hilog_line(stamp, pid, tid, level, domain, tag, msg, kind="A"):
    """log_print.cpp layout: time, %5d pid, %5d tid, level, type+5 hex domain/tag: msg."""
    return "%s %5d %5d %s %s%05x/%s: %s" % (stamp, pid, tid, level, kind, domain, tag, msg)


HILOG_RE = re.compile(
    r"^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)\s+(\d+)\s+([DIWEF])\s+([ACIKP])([0-9a-fA-F]{5})/([^:]*):\s?(.*)$"
)


def parse_hilog(line):
    m = HILOG_RE.match(line)
    if not m:
        return None
    return {
        "time": m.group(1),
        "pid": int(m.group(2)),
        "tid": int(m.group(3)),
        "level": m.group(4),
        "kind": m.group(5),
        "domain": int(m.group(6), 16),
        "tag": m.group(7),
        "msg": m.group(8),
    }


def sdk_api(value):
    """12 from 12, "12", "5.0.0(12)"; None when unknown."""
    if isinstance(value, int):
        return value
    m = re.search(r"\((\d+)\)\s*$", str(value or "")) or re.match(r"^\s*(\d+)\s*$", str(value or ""))
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------------------------------------
# the device clock, crashes and the faultlogger


def clock(conf):
    """The device's local time as a struct_time: scenario hdc.now ("MM-DD HH:MM:SS.mmm") with
    hdc.year (default this year) pins it, so `date` and hilog agree."""
    pinned = conf.get("now")
    if not pinned:
        return time.localtime()
    year = int(conf.get("year") or time.localtime().tm_year)
    return time.strptime("%d-%s" % (year, pinned[:14]), "%Y-%m-%d %H:%M:%S")


def uid_of(bundle):
    """An app uid in the 20010000 range, stable per bundle (OpenHarmony app uids are 200100xx)."""
    return 20010000 + int(hashlib.sha256(bundle.encode("utf-8")).hexdigest()[:4], 16) % 1000


def jscrash_log(state, proc, crash, stamp):
    """A jscrash fault log in the order faultlog_formatter.cpp GetJsCrashSectionLogs writes it;
    the summary is ets_environment.cpp's "Error name:/Error message:/Stacktrace:"."""
    app = state["installed"].get(proc["bundle"], {})
    lines = [
        "Generated by HiviewDFX@OpenHarmony",
        "================================================================",
        "Device info:OpenHarmony 5.0.0",
        "Build info:%s" % state["params"].get("const.ohos.fullname", "OpenHarmony-5.0.0.71"),
        "Module name:%s" % proc["bundle"],
        "Version:%s" % app.get("versionName", "1.0.0"),
        "VersionCode:%s" % app.get("versionCode", 1000000),
        "PreInstalled:No",
        "Foreground:Yes",
        "Pid:%d" % proc["pid"],
        "Uid:%d" % uid_of(proc["bundle"]),
        "Process name:%s" % proc["bundle"],
        "Reason:%s" % crash.get("error_name", "TypeError"),
        "Error name:%s" % crash.get("error_name", "TypeError"),
        "Error message:%s" % crash.get("error_message", "Cannot read property 'length' of undefined"),
        "Stacktrace:",
        "    at onCreate (entry/src/main/ets/entryability/EntryAbility.ets:7:5)",
        "",
    ]
    return {
        "name": "jscrash-%s-%d-%s.log" % (proc["bundle"], uid_of(proc["bundle"]), stamp),
        "content": "\n".join(lines),
    }


def reap(state, conf):
    """Processes whose `dies_at` has passed are gone: each leaves a jscrash fault log, named
    with the device clock's time of death (faultlog_util.cpp GetFaultLogName)."""
    now = time.time()
    alive = []
    for proc in state["running"]:
        if proc.get("dies_at") is None or proc["dies_at"] > now:
            alive.append(proc)
            continue
        if (proc.get("crash") or {}).get("fault_log") is False:
            continue  # it exited (or was killed) without crashing: no fault log
        died = clock(conf) if conf.get("now") else time.localtime(proc["dies_at"])
        stamp = time.strftime("%Y%m%d%H%M%S", died) + "%03d" % int((proc["dies_at"] % 1) * 1000)
        state["faultlogs"].append(jscrash_log(state, proc, proc.get("crash") or {}, stamp))
    state["running"] = alive
