#!/usr/bin/env python3
"""Self-test of the fake toolchain: runs the fakes as subprocesses against temp state and
asserts exact outputs and exit codes. Usage: python3 tests/fakes/selftest.py [-k NAME]

The fakes are the Rust program rein-fake-device (tests/fakes/device), host side and device side;
this builds it with cargo (or takes the folder REIN_FAKE_DEVICE_DIR names), has it put its
programs (hdc, hvigorw, ohpm) in a folder of its own, and puts that first on PATH. What needs a
signed package (an install that succeeds) is tested by the Rust integration tests, which sign
with the real hap-sign-tool; here every project is built unsigned."""

import concurrent.futures
import json
import os
import shutil
import socket
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import hashlib  # noqa: E402
import re  # noqa: E402
import zipfile  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
BIN = None  # set by main(): the folder holding the fake toolchain's programs
FIXTURE = os.path.join(os.path.dirname(HERE), "fixtures", "hello-app")
HAP_DIR = "entry/build/default/outputs/default"
NOW = "01-01 08:10:55.571"
P = "> hvigor "
NEED_KEY = "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\r\n"
BUILD_CMD = ["--mode", "module", "-p", "product=default", "-p", "buildMode=debug", "assembleHap", "--no-daemon"]
SIGNING_CONFIGS = re.compile(r'"signingConfigs": \[.*?\n    \],', re.S)


def uid_of(bundle):
    """The fake device's app uid (tests/fakes/device/src/faultlog.rs uid_of)."""
    return 20010000 + int(hashlib.sha256(bundle.encode("utf-8")).hexdigest()[:4], 16) % 1000


