"""Fake `java`: `-version`, and `-jar .../hap-sign-tool.jar <method> -key value ...`.

hap-sign-tool logging (LogUtils + LogFormatter since the 2024 log4j removal):
`MM-dd HH:mm:ss.SSS` + " " + " INFO - " + message on stdout; WARN/ERROR on stderr. Errors
are ErrorMsg.toString(): a line break, `ERROR: <code> <description>`, `Error Message: <cause>`
and an optional `* Try the following: ` list. Exit 0 on success, 1 on any failure.
"""

import os
import sys
import time

import fakelib

SOLUTION_HELP = "Please run java -jar hap-sign-tool.jar -h to see more help message."
TRUSTED = {
    "sign-app": {
        "mode", "keyAlias", "keyPwd", "appCertFile", "profileFile", "profileSigned", "inFile",
        "inForm", "outFile", "signAlg", "keystoreFile", "keystorePwd", "signCode",
        "compatibleVersion", "signServer", "signerPlugin", "onlineAuthMode", "username", "userPwd",
    },
    "verify-app": {"inFile", "outCertChain", "outProfile", "inForm"},
    "sign-profile": {
        "mode", "keyAlias", "keyPwd", "profileCertFile", "inFile", "signAlg", "keystoreFile",
        "keystorePwd", "outFile", "signServer", "signerPlugin", "onlineAuthMode", "username", "userPwd",
    },
    "verify-profile": {"inFile", "outFile"},
}
SIGN_ALGS = ("SHA256withECDSA", "SHA384withECDSA")


class ToolError(Exception):
    """An ErrorMsg. `after_start` errors come from the signing provider, which logs them and
    lets the tool print `<method> failed`; the others are thrown past that line."""

    def __init__(self, code, description, cause, solutions=(), after_start=False):
        super().__init__(description)
        self.code, self.description, self.cause = code, description, cause
        self.solutions, self.after_start = list(solutions), after_start

    def text(self):
        s = "\nERROR: %d %s\nError Message: %s\n" % (self.code, self.description, self.cause)
        if self.solutions:
            s += "\n* Try the following: \n" + "".join(" > %s\n" % x for x in self.solutions)
        return s


class Log:
    def __init__(self, conf):
        self.log4j = conf.get("log_format") == "log4j"
        self.now = conf.get("now")

    def stamp(self):
        if self.now:
            return self.now[:14] if self.log4j else self.now
        t = time.time()
        base = time.strftime("%m-%d %H:%M:%S", time.localtime(t))
        return base if self.log4j else base + ".%03d" % int((t % 1) * 1000)

    def info(self, msg):
        fmt = "%s INFO  - %s\n" if self.log4j else "%s  INFO - %s\n"
        fakelib.out(fmt % (self.stamp(), msg))

    def error(self, msg):
        fmt = "%s ERROR - %s\n" if self.log4j else "%s  ERROR - %s\n"
        fakelib.err(fmt % (self.stamp(), msg))


def convert_params(method, args):
    """CmdUtil.convert2Params: `-key value` pairs, trusted keys only, no duplicates."""
    if method not in TRUSTED:
        raise ToolError(11011001, "Unsupported command method", "Can not find method {%s}" % method, [SOLUTION_HELP])
    if len(args) % 2:
        raise ToolError(11011006, "Param {-key value} must in pairs", SOLUTION_HELP)
    params = {}
    for i in range(0, len(args), 2):
        key, value = args[i], args[i + 1]
        if not key.startswith("-") or key[1:] not in TRUSTED[method]:
            raise ToolError(11011005, "Param is not trusted", SOLUTION_HELP)
        key = key[1:]
        if key in params:
            raise ToolError(11011007, "Check param num failed", "Param {%s} is duplicated" % key)
        if value == "":
            raise ToolError(11011004, "Check param failed", "Param {%s} value could not be empty" % key)
        params[key] = value
    return params


def required(params, *keys):
    for k in keys:
        if not params.get(k):
            raise ToolError(11011008, "Check param failed", "Param {%s} is required, but can not be found" % k, ["Please input required param"])


def file_type(path, *types):
    suffix = os.path.splitext(path or "")[1][1:]
    if not suffix or suffix.lower() not in types:
        raise ToolError(11012005, "Not support file", "Not support file: %s" % (path if path else "null"))


def exists(path):
    if not os.path.isfile(path):
        raise ToolError(11012002, "File not exist", "Param {%s} is not exist" % path, after_start=True)


def ciphertext(value):
    """DevEco's encrypted password form (build-profile.json5): a PKCS#12 keystore never opens
    with it, because the keystore's password is the plaintext."""
    return len(value) >= 40 and value.startswith("000000") and all(c in "0123456789abcdefABCDEF" for c in value)


