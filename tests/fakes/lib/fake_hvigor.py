"""Fake `hvigorw`: reads the project's JSON5 files, writes real HAP zips (signed by the real
hap-sign-tool when the product has a signingConfig), fails like the real one.

Every console line starts with `> hvigor ` except the ArkTS error body; a failure ends with
`> hvigor ERROR: BUILD FAILED in ... ` and exit 255, a success with `BUILD SUCCESSFUL in ...`.
"""

import os
import re
import shutil
import sys

import fake_hap
import fake_hvigor_modules
import fake_hvigor_sign
import fake_json5
import fakelib

P = "> hvigor "
TASKS = ("clean", "assembleHap", "assembleHsp")
FLAGS = {
    "--no-daemon", "--daemon", "--parallel", "--no-parallel", "--incremental",
    "--no-incremental", "--sync", "--stacktrace", "--no-stacktrace", "--debug", "--info",
    "--warn", "--error", "--stop-daemon", "--stop-daemon-all", "--status-daemon",
    "--type-check", "--no-type-check", "--watch", "--enable-build-script-type-check",
}
VALUED = {"--mode", "-m", "-p", "--prop", "--analyze", "--config", "-c", "--max-old-space-size"}
MARKER = re.compile(r"REIN_FAKE_ARKTS_(ERROR_ANY|ERROR|WARN)")
SKIP_DIRS = {"build", "oh_modules", "node_modules", ".hvigor", ".git", ".rein", ".idea"}
BEFORE_COMPILE = ("GenerateMetadata", "MergeProfile", "CreateBuildProfile", "GenerateLoaderJson", "CompileResource")


class Failed(Exception):
    """A build failure: the lines to print before `BUILD FAILED`."""

    def __init__(self, lines):
        super().__init__("build failed")
        self.lines = lines