class Env:
    """A temp state dir plus a fresh copy of the fixture project."""

    def __init__(self, root):
        self.root = root
        self.state = os.path.join(root, "state")
        self.proj = os.path.join(root, "hello-app")
        os.makedirs(self.state)
        # An SDK folder for hvigorw (DEVECO_SDK_HOME): without one it stops with 00303217.
        self.sdk = os.path.join(root, "sdk")
        os.makedirs(self.sdk)
        shutil.copytree(FIXTURE, self.proj)
        self.unsigned()

    def unsigned(self):
        """No signingConfigs: signing needs the real hap-sign-tool (the Rust tests' business)."""
        with open(self.path("build-profile.json5")) as f:
            text = f.read()
        with open(self.path("build-profile.json5"), "w") as f:
            f.write(SIGNING_CONFIGS.sub('"signingConfigs": [],', text, count=1))

    def signed(self):
        shutil.copy(os.path.join(FIXTURE, "build-profile.json5"), self.path("build-profile.json5"))

    def env(self, extra=None):
        e = dict(os.environ)
        e["PATH"] = BIN + os.pathsep + e.get("PATH", "")
        e["REIN_FAKE_STATE"] = self.state
        for k in list(e):
            if k.startswith("REIN_FAKE_") and k != "REIN_FAKE_STATE" or k == "DEVECO_SDK_HOME":
                del e[k]
        e["DEVECO_SDK_HOME"] = self.sdk
        e.update(extra or {})
        return e

    def run(self, prog, *args, cwd=None, env=None, code=0):
        p = subprocess.run([prog] + list(args), cwd=cwd or self.proj, env=self.env(env),
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        out, err = p.stdout.decode("utf-8"), p.stderr.decode("utf-8")
        if code is not None and p.returncode != code:
            raise AssertionError("%s %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s"
                                 % (prog, args, p.returncode, code, out, err))
        return out, err

    def hdc(self, *args):
        return self.run("hdc", *args)[0]

    def write(self, name, value):
        with open(os.path.join(self.state, name), "w") as f:
            json.dump(value, f)

    def read(self, name):
        with open(os.path.join(self.state, name)) as f:
            return json.load(f)

    def path(self, rel):
        return os.path.join(self.proj, rel)

    def one_device(self, **device_state):
        self.write("devices.json", [{"key": "FMR0223C13000649", "name": "phone"}])
        self.write("device-FMR0223C13000649.json", device_state)
        self.write("scenario.json", {"hdc": {"now": NOW}})

    def build(self):
        return self.run("hvigorw", *BUILD_CMD)[0]

    def install_state(self, **extra):
        """The fixture's app as `bm install` records it, on the one device."""
        app = {"versionCode": 1000000, "versionName": "1.0.0", "signer": "S", "module": "entry",
               "mainAbility": "EntryAbility", "buildMode": "debug",
               "abilities": [{"name": "EntryAbility", "exported": True}]}
        app.update(extra)
        return {"com.example.hello": app}


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s\n--- got ---\n%r\n--- want ---\n%r" % (what, got, want))


def has(text, part, what=""):
    if part not in text:
        raise AssertionError("%s: %r not in\n%s" % (what, part, text))


def install_line(path, msg):
    """bm's output with each "\\n" made a space by the daemon: a trailing space (observed)."""
    return "[Info]App install path:%s msg:%s \nAppMod finish\n" % (path, msg)


def install_fail(path, code, msg):
    return install_line(path, "error: failed to install bundle. code:%d error: %s" % (code, msg))


def open_failed(path, master):
    """The [Fail] line and the client's fatal log line after it (observed on the real build)."""
    return re.compile(r"\[Fail\]Error opening file: no such file or directory, path:%s\n"
                      r"\[F\]\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] open path:%s, localPath:%s, "
                      r"error:no such file or directory, dir:0, master:%d\n$"
                      % (re.escape(path), re.escape(path), re.escape(path), master))


def matches(text, pattern, what=""):
    if not pattern.match(text):
        raise AssertionError("%s: %r does not match %s" % (what, text, pattern.pattern))


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


# ----------------------------------------------------------------------------------------- hdc


@case
def hdc_without_devices(e):
    eq(e.hdc("list", "targets"), "[Empty]\r\n")
    eq(e.hdc("list", "targets", "-v"), "[Empty]\r\thdc\n")
    for args in (["version"], ["-v"], ["--version"]):
        eq(e.hdc(*args), "Ver: 3.2.0f\n", args)
    eq(e.hdc("checkserver"), "Client version:Ver: 3.2.0f, server version:Ver: 3.2.0f\n")
    eq(e.hdc("shell", "echo", "hi"), NEED_KEY)
    eq(e.hdc("install", "-r", "x.hap"), NEED_KEY)
    eq(e.hdc("kill"), "Kill server finish\n")
    eq(e.hdc("kill", "-r"), "")
    eq(e.hdc("fport", "ls"), "[Empty]\r\n")
    out, err = e.run("hdc", "frobnicate")
    eq(out, "Unknown operation command...\n")
    has(err, "list targets")


@case
def hdc_kill_signals_only_its_own_server(e):
    # findings/09: programs rein runs may write the state folder ([spawn] writable), so a pid
    # written there must never be what `hdc kill` signals.
    victim = subprocess.Popen(["sleep", "60"])
    try:
        e.write("hdc-server.pid", victim.pid)
        eq(e.hdc("kill"), "Kill server finish\n")
        try:
            victim.wait(2)
            raise AssertionError("hdc kill signalled a pid written into the state folder")
        except subprocess.TimeoutExpired:
            pass
    finally:
        victim.kill()
        victim.wait()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    env = {"OHOS_HDC_SERVER_PORT": str(port)}
    e.run("hdc", "start", env=env)
    eq(answers(port), True, "the stand-in server listens")
    eq(os.path.exists(os.path.join(e.root, ".state.hdc-server.json")), True, "its token is kept beside the state")
    e.run("hdc", "kill", env=env)
    deadline = time.time() + 10
    while answers(port) and time.time() < deadline:
        time.sleep(0.05)
    eq(answers(port), False, "hdc kill stops the stand-in server")


def answers(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@case
def hdc_device_selection(e):
    e.write("devices.json", [
        {"key": "FMR0223C13000649", "name": "HUAWEI Mate 60"},
        {"key": "127.0.0.1:5555", "conn": "TCP", "status": "Connected", "name": "emulator"},
        {"key": "OFF1", "status": "Offline"},
        {"key": "U1", "status": "Unauthorized"},
        {"key": "U2", "status": "Unauthorized", "auth_denied": True},
        {"key": "SLOW", "channel_not_ready": True},
    ])
    eq(e.hdc("list", "targets"), "FMR0223C13000649\n127.0.0.1:5555\nU1\tUnauthorized\nU2\tUnauthorized\nSLOW\n")
    eq(e.hdc("list", "targets", "-v"),
       "FMR0223C13000649\t\tUSB\tConnected\tHUAWEI Mate 60\thdc\n"
       "127.0.0.1:5555\t\tTCP\tConnected\temulator\thdc\n"
       "OFF1\t\tUSB\tOffline\tlocalhost\thdc\n"
       "U1\t\tUSB\tUnauthorized\tlocalhost\thdc\n"
       "U2\t\tUSB\tUnauthorized\tlocalhost\thdc\n"
       "SLOW\t\tUSB\tConnected\tlocalhost\thdc\n")
    eq(e.hdc("shell", "echo", "hi"), NEED_KEY)
    eq(e.hdc("-t", "127.0.0.1:5555", "shell", "echo", "hi"), "hi\n")
    eq(e.hdc("-t127.0.0.1:5555", "shell", "echo hi"), "hi\n")
    eq(e.hdc("-t", "NOPE", "shell", "echo"), "[Fail]Not match target founded, check connect-key please\r\n")
    eq(e.hdc("-t", "OFF1", "shell", "echo"), "[Fail][E001005] Device not found or connected\r\n")
    eq(e.hdc("-t", "U1", "install", "x.hap"),
       "[Fail][E000002]:The device unauthorized.\r\nThis server's public key is not set.\r\n"
       "Please check for a confirmation dialog on your device.\r\n"
       "Otherwise try 'hdc kill' if that seems wrong.\r\n")
    eq(e.hdc("-t", "U2", "shell", "echo"),
       "[Fail][E000003]:The device unauthorized.\r\nThe user denied the access for the device.\r\n"
       "Please execute 'hdc kill' and redo your command,\r\n"
       "then check for a confirmation dialog on your device.\r\n")
    eq(e.hdc("-t", "SLOW", "shell", "echo"),
       "[Fail][E000004]:The communication channel is being established.\r\n"
       "Please wait for several seconds and try again.\r\n")
    e.write("devices.json", [{"key": "U1", "status": "Unauthorized"}])
    has(e.hdc("shell", "echo"), "[Fail][E000002]:The device unauthorized.\r\n")


@case
def hdc_tconn(e):
    eq(e.hdc("tconn", "1.2.3:5555"), "[Fail][E001104]:IP address incorrect\n")
    eq(e.hdc("tconn", "127.0.0.1:5555"), "Connect OK\r\n")
    eq(e.hdc("tconn", "127.0.0.1:5555"), "[Info]Target is connected, repeat operation\r\n")
    eq(e.hdc("list", "targets", "-v"), "127.0.0.1:5555\t\tTCP\tConnected\tlocalhost\thdc\n")
    e.write("scenario.json", {"hdc": {"tconn_fail": True}})
    eq(e.hdc("tconn", "127.0.0.1:1"), "[Fail]Connect failed\r\n")
    eq(e.hdc("list", "targets", "-v"), "127.0.0.1:5555\t\tTCP\tConnected\tlocalhost\thdc\n"
       "127.0.0.1:1\t\tTCP\tOffline\tunknown...\thdc\n")


@case
def build_writes_a_real_hap_and_the_device_runs_its_app(e):
    e.one_device()
    out = e.build()
    profile = e.path("build-profile.json5")
    eq(out, P + "UP-TO-DATE :entry:default@PreBuild...  \n"
       + "".join(P + "Finished :entry:default@%s... after 5 ms\n" % t for t in
                 ("GenerateMetadata", "MergeProfile", "CreateBuildProfile", "GenerateLoaderJson", "CompileResource"))
       + P + "Finished :entry:default@CompileArkTS... after 2 s 117 ms\n"
       + P + "Finished :entry:default@PackageHap... after 95 ms\n"
       + P + "WARN: Will skip sign 'hos_hap'. No signingConfigs profile is configured in current project.\n"
       + "             If needed, configure the signingConfigs in %s.\n" % profile
       + P + "Finished :entry:default@SignHap... after 4 ms\n"
       + P + "Finished :entry:assembleHap... after 1 ms\n"
       + P + "BUILD SUCCESSFUL in 3 s 512 ms\n")
    unsigned = e.path(HAP_DIR + "/entry-default-unsigned.hap")
    with zipfile.ZipFile(unsigned) as z:
        eq(sorted(z.namelist()), ["ets/modules.abc", "module.json", "pack.info", "resources.index"])
        module = json.loads(z.read("module.json"))
        code = json.loads(z.read("ets/modules.abc"))
    eq((module["app"]["bundleName"], module["app"]["versionCode"], module["app"]["minAPIVersion"],
        module["module"]["mainElement"], module["module"]["abilities"][0]["exported"]),
       ("com.example.hello", 1000000, 12, "EntryAbility", True))
    eq(code["abilities"]["EntryAbility"]["onCreateLogs"],
       [{"level": "I", "domain": 0, "tag": "testTag", "message": "Ability onCreate"}], "read from EntryAbility.ets")
    eq(os.path.exists(e.path(HAP_DIR + "/entry-default-signed.hap")), False)
    eq(e.hdc("install", "-r", HAP_DIR + "/entry-default-unsigned.hap"),
       install_fail(unsigned.replace(e.proj + "/", e.proj + "/"), 9568320, "no signature file."))
    e.write("device-FMR0223C13000649.json", {"installed": e.install_state()})
    has(e.hdc("shell", "bm", "dump", "-n", "com.example.hello"), '"versionCode": 1000000')
    eq(e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello", "-m", "entry"),
       "start ability successfully.\n")
    line = NOW + "  2291  2291 I A00000/testTag: Ability onCreate\n"
    eq(e.hdc("shell", "hilog", "-x"), line)
    eq(e.hdc("shell", "pidof", "com.example.hello"), "2291\n")
    eq(e.hdc("shell", "aa start -a EntryAbility -b com.example.hello"), "start ability successfully.\n")
    eq(e.hdc("shell", "hilog -x"), line, "a running ability is not created again")
    eq(e.hdc("shell", "aa", "force-stop", "com.example.hello"), "force stop process successfully.\n")
    eq(e.hdc("shell", "pidof", "com.example.hello"), "")
    eq(e.hdc("shell", "hilog", "-r"), "Log type core,app buffer clear successfully\n")
    eq(e.hdc("shell", "hilog", "-x"), "")
    e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello")
    eq(e.hdc("shell", "hilog", "-x"), NOW + "  2308  2308 I A00000/testTag: Ability onCreate\n")
    eq(e.hdc("uninstall", "com.example.hello"),
       "[Info]App uninstall path: msg:uninstall bundle successfully. \r\nAppMod finish\r\n")
    eq(e.hdc("uninstall", "com.example.hello"),
       "[Info]App uninstall path: msg:error: failed to uninstall bundle. code:9568386 error: "
       "uninstall missing installed bundle. \r\nAppMod finish\r\n")
    eq(e.hdc("shell", "bm", "dump", "-n", "com.example.hello"),
       "error: failed to get information and the parameters may be wrong.\n")


@case
def install_failures(e):
    e.one_device()
    e.build()
    unsigned = e.path(HAP_DIR + "/entry-default-unsigned.hap")
    eq(e.hdc("install", "-r", unsigned), install_fail(unsigned, 9568320, "no signature file."))
    with open(e.path("not-a-package.hap"), "w") as f:
        f.write("text")
    eq(e.hdc("install", e.path("not-a-package.hap")),
       install_fail(e.path("not-a-package.hap"), 9568337, "install parse unexpected."))
    matches(e.hdc("install", "-r", "missing.hap"), open_failed(os.path.join(e.proj, "missing.hap"), 1))
    eq(e.hdc("install", "-r", "README.txt"), "[Fail][E006001] Not any installation package was found\n")
    messages = {
        9568320: "no signature file.",
        9568322: "signature verification failed due to not trusted app source.",
        9568332: "install sign info inconsistent.",
        9568263: "install version downgrade.",
        9568289: "install failed due to grant request permissions failed.",
        9568297: "install failed due to older sdk version in the device.",
        9568305: "Failed to install the HAP or HSP because the dependent module does not exist.",
        9568347: "install parse native so failed.",
        9568257: "fail to verify pkcs7 file.",
    }
    for code, msg in messages.items():
        e.write("device-FMR0223C13000649.json", {"install_error": code})
        eq(e.hdc("install", "-r", unsigned), install_fail(unsigned, code, msg), code)
    e.write("scenario.json", {"hdc": {"install_format": "old"}})
    eq(e.hdc("install", "-r", unsigned),
       "[Info]App install path:%s, queuesize:0, msg:error: failed to install bundle. code:9568257 "
       "error: fail to verify pkcs7 file. \nAppMod finish\n" % unsigned)
    bm = [c for c in (json.loads(line) for line in open(os.path.join(e.state, "calls.log"))) if c["program"] == "bm"]
    eq(bm[0]["argv"], ["install", "-r", "-p", unsigned], "bm install [OPTIONS] -p <package>, as hdcd runs it")


@case
def aa_start_failures(e):
    e.one_device(installed={"com.example.hello": {
        "versionCode": 1, "signer": "s", "module": "entry", "mainAbility": "EntryAbility",
        "abilities": [{"name": "EntryAbility", "exported": True}, {"name": "Hidden", "exported": False}]}})
    eq(e.hdc("shell", "aa", "start", "-a", "Nope", "-b", "com.example.hello"),
       "error: failed to start ability.\n"
       "Error Code:10104001  Error Message:The specified ability does not exist\n"
       "Error cause: The specified Ability is not installed\n"
       "  Try the following:\n"
       "  > Check if the parameter abilityName of aa -a and the parameter bundleName of -b are correct\n"
       "  > Check if the application corresponding to the specified bundleName is installed\n"
       "  > For multi-HAP applications, it is necessary to confirm whether the HAP to which the ability "
       "belongs has been installed\n")
    out = e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.other")
    has(out, "Error Code:10104001  Error Message:The specified ability does not exist\n")
    out = e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello", "-m", "feature")
    has(out, "Error Code:10104001")
    out = e.hdc("shell", "aa", "start", "-a", "Hidden", "-b", "com.example.hello")
    has(out, "error: failed to start ability.\n"
        "Error Code:10103001  Error Message:Failed to verify the visibility of the target ability.\n")
    state = e.read("device-FMR0223C13000649.json")
    state["screen_locked"] = True
    e.write("device-FMR0223C13000649.json", state)
    out = e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello")
    has(out, "Error Code:10106102  Error Message:The device screen is locked during the application launch,"
        " unlock screen failed.\n")
    state["screen_locked"], state["start_error"] = False, 10105001
    e.write("device-FMR0223C13000649.json", state)
    has(e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello"),
        "Error Code:10105001  Error Message:Ability service connection failed\n")
    has(e.hdc("shell", "aa", "start", "-b", "com.example.hello"), "error: -a <ability-name> is expected\n")
    has(e.hdc("shell", "aa", "force-stop", "com.other"), "error: failed to force stop process.\nError Code:10104002")


DEVICE_FILE = "device-FMR0223C13000649.json"
ABILITY_LINE = "-------------------------------[ability]-------------------------------"
SA_LINE = "----------------------------------HiviewService----------------------------------"
FAULTLOG_HEAD = "\n" + ABILITY_LINE + "\n\n\n" + SA_LINE + "\n"


def faultlogger(e, *args):
    return e.hdc("shell", "hidumper", "-s", "1201", "-a", " ".join(("-p", "Faultlogger") + args))


@case
def launches_clock_crashes_and_faultlogger(e):
    e.one_device()
    e.write("scenario.json", {"hdc": {"now": "06-15 10:00:00.000", "year": 2025}})
    e.write(DEVICE_FILE, {"installed": e.install_state()})
    eq(e.hdc("shell", "date", "+%Y%m%d%H%M%S"), "20250615100000\n")
    eq(faultlogger(e, "-m", "com.example.hello"),
       FAULTLOG_HEAD + "No fault log exist.\nFault log list:\n******\n******\n")
    start = ("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello")
    eq(e.hdc(*start), "start ability successfully.\n")
    e.hdc("shell", "aa", "force-stop", "com.example.hello")
    e.hdc(*start)
    eq(e.hdc("shell", "hilog", "-x"),
       "06-15 10:00:00.000  2291  2291 I A00000/testTag: Ability onCreate\n"
       "06-15 10:00:00.000  2308  2308 I A00000/testTag: Ability onCreate\n", "a new pid per launch, old lines kept")
    e.hdc("shell", "aa", "force-stop", "com.example.hello")
    state = e.read(DEVICE_FILE)
    state["crash_on_launch"] = {"com.example.hello": {}}
    e.write(DEVICE_FILE, state)
    eq(e.hdc(*start), "start ability successfully.\n", "aa start answers before the app crashes")
    eq(e.hdc("shell", "pidof", "com.example.hello"), "", "crashed at once")
    eq(len(e.hdc("shell", "hilog", "-x").splitlines()), 2, "no onCreate line from a process that died first")
    listing = faultlogger(e, "-m", "com.example.hello", "-t", "20250615095959")
    name = "jscrash-com.example.hello-%d-20250615100000" % uid_of("com.example.hello")
    eq(listing, FAULTLOG_HEAD + "Fault log list:\n******\n" + name + "\n******\n")
    eq(faultlogger(e, "-m", "com.example.hello", "-t", "20250615100000"),
       FAULTLOG_HEAD + "No fault log exist.\nFault log list:\n******\n******\n", "only logs after -t")
    has(faultlogger(e, "-LogSuffixWithMs", "-m", "com.example.hello"), name)
    content = faultlogger(e, "-f", name)
    eq(content.split("\n")[5:8], ["Generated by HiviewDFX@OpenHarmony",
                                   "================================================================",
                                   "Device info:OpenHarmony 5.0.0"])
    for line in ("Module name:com.example.hello\n", "Pid:2325\n", "Reason:TypeError\n", "Stacktrace:\n"):
        has(content, line)
    has(faultlogger(e, "-f", "jscrash-com.none-1-20250615100000"), "Fail to dump the log.\n")
    has(faultlogger(e, "-x"), "Unknown command.\n")
    # A crash a moment after onCreate: the pid is there, then gone. (A long delay against a
    # generous bound: a loaded machine slows the fakes' start, not the clock.)
    state = e.read(DEVICE_FILE)
    state["crash_on_launch"] = {"com.example.hello": {"after_ms": 3000, "error_name": "RangeError"}}
    e.write(DEVICE_FILE, state)
    e.write("scenario.json", {"hdc": {"now": "06-15 10:00:05.000", "year": 2025}})
    e.hdc(*start)
    eq(e.hdc("shell", "pidof", "com.example.hello"), "2342\n")
    has(e.hdc("shell", "hilog", "-x", "-P", "2342"), "2342  2342 I A00000/testTag: Ability onCreate\n")
    time.sleep(3.2)
    eq(e.hdc("shell", "pidof", "com.example.hello"), "")
    later = faultlogger(e, "-m", "com.example.hello", "-t", "20250615100004").split("\n")[-3]
    eq(later, "jscrash-com.example.hello-%d-20250615100005" % uid_of("com.example.hello"))
    has(faultlogger(e, "-f", later), "Pid:2342\nUid:")
    has(faultlogger(e, "-f", later), "Reason:RangeError\n")
    state = e.read(DEVICE_FILE)
    state["crash_on_launch"] = {"com.example.hello": {"fault_log": False}}
    e.write(DEVICE_FILE, state)
    e.write("scenario.json", {"hdc": {"now": "06-15 10:00:09.000", "year": 2025}})
    e.hdc(*start)
    eq(e.hdc("shell", "pidof", "com.example.hello"), "", "gone")
    eq(faultlogger(e, "-m", "com.example.hello", "-t", "20250615100008"),
       FAULTLOG_HEAD + "No fault log exist.\nFault log list:\n******\n******\n", "an exit is no crash")


@case
def on_create_logs_come_from_the_ability_source(e):
    e.one_device()
    src = e.path("entry/src/main/ets/entryability/EntryAbility.ets")
    with open(src) as f:
        text = f.read()
    text = text.replace("export default class", "const DOMAIN = 0x0001;\n\nexport default class")
    text = text.replace("'Ability onCreate');", "'Ability onCreate');\n    hilog.warn(DOMAIN, 'demo', 'ready %{public}s', 'REIN_READY');")
    with open(src, "w") as f:
        f.write(text)
    e.build()
    with zipfile.ZipFile(e.path(HAP_DIR + "/entry-default-unsigned.hap")) as z:
        logs = json.loads(z.read("ets/modules.abc"))["abilities"]["EntryAbility"]["onCreateLogs"]
    e.write(DEVICE_FILE, {"installed": e.install_state(abilities=[
        {"name": "EntryAbility", "exported": True, "onCreateLogs": logs}])})
    e.hdc("shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello")
    eq(e.hdc("shell", "hilog", "-x"), NOW + "  2291  2291 I A00000/testTag: Ability onCreate\n"
       + NOW + "  2291  2291 W A00001/demo: ready REIN_READY\n")
    eq(e.hdc("shell", "echo", "a  b", "c"), "a  b c\n", "an argument with spaces stays one word")


@case
def hilog_filters(e):
    lines = [
        NOW + "  1000  1001 I A00000/testTag: info line",
        NOW + "  1000  1001 E A00000/testTag: error line",
        NOW + "  2000  2001 W A03d00/JSAPP: warn line",
        NOW + "   300   300 D C01510/BinderInvoker: core debug",
        "not a hilog line",
    ]
    e.one_device(hilog=lines)
    eq(e.hdc("shell", "hilog", "-x"), "\n".join(lines) + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-L", "E"), lines[1] + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-L", "W,E"), lines[1] + "\n" + lines[2] + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-L", "^I"), "\n".join(lines[1:4]) + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-T", "testTag"), "\n".join(lines[:2]) + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-P", "2000"), lines[2] + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-D", "0x3d00"), lines[2] + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-t", "core"), lines[3] + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-e", "warn|debug"), "\n".join(lines[2:4]) + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-z", "2"), "\n".join(lines[3:]) + "\n")
    eq(e.hdc("shell", "hilog", "-x", "-a", "1"), lines[0] + "\n")
    eq(e.hdc("hilog"), "\n".join(lines) + "\n")