def wrong_password(got, want):
    """Scenario values when set, else anything but `wrong` or ciphertext opens the keystore."""
    return (want is not None and got != want) or got == "wrong" or ciphertext(got)


def check_keystore(params, conf):
    """Keystore and key checks, in the order KeyStoreHelper and the signer run them."""
    store, alias = params["keystoreFile"], params["keyAlias"]
    exists(store)
    if wrong_password(params.get("keystorePwd", ""), conf.get("keystore_password")):
        raise ToolError(11014003, "Init keystore failed", "keystore password was incorrect", [
            "The key store file does not exist, please check the key store file path.",
            "Incorrect keystore password, please input the correct plaintext password.",
            "The keystore was created by a newer JDK version, please use the same JDK version",
        ], after_start=True)
    if conf.get("key_alias") is not None and alias != conf["key_alias"]:
        raise ToolError(11014001, "key alias not found", "KeyAlias {%s} is not exist in {%s}" % (alias, store), [
            "Please check keystore file and keyAlias, ensure keyAlias is exist",
            "Use jdk tool [keytool] check keystore: [keytool -list -keystore xxx.p12]",
        ], after_start=True)
    if wrong_password(params.get("keyPwd", ""), conf.get("key_password")):
        raise ToolError(11014007, "Key alias {%s} password error" % alias, "Cannot recover key", after_start=True)


def write(path, data):
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise ToolError(11012006, "File IO failed", "%s (%s)" % (path, e.strerror), after_start=True)


def sign_app(params, conf, log):
    required(params, "mode", "inFile", "outFile", "signAlg")
    if params["mode"] not in ("localSign", "remoteSign", "remoteResign"):
        raise ToolError(11011002, "{mode} param is incorrect", "value must be localSign/remoteSign/remoteResign")
    required(params, "keystoreFile", "keyAlias", "appCertFile")
    file_type(params["keystoreFile"], "p12", "jks")
    profile_signed = params.get("profileSigned", "1")
    if profile_signed not in ("0", "1"):
        raise ToolError(11011002, "{profileSigned} param is incorrect", "value must be 1/0")
    file_type(params.get("profileFile"), "p7b" if profile_signed == "1" else "json")
    if params.get("inForm", "zip").lower() not in ("zip", "bin", "elf"):
        raise ToolError(11011002, "{inForm} param is incorrect", "value must be [bin, elf, zip]")
    if params["signAlg"] not in SIGN_ALGS:
        raise ToolError(11011002, "{signAlg} param is incorrect", "value must be SHA256withECDSA/SHA384withECDSA")
    check_keystore(params, conf)
    exists(params["appCertFile"])
    exists(params["profileFile"])
    if conf.get("profile_mismatch"):
        raise ToolError(11015005, "Profile certificate match failed", "input certificates do not match with profile", [
            "Profile include signature certificate info, please ensure it same as your appCertFile",
            "When applying for profile, need to select a certificate, please choose your appCertFile",
        ], after_start=True)
    exists(params["inFile"])
    hap = fakelib.read_hap(params["inFile"])
    if hap is None:
        raise ToolError(11017001, "Read zip file failed", "zip file is invalid", [
            "App (or hap/hsp/hnp) use zip format.",
            "Please check if file is zip64 format, or zip formatted correctly.",
        ], after_start=True)
    hap = dict(hap, signed=True, signer=fakelib.signer_for(params["keystoreFile"], params["keyAlias"]))
    log.info("Generate signing block success, begin write it to output file")
    out = params["outFile"]
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        raise ToolError(11012006, "File IO failed", "%s (No such file or directory)" % out, after_start=True)
    fakelib.write_hap(out, hap)
    log.info("Sign Hap success!")


def verify_app(params, conf, log):
    required(params, "inFile", "outCertChain", "outProfile")
    file_type(params["outCertChain"], "cer")
    file_type(params["outProfile"], "p7b")
    exists(params["inFile"])
    hap = fakelib.read_hap(params["inFile"])
    if not hap or not hap.get("signed"):
        raise ToolError(11015003, "Verify signature failed", "Verify hap failed: no signature block found", after_start=True)
    write(params["outCertChain"], ("-----BEGIN CERTIFICATE-----\nREIN FAKE %s\n-----END CERTIFICATE-----\n" % hap["signer"]).encode())
    write(params["outProfile"], b"REIN FAKE PROFILE\n")
    log.info("Digest verify result: true, DigestAlgorithm: SHA-256")
    log.info("verify: Verify success")


