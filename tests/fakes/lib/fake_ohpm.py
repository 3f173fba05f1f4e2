"""Fake `ohpm`: install (from oh-package.json5), ping, -v. ERROR lines go to stderr, exit 1."""

import os
import sys

import fake_json5
import fakelib

REGISTRY = "https://ohpm.openharmony.cn/ohpm/"

FAILURES = {
    "fetch": [
        "ohpm ERROR: Run install command failed Error: 00617101 Fetch Pkg Info Failed",
        'Error Message: FetchPackageInfo: "@ohos/hvigor-ohos-plugin" failed',
        "NOTFOUND package '@ohos/hvigor-ohos-plugin@4.0.5' not found from all the registries",
    ],
    "not_found": ["ohpm ERROR: NOTFOUND package '@ohos/hamock@1.0.1' not found from all the registries"],
    "invalid_dependency": ["ohpm ERROR: Run install command failed Error: 00618005 Invalid Dependency"],
    "json5": ["ohpm ERROR: JSON5: invalid end of input at 1:1"],
}


def install(conf):
    fail = conf.get("fail")
    if fail in FAILURES:
        for line in FAILURES[fail]:
            fakelib.errln(line)
        return 1
    path = os.path.join(os.getcwd(), "oh-package.json5")
    try:
        deps = (fake_json5.load_file(path).get("dependencies") or {})
    except FileNotFoundError:
        fakelib.errln("ohpm ERROR: The oh-package.json5 file is not found in %s" % os.getcwd())
        return 1
    except fake_json5.Json5Error as e:
        fakelib.errln("ohpm ERROR: %s" % e)
        return 1
    registry = conf.get("registry", REGISTRY)
    for name in sorted(deps):
        version = str(deps[name]).lstrip("^~")
        fakelib.outln("ohpm INFO: fetch meta info of package '%s' success %s%s" % (name, registry, name))
        fakelib.outln(
            "ohpm INFO: fetch package done 1 %s from %s%s/-/%s-%s.har"
            % (name, registry, name, name.split("/")[-1], version)
        )
    fakelib.outln("install completed in 0s 431ms")
    return 0


def main(argv):
    fakelib.start("ohpm", argv)
    conf = fakelib.scenario("ohpm")
    argv = list(argv)
    cmd = argv[0] if argv else ""
    if cmd in ("-v", "--version", "version"):
        fakelib.outln(conf.get("version", "5.0.8"))
        return 0
    if cmd in ("install", "i"):
        return install(conf)
    if cmd == "ping":
        registry = conf.get("registry", REGISTRY)
        if conf.get("fail") == "network":
            fakelib.outln("ohpm INFO: PING %s" % registry)
            fakelib.errln("ohpm ERROR: PING %s failed: connect ETIMEDOUT" % registry)
            return 1
        fakelib.outln("ohpm INFO: PING %s" % registry)
        fakelib.outln("ohpm INFO: PONG 255ms")
        return 0
    fakelib.errln('ohpm ERROR: Unknown command "%s". Run "ohpm -h" for help.' % cmd)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