@case
def device_probes_and_files(e):
    e.one_device(udid="ABCDEF0123")
    eq(e.hdc("shell", "bm", "get", "-u"), "udid of current device is :\nABCDEF0123\n")
    eq(e.hdc("shell", "param", "get", "const.ohos.apiversion"), "12\n")
    eq(e.hdc("shell", "param", "get", "no.such"), 'Get parameter "no.such" fail! errNum is:106!\n')
    eq(e.hdc("shell", "snapshot_display", "-f", "/data/local/tmp/x.jpeg"),
       "success: snapshot display 0 , write to /data/local/tmp/x.jpeg as jpeg, width: 1276, height: 2848\n")
    shot = os.path.join(e.root, "shot.jpeg")
    out = e.hdc("file", "recv", "/data/local/tmp/x.jpeg", shot)
    with open(shot, "rb") as f:
        data = f.read()
    eq((data[:3], data[-2:]), (b"\xff\xd8\xff", b"\xff\xd9"))
    eq(out, "FileTransfer finish, Size:%d, File count = 1, time:2ms rate:%.2fkB/s\n" % (len(data), len(data) / 2))
    eq(e.hdc("file", "recv", "/data/local/tmp/none.jpeg", shot),
       "[Fail]Error opening file: no such file or directory, path:/data/local/tmp/none.jpeg\r\n")
    matches(e.hdc("file", "recv", "/data/local/tmp/x.jpeg", os.path.join(e.root, "no", "x.jpeg")),
            open_failed(os.path.join(e.root, "no", "x.jpeg"), 0))
    eq(e.hdc("file", "send", "AppScope/app.json5", "/data/local/tmp/app.json5"),
       "FileTransfer finish, Size:%d, File count = 1, time:2ms rate:%.2fkB/s\r\n"
       % (os.path.getsize(e.path("AppScope/app.json5")), os.path.getsize(e.path("AppScope/app.json5")) / 2))
    eq(e.hdc("file", "send", "AppScope/app.json5", "/data/local/none/app.json5"),
       "[Fail]Error opening file: no such file or directory, path:/data/local/none/app.json5\r\n")
    matches(e.hdc("file", "send", "missing.txt", "/data/local/tmp/m.txt"), open_failed(e.path("missing.txt"), 1))
    e.hdc("file", "recv", "/data/local/tmp/app.json5", os.path.join(e.root, "back.json5"))
    with open(os.path.join(e.root, "back.json5"), "rb") as a, open(e.path("AppScope/app.json5"), "rb") as b:
        eq(a.read(), b.read())
    eq(e.hdc("shell", "snapshot_display", "-f", "/data/local/tmp/x.png"), "error: the file name must end with .jpeg\n")
    eq(e.hdc("shell", "frob", "--x"), "/bin/sh: frob: inaccessible or not found\n")
    e.write("scenario.json", {"hdc": {"snapshot_format": "old"}})
    eq(e.hdc("shell", "snapshot_display", "-f", "/data/local/tmp/y.jpeg"),
       "success: snapshot display 0 , write to /data/local/tmp/y.jpeg as jpeg, width 800, height 1280\n")