def sign_profile(params, conf, log):
    required(params, "mode", "signAlg", "outFile", "inFile")
    required(params, "keystoreFile", "keyAlias", "profileCertFile")
    file_type(params["keystoreFile"], "p12", "jks")
    file_type(params["outFile"], "p7b")
    check_keystore(params, conf)
    exists(params["profileCertFile"])
    exists(params["inFile"])
    with open(params["inFile"], "rb") as f:
        write(params["outFile"], b"REIN FAKE SIGNED PROFILE\n" + f.read())


def verify_profile(params, conf, log):
    required(params, "inFile")
    file_type(params["inFile"], "p7b")
    exists(params["inFile"])


METHODS = {"sign-app": sign_app, "verify-app": verify_app, "sign-profile": sign_profile, "verify-profile": verify_profile}


def hap_sign_tool(args, conf):
    log = Log(conf)
    if not args or args[0] in ("-h", "-help"):
        log.info("USAGE: <sign-app|verify-app|sign-profile|verify-profile> [options]")
        return 0
    if args[0] in ("-v", "-version"):
        log.info("1.0.0")
        return 0
    method = args[0]
    try:
        params = convert_params(method, args[1:])
        log.info("Start %s" % method)
        try:
            METHODS[method](params, conf, log)
        except ToolError as e:
            if not e.after_start:
                raise
            log.error(e.text())
            log.info("%s failed" % method)
            return 1
    except ToolError as e:
        log.error(e.text())
        return 1
    log.info("%s success" % method)
    return 0


def java_version(conf, stream):
    v = conf.get("java_version", "17.0.12")
    lines = (
        'openjdk version "%s" 2024-07-16\n'
        "OpenJDK Runtime Environment Temurin-%s+7 (build %s+7)\n"
        "OpenJDK 64-Bit Server VM Temurin-%s+7 (build %s+7, mixed mode, sharing)\n" % (v, v, v, v, v)
    )
    if stream == "stdout":
        fakelib.out(lines.replace('openjdk version "%s"' % v, "openjdk %s" % v))
    else:
        fakelib.err(lines)


ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f"}


def read_argument_file(path):
    """The arguments in a launcher argument file (the `java` tool's manual, "java Command-Line
    Argument Files"): separated by white space; a quoted argument (double or single quotes) may
    hold white space, and inside quotes a backslash escapes the next character (`\\n` a newline).
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    args, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        current = []
        while i < len(text) and not text[i].isspace():
            if text[i] in "\"'":
                quote = text[i]
                i += 1
                while i < len(text) and text[i] != quote:
                    if text[i] == "\\" and i + 1 < len(text):
                        i += 1
                        current.append(ESCAPES.get(text[i], text[i]))
                    else:
                        current.append(text[i])
                    i += 1
                i += 1
            else:
                current.append(text[i])
                i += 1
        args.append("".join(current))
    return args


def expand_argument_files(argv):
    """`@file` arguments read in place, up to the main class or `-jar`: after those, an argument
    starting with `@` is the program's own (as the real launcher does)."""
    out = []
    for i, a in enumerate(argv):
        if a == "-jar" or (not a.startswith("-") and not a.startswith("@")):
            return out + argv[i:]
        out.extend(read_argument_file(a[1:]) if a.startswith("@") else [a])
    return out


def main(argv):
    raw = list(argv)
    try:
        argv = expand_argument_files(raw)
    except OSError as e:
        fakelib.start("java", raw)
        fakelib.errln("Error: could not open `%s': %s" % (e.filename, e.strerror))
        return 1
    fakelib.start("java", argv, raw if argv != raw else None)
    conf = fakelib.scenario("java")
    argv = list(argv)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-version":
            java_version(conf, "stderr")
            return 0
        if a == "--version":
            java_version(conf, "stdout")
            return 0
        if a == "-jar":
            if i + 1 >= len(argv):
                fakelib.errln("Error: -jar requires jar file specification")
                return 1
            jar = argv[i + 1]
            if not os.path.isfile(jar):
                fakelib.errln("Error: Unable to access jarfile %s" % jar)
                return 1
            if "hap-sign-tool" not in os.path.basename(jar):
                fakelib.errln("Error: Invalid or corrupt jarfile %s" % jar)
                return 1
            return hap_sign_tool(argv[i + 2 :], conf)
        if a in ("-cp", "-classpath", "--class-path"):
            i += 1
        elif not a.startswith("-"):
            fakelib.errln("Error: Could not find or load main class %s" % a)
            return 1
        i += 1
    fakelib.errln("Usage: java [options] <mainclass> [args...]\n           (to execute a class)\n   or  java [options] -jar <jarfile> [args...]\n           (to execute a jar file)")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
