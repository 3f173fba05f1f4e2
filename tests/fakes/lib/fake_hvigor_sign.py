"""The fake hvigorw's SignHap task: as the real hvigor does, it runs the SDK's hap-sign-tool
with the signingConfig's material, so a signed HAP carries a real signing block.

- The jar is the SDK's: `$DEVECO_SDK_HOME/default/openharmony/toolchains/lib/hap-sign-tool.jar`
  or `$OHOS_BASE_SDK_HOME/toolchains/lib/hap-sign-tool.jar` (shared/HARMONY.md §6).
- java is `$JAVA_HOME/bin/java`, else the `java` on PATH (hvigor spawns `java`: "spawn java
  ENOENT" when there is none).
- build-profile.json5 holds DevEco's ciphertext passwords, which only hvigor decrypts, with
  material under `~/.ohos/config`. The fake's stand-in for that material is
  `~/.ohos/config/material/passwords.json`, `{ciphertext: plaintext}` (`REIN_FAKE_OHOS_CONFIG`
  names another folder in place of `~/.ohos/config`: fake-env's, which leaves HOME alone); a
  ciphertext it does not hold fails as hvigor fails to decrypt: `Unsupported state or unable
  to authenticate data` (shared/HARMONY.md §1). A plaintext password is used as it is.
"""

import json
import os
import re
import shutil
import subprocess

CIPHERTEXT = re.compile(r"^000000[0-9A-Fa-f]{34,}$")
# Short-lived JVM: the tool runs for a second; tiered C1 and the serial GC start it faster, and
# no perf-data file in /tmp (a confined program may only write its own TMPDIR).
JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"]


class SignFailed(Exception):
    """The lines hvigor prints after `Failed :<module>:<target>@SignHap... `."""

    def __init__(self, lines):
        super().__init__("sign failed")
        self.lines = lines


def java():
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def sign_tool_jar():
    candidates = []
    if os.environ.get("DEVECO_SDK_HOME"):
        candidates.append(os.path.join(os.environ["DEVECO_SDK_HOME"], "default", "openharmony", "toolchains", "lib"))
    if os.environ.get("OHOS_BASE_SDK_HOME"):
        candidates.append(os.path.join(os.environ["OHOS_BASE_SDK_HOME"], "toolchains", "lib"))
    for folder in candidates:
        jar = os.path.join(folder, "hap-sign-tool.jar")
        if os.path.isfile(jar):
            return jar
    # GUESS: hvigor's words for an SDK without the signing tool.
    raise SignFailed(["> hvigor ERROR: SDK component missing: toolchains/lib/hap-sign-tool.jar (looked in %s)"
                      % (", ".join(candidates) or "no SDK: DEVECO_SDK_HOME and OHOS_BASE_SDK_HOME are unset")])


def plaintext(password):
    if not CIPHERTEXT.match(password or ""):
        return password
    config = os.environ.get("REIN_FAKE_OHOS_CONFIG") or os.path.join(os.path.expanduser("~"), ".ohos", "config")
    path = os.path.join(config, "material", "passwords.json")
    try:
        with open(path, encoding="utf-8") as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    if password not in known:
        raise SignFailed(["> hvigor ERROR: Unsupported state or unable to authenticate data"])
    return known[password]


def sign(root, material, unsigned, signed):
    """Signs `unsigned` into `signed` with the signingConfig's `material` (paths relative to
    the project root); raises SignFailed with what to print."""
    program = java()
    if program is None:
        raise SignFailed(["> hvigor ERROR: Error Code: 00308018 Unknown Error", "spawn java ENOENT"])
    jar = sign_tool_jar()
    args = [
        "sign-app", "-mode", "localSign",
        "-keyAlias", material.get("keyAlias", ""),
        "-keyPwd", plaintext(material.get("keyPassword", "")),
        "-appCertFile", os.path.join(root, material["certpath"]),
        "-profileFile", os.path.join(root, material["profile"]),
        "-inFile", unsigned,
        "-signAlg", material.get("signAlg", "SHA256withECDSA"),
        "-keystoreFile", os.path.join(root, material["storeFile"]),
        "-keystorePwd", plaintext(material.get("storePassword", "")),
        "-outFile", signed,
    ]
    tmp = ["-Djava.io.tmpdir=" + os.environ["TMPDIR"]] if os.environ.get("TMPDIR") else []
    done = subprocess.run([program] + JVM_FLAGS + tmp + ["-jar", jar] + args, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        # GUESS: hvigor shows the tool's error block after the failed task's line.
        errors = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        raise SignFailed(["> hvigor ERROR: " + line for line in errors[:6]])