# ------------------------------------------------------------------------------------- hvigorw


def failed_tail(ms="3 s 512 ms"):
    return P + "ERROR: BUILD FAILED in %s \n" % ms


@case
def hvigor_arkts_errors(e):
    index = e.path("entry/src/main/ets/pages/Index.ets")
    with open(index) as f:
        lines = f.read().split("\n")
    lines[4] = "  @State message: string = REIN_FAKE_ARKTS_ERROR;"
    with open(index, "w") as f:
        f.write("\n".join(lines))
    head = P + "UP-TO-DATE :entry:default@PreBuild...  \n" + "".join(
        P + "Finished :entry:default@%s... after 5 ms\n" % t for t in
        ("GenerateMetadata", "MergeProfile", "CreateBuildProfile", "GenerateLoaderJson", "CompileResource"))
    out, _ = e.run("hvigorw", *BUILD_CMD, code=255)
    eq(out, head + P + "ERROR: Failed :entry:default@CompileArkTS... \n"
       + P + "ERROR: ArkTS Compiler Error\n"
       + "1 ERROR: 10505001 ArkTS Compiler Error\n"
       + "Error Message: Cannot find name 'REIN_FAKE_ARKTS_ERROR'. At File: %s:5:28\n" % index
       + "\n\nCOMPILE RESULT:FAIL {ERROR:1 WARN:0}\n\n* Try:\n"
       + "> Run with --stacktrace option to get the stack trace.\n"
       + "> Run with --debug option to get more log output.\n\n" + failed_tail())
    eq(os.path.exists(e.path(HAP_DIR + "/entry-default-unsigned.hap")), False)
    e.write("scenario.json", {"hvigorw": {"arkts_format": "old", "duration_ms": 74227}})
    out, _ = e.run("hvigorw", *BUILD_CMD, code=255)
    eq(out, head + P + "ERROR: Failed :entry:default@CompileArkTS... \n"
       + P + "ERROR: ArkTS:ERROR File: %s:5:28\n Cannot find name 'REIN_FAKE_ARKTS_ERROR'.\n\n" % index
       + "\n\nCOMPILE RESULT:FAIL {ERROR:1 WARN:0}\n\n* Try:\n"
       + "> Run with --stacktrace option to get the stack trace.\n"
       + "> Run with --debug option to get more log output.\n\n" + failed_tail("1 min 14 s 227 ms"))
    e.write("scenario.json", {})
    lines[4] = "  @State message: REIN_FAKE_ARKTS_ERROR_ANY = 'x'; // REIN_FAKE_ARKTS_WARN"
    with open(index, "w") as f:
        f.write("\n".join(lines))
    out, _ = e.run("hvigorw", *BUILD_CMD, code=255)
    has(out, P + "WARN: \n1 WARN: ArkTS:WARN File: %s:5:55\n 'pushUrl' has been deprecated.\n" % index)
    has(out, "1 ERROR: 10605008 ArkTS Compiler Error\nError Message: Use explicit types instead of \"any\", "
        "\"unknown\" (arkts-no-any-unknown) At File: %s:5:19\n" % index)
    has(out, "COMPILE RESULT:FAIL {ERROR:1 WARN:1}\n")