def duration(ms):
    """`699 ms`, `12 s 247 ms`, `1 min 14 s 227 ms`."""
    if ms < 1000:
        return "%d ms" % ms
    if ms < 60000:
        return "%d s %d ms" % (ms // 1000, ms % 1000)
    return "%d min %d s %d ms" % (ms // 60000, (ms % 60000) // 1000, ms % 1000)


def parse_args(argv):
    args = {"tasks": [], "props": {}, "flags": set(), "mode": None, "error": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        name, eq, value = a.partition("=")
        if a in FLAGS:
            args["flags"].add(a)
        elif a in ("-v", "--version", "version", "-h", "--help"):
            args["flags"].add({"-v": "--version", "version": "--version", "-h": "--help"}.get(a, a))
        elif name in VALUED:
            if not eq:
                if i >= len(argv):
                    args["error"] = "Option '%s' requires a value." % a
                    break
                value = argv[i]
                i += 1
            if name in ("-p", "--prop"):
                k, _, v = value.partition("=")
                args["props"][k] = v
            elif name in ("--mode", "-m"):
                args["mode"] = value
        elif a.startswith("-"):
            args["error"] = "Unknown option '%s'." % a
            break
        else:
            args["tasks"].append(a)
    return args


def read_json5(path):
    try:
        return fake_json5.load_file(path)
    except OSError as e:
        raise Failed([P + "ERROR: %s: %s" % (path, e.strerror)])
    except fake_json5.Json5Error as e:
        raise Failed([P + "ERROR: %s: %s" % (path, e)])


def load_project(root):
    profile = read_json5(os.path.join(root, "build-profile.json5"))
    app = read_json5(os.path.join(root, "AppScope", "app.json5")).get("app", {})
    return profile, app


def select_modules(profile, props, product):
    modules = profile.get("modules") or []
    wanted = props.get("module")
    if not wanted:
        return [(m, _target(m, product)) for m in modules]
    chosen = []
    for spec in wanted.split(","):
        name, _, target = spec.partition("@")
        found = [m for m in modules if m.get("name") == name]
        if not found:
            raise Failed([P + "ERROR: Unknown module '%s'." % name])
        chosen.append((found[0], target or _target(found[0], product)))
    return chosen


def _target(module, product):
    for t in module.get("targets") or []:
        if product in (t.get("applyToProducts") or [product]):
            return t.get("name", "default")
    return "default"


def signing_config(profile, product):
    app = profile.get("app") or {}
    products = [p for p in app.get("products") or [] if p.get("name") == product]
    wanted = products[0].get("signingConfig") if products else None
    for c in app.get("signingConfigs") or []:
        if c.get("name") == wanted:
            return c
    return None


def scan_markers(root):
    """[(kind, path, line, column)] for every marker in .ets files under the project."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            if not f.endswith(".ets"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, text in enumerate(fh, 1):
                    for m in MARKER.finditer(text):
                        found.append((m.group(1), path, n, m.start() + 1))
    return found


def arkts_blocks(markers, conf):
    """(warn lines, error lines, error count, warn count) in the chosen format."""
    errors = [m for m in markers if m[0].startswith("ERROR")]
    warns = [m for m in markers if m[0] == "WARN"]
    wl = []
    if warns:
        wl.append(P + "WARN: ")
        for n, (_, path, line, col) in enumerate(warns, 1):
            wl += ["%d WARN: ArkTS:WARN File: %s:%d:%d" % (n, path, line, col), " 'pushUrl' has been deprecated."]
    el = []
    old = conf.get("arkts_format") == "old"
    if errors and not old:
        el.append(P + "ERROR: ArkTS Compiler Error")
    for n, (kind, path, line, col) in enumerate(errors, 1):
        if kind == "ERROR_ANY":
            code, msg = 10605008, 'Use explicit types instead of "any", "unknown" (arkts-no-any-unknown)'
        else:
            code, msg = 10505001, "Cannot find name 'REIN_FAKE_ARKTS_ERROR'."
        if old:
            el += [P + "ERROR: ArkTS:ERROR File: %s:%d:%d" % (path, line, col), " " + msg, ""]
        else:
            if n > 1:
                el.append("")
            el += ["%d ERROR: %d ArkTS Compiler Error" % (n, code), "Error Message: %s At File: %s:%d:%d" % (msg, path, line, col)]
    return wl, el, len(errors), len(warns)


def sdk_given(sdk):
    """Whether hvigor has an SDK at all: DEVECO_SDK_HOME, `hwsdk.dir`/`sdk.dir` in the project's
    local.properties, or (OpenHarmony) OHOS_BASE_SDK_HOME. Without one the real hvigor stops with
    00303217 (shared/HARMONY.md §1, "Other failure lines"; "Windows installs")."""
    if sdk or os.environ.get("OHOS_BASE_SDK_HOME"):
        return True
    try:
        with open("local.properties", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    return re.search(r"^\s*(hwsdk|sdk)\.dir\s*[=:]\s*\S", text, re.M) is not None


def config_failures(conf, daemon):
    fail = conf.get("fail")
    if fail == "daemon" and daemon:
        raise Failed([P + "ERROR: ENOENT: no such file or directory, uv_cwd"])
    sdk = os.environ.get("DEVECO_SDK_HOME")
    if fail == "sdk_home" or (sdk and not os.path.isdir(sdk)) or not sdk_given(sdk):
        raise Failed([P + "ERROR: 00303217 Configuration Error: Invalid value of 'DEVECO_SDK_HOME' in the system environment path."])
    if fail == "sdk_home_old":
        raise Failed([P + "ERROR: Unable to find 'DEVECO_SDK_HOME' in the system environment path."])
    if fail == "sdk_component":
        raise Failed([P + "ERROR: SDK component missing. Unable to find the following components: toolchains:12 ArkTS:12"])
    if fail == "dependency":
        raise Failed([
            "ohpm ERROR: NOTFOUND package '@ohos/hamock@1.0.1' not found from all the registries",
            P + "ERROR: Failed to install dependencies with ohpm.",
        ])
    if fail == "unknown":
        raise Failed([P + "ERROR: Something went wrong while building the project."])


def build_module(root, module, target, ctx):
    """Prints the module's tasks and writes its package when `ctx["task"]` builds it (a HAP, or
    an HSP for a shared module: fake_hvigor_modules); raises Failed."""
    name = module.get("name", "entry")
    tag = ":%s:%s@" % (name, target)
    src = os.path.normpath(os.path.join(root, module.get("srcPath", "./" + name)))
    mod = read_json5(os.path.join(src, "src", "main", "module.json5")).get("module", {})
    if not fake_hvigor_modules.built_by(ctx["task"], mod):
        return
    ext = fake_hvigor_modules.extension(mod)
    kind = "Hsp" if ext == ".hsp" else "Hap"
    fakelib.outln(P + "UP-TO-DATE %sPreBuild...  " % tag)
    for task in BEFORE_COMPILE:
        fakelib.outln(P + "Finished %s%s... after 5 ms" % (tag, task))
    wl, el, nerr, nwarn = arkts_blocks(ctx["markers"], ctx["conf"])
    if nerr:
        raise Failed([P + "ERROR: Failed %sCompileArkTS... " % tag] + wl + el + [
            "", "", "COMPILE RESULT:FAIL {ERROR:%d WARN:%d}" % (nerr, nwarn), "", "* Try:",
            "> Run with --stacktrace option to get the stack trace.",
            "> Run with --debug option to get more log output.", "",
        ])
    for line in wl:
        fakelib.outln(line)
    fakelib.outln(P + "Finished %sCompileArkTS... after 2 s 117 ms" % tag)
    fakelib.outln(P + "Finished %sPackage%s... after 95 ms" % (tag, kind))
    outdir = os.path.join(src, "build", ctx["product"], "outputs", target)
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, "%s-%s" % (name, target))
    module = fake_hap.module_json(ctx["app"], mod, dict(ctx["product_config"], buildMode=ctx["build_mode"]))
    module["module"]["dependencies"] = fake_hvigor_modules.dependencies(root, ctx["profile"], src)
    fake_hap.write(base + "-unsigned" + ext, module, abilities_logs(mod, src))
    signed = base + "-signed" + ext
    if os.path.exists(signed):
        os.remove(signed)
    sign_hap(root, tag, ctx, base + "-unsigned" + ext, signed)
    fakelib.outln(P + "Finished %sSign%s... after 4 ms" % (tag, kind))
    fakelib.outln(P + "Finished :%s:%s... after 1 ms" % (name, ctx["task"]))


HILOG_CALL = re.compile(
    r"hilog\.(debug|info|warn|error|fatal)\(\s*(\w+)\s*,\s*'([^']*)'\s*,\s*'([^']*)'\s*(?:,\s*'([^']*)'\s*)?\)"
)
LEVELS = {"debug": "D", "info": "I", "warn": "W", "error": "E", "fatal": "F"}


def on_create_logs(path):
    """The hilog lines an ability's onCreate() logs, read from its source: each
    `hilog.<level>(DOMAIN, 'tag', 'format', 'arg')` call in the method's body, with a
    `const NAME = 0x…` domain resolved. None when the source cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    start = text.find("onCreate(")
    body_start = text.find("{", start) if start >= 0 else -1
    if body_start < 0:
        return []
    depth, end = 0, len(text)
    for i in range(body_start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            end = i
            break
    consts = dict(re.findall(r"const\s+(\w+)\s*(?::\s*\w+)?\s*=\s*(0x[0-9a-fA-F]+|\d+)", text))
    logs = []
    for level, domain, tag, fmt, arg in HILOG_CALL.findall(text[body_start:end]):
        domain = consts.get(domain, domain)
        domain = int(domain, 0) if re.match(r"^(0x[0-9a-fA-F]+|\d+)$", domain) else 0
        # A device prints "<private>" for an argument without {public} (hiviewdfx_hilog
        # interfaces/js/kits/napi/src/hilog/src/hilog_napi_base.cpp ParseLogContent, PRIV_STR).
        private = lambda m: arg if m.group(0).startswith("%{public}") else "<private>"
        message = re.sub(r"%\{public\}[sd]|%\{private\}[sd]|%[sd]", private, fmt) if arg else fmt
        logs.append({"level": LEVELS[level], "domain": domain, "tag": tag, "message": message})
    return logs


def abilities_logs(mod, src):
    """Each ability's onCreate lines, read from its source (the fake compiler's output)."""
    logs = {}
    for a in mod.get("abilities") or []:
        found = on_create_logs(os.path.join(src, "src", "main", a.get("srcEntry") or ""))
        if found is not None:
            logs[a.get("name")] = found
    return logs


def sign_hap(root, tag, ctx, unsigned, signed):
    """Signs with the product's signingConfig (the real hap-sign-tool, see fake_hvigor_sign), or
    prints the real warning when the product has none."""
    config = ctx["signing"]
    if config is None:
        fakelib.outln(P + "WARN: Will skip sign 'hos_hap'. No signingConfigs profile is configured in current project.")
        fakelib.outln("             If needed, configure the signingConfigs in %s." % os.path.join(root, "build-profile.json5"))
        return
    failed = P + "ERROR: Failed %sSignHap... " % tag
    if ctx["conf"].get("fail") == "signing":
        raise Failed([failed, P + "ERROR: Unsupported state or unable to authenticate data"])
    if ctx["conf"].get("fail") == "java_missing":
        raise Failed([failed, P + "ERROR: Error Code: 00308018 Unknown Error", "spawn java ENOENT"])
    material = config.get("material") or {}
    for key in ("storeFile", "certpath", "profile"):
        path = os.path.join(root, material.get(key) or "")
        if not material.get(key) or not os.path.isfile(path):
            raise Failed([failed, P + "ERROR: The signing material file does not exist: %s" % path])
    try:
        fake_hvigor_sign.sign(root, material, unsigned, signed)
    except fake_hvigor_sign.SignFailed as e:
        raise Failed([failed] + e.lines)


def clean(root, profile):
    for m in profile.get("modules") or []:
        shutil.rmtree(os.path.join(root, m.get("srcPath", m.get("name", "entry")), "build"), ignore_errors=True)
        fakelib.outln(P + "Finished :%s:clean... after 3 ms" % m.get("name"))
    shutil.rmtree(os.path.join(root, "build"), ignore_errors=True)
    fakelib.outln(P + "Finished ::clean... after 1 ms")


BUILD_SCRIPT = re.compile(r"/\*\s*REIN_FAKE_BUILD_SCRIPT\n(.*?)\*/", re.S)


def run_build_script(root):
    """Runs the project's code the way hvigor runs hvigorfile.ts: as a child of hvigorw, in the
    project root, before the tasks. The fake cannot run TypeScript, so the code is a POSIX
    shell script in a `/* REIN_FAKE_BUILD_SCRIPT ... */` comment of hvigorfile.ts (see the
    README); its output goes to hvigorw's, and its exit status is ignored, as a plugin's
    background work would be."""
    import subprocess

    try:
        with open(os.path.join(root, "hvigorfile.ts"), encoding="utf-8") as f:
            found = BUILD_SCRIPT.search(f.read())
    except OSError:
        return
    if found:
        sys.stdout.flush()
        subprocess.run(["/bin/sh", "-c", found.group(1)], cwd=root, check=False)


def build(root, args, conf):
    run_build_script(root)
    daemon = "--no-daemon" not in args["flags"]
    if daemon:
        fakelib.outln(P + "hvigor client: Starting hvigor daemon.")
        fakelib.outln(P + "Hvigor Daemon started in 944 ms")
    config_failures(conf, daemon)
    profile, app = load_project(root)
    props = args["props"]
    product = props.get("product", "default")
    products = (profile.get("app") or {}).get("products") or []
    if not any(p.get("name") == product for p in products):
        raise Failed([P + "ERROR: Unknown product '%s'." % product])
    build_mode = props.get("buildMode", "debug")
    modes = [m.get("name") for m in (profile.get("app") or {}).get("buildModeSet") or [{"name": "debug"}, {"name": "release"}]]
    if build_mode not in modes:
        raise Failed([P + "ERROR: Unknown buildMode '%s'." % build_mode])
    for task in args["tasks"]:
        if task not in TASKS:
            raise Failed([P + "ERROR: Task '%s' was not found in the project." % task])
    ctx = {
        "conf": conf, "app": app, "product": product, "build_mode": build_mode,
        "product_config": next(p for p in products if p.get("name") == product),
        "signing": signing_config(profile, product), "markers": None, "profile": profile,
    }
    for task in args["tasks"]:
        if task == "clean":
            clean(root, profile)
        else:
            ctx["markers"] = scan_markers(root)
            ctx["task"] = task
            for module, target in select_modules(profile, props, product):
                build_module(root, module, target, ctx)


def main(argv):
    fakelib.start("hvigorw", argv)
    conf = fakelib.scenario("hvigorw")
    args = parse_args(list(argv))
    took = P + "%%s in %s" % duration(int(conf.get("duration_ms", 3512)))
    if "--version" in args["flags"]:
        fakelib.outln(conf.get("version", "5.18.4"))
        return 0
    if "--help" in args["flags"]:
        fakelib.outln("Usage: hvigorw [taskNames...] <options...>")
        return 0
    code = int(conf.get("exit_code", 255))
    root = os.getcwd()
    try:
        if args["error"]:
            raise Failed([P + "ERROR: " + args["error"]])
        if not os.path.isfile(os.path.join(root, "hvigorfile.ts")):
            raise Failed([P + "ERROR: Cannot find the project build file 'hvigorfile.ts' in %s. Run hvigorw in the project root directory." % root])
        if args["flags"] & {"--stop-daemon", "--stop-daemon-all"}:
            fakelib.outln(P + "Hvigor daemon stopped.")
            return 0
        if "--status-daemon" in args["flags"]:
            fakelib.outln(P + "PID    STATUS  PORT    ROOT_PATH")
            return 0
        if not args["tasks"]:
            fakelib.outln(P + "Usage: hvigorw [taskNames...] <options...>")
            return 0
        build(root, args, conf)
    except Failed as f:
        for line in f.lines:
            fakelib.outln(line)
        fakelib.outln(took % "ERROR: BUILD FAILED" + " ")
        return code
    fakelib.outln(took % "BUILD SUCCESSFUL")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