@case
def hvigor_failure_classes(e):
    e.signed()
    expect = {
        "sdk_home": P + "ERROR: 00303217 Configuration Error: Invalid value of 'DEVECO_SDK_HOME' in the system environment path.\n",
        "sdk_home_old": P + "ERROR: Unable to find 'DEVECO_SDK_HOME' in the system environment path.\n",
        "dependency": "ohpm ERROR: NOTFOUND package '@ohos/hamock@1.0.1' not found from all the registries\n",
        "signing": P + "ERROR: Failed :entry:default@SignHap... \n" + P + "ERROR: Unsupported state or unable to authenticate data\n",
        "java_missing": P + "ERROR: Failed :entry:default@SignHap... \n" + P + "ERROR: Error Code: 00308018 Unknown Error\nspawn java ENOENT\n",
    }
    for fail, part in expect.items():
        e.write("scenario.json", {"hvigorw": {"fail": fail}})
        out, _ = e.run("hvigorw", *BUILD_CMD, code=255)
        has(out, part, fail)
        eq(out.endswith(failed_tail()), True, fail)
    e.unsigned()
    e.write("scenario.json", {"hvigorw": {"fail": "daemon"}})
    e.run("hvigorw", *BUILD_CMD)
    out, _ = e.run("hvigorw", "assembleHap", code=255)
    eq(out, P + "hvigor client: Starting hvigor daemon.\n" + P + "Hvigor Daemon started in 944 ms\n"
       + P + "ERROR: ENOENT: no such file or directory, uv_cwd\n" + failed_tail())
    e.write("scenario.json", {"hvigorw": {"fail": "signing", "exit_code": 0}})
    e.run("hvigorw", *BUILD_CMD, code=0)
    e.write("scenario.json", {})
    out, _ = e.run("hvigorw", *BUILD_CMD, env={"DEVECO_SDK_HOME": "/nonexistent/sdk"}, code=255)
    has(out, "Invalid value of 'DEVECO_SDK_HOME'")
    # No SDK given at all (no DEVECO_SDK_HOME, local.properties or OHOS_BASE_SDK_HOME): 00303217.
    out, _ = e.run("hvigorw", *BUILD_CMD, env={"DEVECO_SDK_HOME": "", "OHOS_BASE_SDK_HOME": ""}, code=255)
    has(out, "ERROR: 00303217 Configuration Error: Invalid value of 'DEVECO_SDK_HOME'")
    with open(e.path("local.properties"), "w") as f:
        f.write("hwsdk.dir=%s\n" % e.sdk)
    e.run("hvigorw", *BUILD_CMD, env={"DEVECO_SDK_HOME": "", "OHOS_BASE_SDK_HOME": ""})
    os.remove(e.path("local.properties"))
    e.signed()
    nojava = os.path.join(e.root, "nojava")
    os.makedirs(nojava)
    os.symlink(os.path.join(BIN, "hvigorw"), os.path.join(nojava, "hvigorw"))
    os.symlink(sys.executable, os.path.join(nojava, "python3"))
    out, _ = e.run(os.path.join(nojava, "hvigorw"), *BUILD_CMD, env={"PATH": nojava, "JAVA_HOME": ""}, code=255)
    has(out, "spawn java ENOENT\n")


@case
def hvigor_project_shapes(e):
    eq(e.run("hvigorw", "--version", cwd=e.root)[0], "5.18.4\n")
    out, _ = e.run("hvigorw", *BUILD_CMD, cwd=e.root, code=255)
    eq(out, P + "ERROR: Cannot find the project build file 'hvigorfile.ts' in %s. Run hvigorw in the project "
       "root directory.\n" % e.root + failed_tail())
    out, _ = e.run("hvigorw", "--frob", "assembleHap", code=255)
    has(out, P + "ERROR: Unknown option '--frob'.\n")
    out, _ = e.run("hvigorw", "-p", "product=nope", "assembleHap", "--no-daemon", code=255)
    has(out, P + "ERROR: Unknown product 'nope'.\n")
    out, _ = e.run("hvigorw", "--mode", "module", "-p", "module=entry@default", "assembleHap", "--no-daemon")
    has(out, P + "BUILD SUCCESSFUL in 3 s 512 ms\n")
    out, _ = e.run("hvigorw", "--mode", "module", "-p", "module=nope@default", "assembleHap", "--no-daemon", code=255)
    has(out, P + "ERROR: Unknown module 'nope'.\n")
    out, _ = e.run("hvigorw", "clean", "--no-daemon")
    eq(out, P + "Finished :entry:clean... after 3 ms\n" + P + "Finished ::clean... after 1 ms\n"
       + P + "BUILD SUCCESSFUL in 3 s 512 ms\n")
    eq(os.path.exists(e.path("entry/build")), False)
    e.signed()
    os.remove(e.path("signing/debug.p12"))
    out, _ = e.run("hvigorw", *BUILD_CMD, code=255)
    has(out, P + "ERROR: Failed :entry:default@SignHap... \n"
        + P + "ERROR: The signing material file does not exist: %s\n" % e.path("signing/debug.p12"))
    out, _ = e.run("hvigorw", "--stop-daemon")
    has(out, P)


# ---------------------------------------------------------------------------------------- ohpm


@case
def ohpm(e):
    eq(e.run("ohpm", "-v")[0], "5.0.8\n")
    with open(e.path("oh-package.json5"), "w") as f:
        f.write('{ "name": "hello", // deps\n "dependencies": { "@ohos/axios": "^2.2.7", }, }')
    eq(e.run("ohpm", "install")[0],
       "ohpm INFO: fetch meta info of package '@ohos/axios' success https://ohpm.openharmony.cn/ohpm/@ohos/axios\n"
       "ohpm INFO: fetch package done 1 @ohos/axios from https://ohpm.openharmony.cn/ohpm/@ohos/axios/-/axios-2.2.7.har\n"
       "install completed in 0s 431ms\n")
    e.write("scenario.json", {"ohpm": {"fail": "fetch"}})
    out, err = e.run("ohpm", "install", code=1)
    eq(err, 'ohpm ERROR: Run install command failed Error: 00617101 Fetch Pkg Info Failed\n'
       'Error Message: FetchPackageInfo: "@ohos/hvigor-ohos-plugin" failed\n'
       "NOTFOUND package '@ohos/hvigor-ohos-plugin@4.0.5' not found from all the registries\n")
    eq(e.run("ohpm", "ping")[0], "ohpm INFO: PING https://ohpm.openharmony.cn/ohpm/\nohpm INFO: PONG 255ms\n")


# -------------------------------------------------------------------------------------- common


@case
def calls_log_and_spam(e):
    e.run("hdc", "-t", "X", "shell", "echo", "a b")
    calls = [json.loads(line) for line in open(os.path.join(e.state, "calls.log"))]
    eq((calls[-1]["program"], calls[-1]["argv"], calls[-1]["cwd"]), ("hdc", ["-t", "X", "shell", "echo", "a b"], e.proj))
    eq(calls[-1]["env"]["REIN_FAKE_STATE"], e.state)
    out, _ = e.run("hdc", "version", env={"REIN_FAKE_SPAM_BYTES": "1000000"})
    eq(len(out), 1000000 + len("Ver: 3.2.0f\n"))
    eq((out[:21], out[-31:]), ("REIN_FAKE_SPAM_BEGIN\n", "REIN_FAKE_SPAM_END\nVer: 3.2.0f\n"))
    e.write("scenario.json", {"hvigorw": {"spam_bytes": 30, "spam_stream": "stderr"}})
    _, err = e.run("hvigorw", "--version")
    eq(err, "REIN_FAKE_SPAM_BEGIN\nREIN_FAKE")
    root = os.path.join(e.root, "tmp")
    os.makedirs(root)
    env = e.env({"TMPDIR": root})
    del env["REIN_FAKE_STATE"]
    subprocess.run(["ohpm", "-v"], env=env, capture_output=True, check=True)
    eq(os.path.exists(os.path.join(root, "rein-fake-state", "calls.log")), True, "default state dir")


@case
def sleep_child_and_term(e):
    # A sleep far longer than any bound here: a loaded machine slows python's start, so only
    # "still asleep after a while" and "answered at all" say anything.
    e.write("scenario.json", {"hdc": {"sleep_ms": 120000, "match": "install"}})
    eq(e.hdc("version"), "Ver: 3.2.0f\n", "match filter: version does not sleep")
    try:
        subprocess.run(["hdc", "install", "x.hap"], cwd=e.proj, env=e.env(), capture_output=True, timeout=3)
        raise AssertionError("install answered while it should sleep")
    except subprocess.TimeoutExpired:
        pass
    e.write("scenario.json", {"hvigorw": {"sleep_ms": 5000, "spawn_child": True, "ignore_term": True}})
    p = subprocess.Popen(["hvigorw", "assembleHap"], cwd=e.proj, env=e.env(), stdout=subprocess.DEVNULL,
                         start_new_session=True)
    path = os.path.join(e.state, "children.log")
    deadline = time.time() + 5
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.02)
    child = json.loads(open(path).readline())
    eq(child["pid"], p.pid)
    os.killpg(p.pid, signal.SIGTERM)
    time.sleep(0.2)
    eq(p.poll(), None, "SIGTERM is ignored")
    os.kill(child["child_pid"], 0)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(5)


def run_case(fn):
    root = tempfile.mkdtemp(prefix="rein-fakes-")
    try:
        fn(Env(root))
        return fn.__name__, None
    except Exception:
        return fn.__name__, traceback.format_exc()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def device_dir():
    """The folder holding rein-fake-device: REIN_FAKE_DEVICE_DIR, else cargo builds it."""
    if os.environ.get("REIN_FAKE_DEVICE_DIR"):
        return os.environ["REIN_FAKE_DEVICE_DIR"]
    repo = os.path.dirname(os.path.dirname(HERE))
    subprocess.run(["cargo", "build", "--quiet", "-p", "rein-fake-device"], cwd=repo, check=True)
    meta = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=repo, check=True,
                          capture_output=True)
    return os.path.join(json.loads(meta.stdout)["target_directory"], "debug")


def main(argv):
    global BIN
    BIN = tempfile.mkdtemp(prefix="rein-fakes-bin-")
    subprocess.run([os.path.join(device_dir(), "rein-fake-device"), "install-toolchain", BIN], check=True)
    cases = CASES
    if len(argv) == 2 and argv[0] == "-k":
        cases = [c for c in CASES if argv[1] in c.__name__]
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(4, os.cpu_count() or 1)) as pool:
        results = list(pool.map(run_case, cases))
    failed = [(name, tb) for name, tb in results if tb]
    for name, tb in results:
        print("%s %s" % ("FAIL" if tb else "ok  ", name))
    for name, tb in failed:
        print("\n==== %s\n%s" % (name, tb))
    print("\n%d cases, %d failed, %.1f s" % (len(results), len(failed), time.time() - start))
    shutil.rmtree(BIN, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
