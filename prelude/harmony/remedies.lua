-- One-line remedies: what the user (or agent) must do next, keyed by the code the toolchain
-- printed. Tool names refer to rein's HarmonyOS tools (app_install, app_uninstall, hap_sign,
-- hvigor_build, device_list, app_launch). Codes are strings, as the parsers return them.
local M = {}

local UNINSTALL_FIRST = "uninstall it first (app_uninstall), then install again"

-- `bm install` codes (hdc install echoes them in its [Info] line).
M.install = {
  ["9568320"] = "the HAP is unsigned: sign it (hap_sign, or add signingConfigs to "
    .. "build-profile.json5 and rebuild) and install the -signed.hap",
  ["9568322"] = "the signing profile does not trust this device: add its UDID (`hdc shell bm get -u`) "
    .. "to the debug profile and re-sign, or use a debug (not release) certificate",
  ["9568332"] = "the installed app has a different signature: " .. UNINSTALL_FIRST,
  ["9568263"] = "the installed app has a higher versionCode: raise versionCode in AppScope/app.json5 "
    .. "and rebuild, or "
    .. UNINSTALL_FIRST,
  ["9568289"] = "a requested permission needs a higher APL or an ACL: remove it from "
    .. "requestPermissions in module.json5, or add it to the signing profile's ACLs and re-sign",
  ["9568297"] = "the app needs a newer SDK than the device has: lower compatibleSdkVersion in "
    .. "build-profile.json5 and rebuild, or update the device",
  ["9568305"] = "a module this package depends on (an HSP) is neither installed nor in the "
    .. "install: install every package of the app together (app_install with packages: every "
    .. "signed .hap and .hsp; sign-install-launch does)",
  ["9568347"] = "the native .so files do not match the device ABI: set abiFilters (e.g. arm64-v8a) "
    .. "in the module's build-profile.json5 and rebuild",
  ["9568259"] = "app.json5 or module.json5 lacks a required field: add it and rebuild",
  ["9568344"] = "a field in app.json5 or module.json5 has an invalid value: fix it and rebuild",
  ["9568258"] = "the installed app was built for a different SDK release type: " .. UNINSTALL_FIRST,
  ["9568257"] = "the device cannot verify the signature (an OpenHarmony self-signed HAP on a "
    .. "commercial HarmonyOS device?): sign with a HarmonyOS certificate and profile "
    .. "(DevEco auto-signing) and rebuild",
  ["9568266"] = "the device refused the install: enable developer mode and USB debugging, and "
    .. "install a debug-signed HAP",
  ["9568286"] = "the installed app has a different provision type (debug/release): "
    .. UNINSTALL_FIRST,
  ["9568329"] = "the HAP's signature is invalid: sign it again (hap_sign) with a matching "
    .. "certificate and profile",
  ["9568336"] = "the installed app differs in debug/release type: " .. UNINSTALL_FIRST,
  ["9568337"] = "the device could not parse the HAP: rebuild it (hvigor_build with clean=true) "
    .. "and install again",
}

M.uninstall = {
  ["9568386"] = "the app is not installed on this device: check the bundleName "
    .. "(project_info) and the target",
}

-- hdc [Fail] lines: bracketed E-codes, and rein's names for the ones hdc prints without a code.
M.hdc = {
  E001005 = "the device is offline or gone: reconnect it (cable, USB debugging on), check "
    .. "device_list, then retry",
  E000002 = "the device has not authorized this computer: unlock it and accept the USB debugging "
    .. "dialog, then run `hdc kill -r` if no dialog appears",
  E000003 = "the USB debugging request was denied on the device: replug it, accept the dialog, "
    .. "then run `hdc kill -r`",
  E000004 = "the connection to the device is still being set up: wait a few seconds and retry",
  E006001 = "no .hap was found at that path: build first (hvigor_build) and pass the built .hap",
  E001104 = "the IP address is malformed: use host:port, e.g. 127.0.0.1:5555",
  TARGET_NOT_FOUND = "no connected device has that connect-key: pick one from device_list",
  NEED_CONNECT_KEY = "no device, or several devices and none chosen: connect one, or pass "
    .. "target (a key from device_list)",
  TRANSFER_STOPPED = "the file transfer stopped: check free space and the path on the device, "
    .. "then retry",
  FILE_OPEN_FAILED = "a file could not be opened: check that the source path exists and the "
    .. "destination folder is writable",
  CONNECT_FAILED = "hdc could not connect to that address: check the IP and port and that the "
    .. "device listens for hdc over TCP",
  SERVER_UNREACHABLE = "the hdc server is not reachable (port 8710 taken?): run `hdc kill -r`, "
    .. "or set OHOS_HDC_SERVER_PORT to a free port",
  HDC_FAIL = "hdc refused the command: read the message, check device_list, and retry",
  NOT_HDC = "the hdc rein runs did not behave as hdc does (the real client always exits 0 and "
    .. "lists one connect key a line): check which hdc `rein doctor` shows, point home "
    .. "config.toml [toolchain] hdc at the SDK's toolchains/hdc, and run `hdc list targets` by hand",
}

-- Device states from `hdc list targets`.
M.device = {
  Unauthorized = "unlock the device and accept the USB debugging dialog; if none appears, "
    .. "run `hdc kill -r`",
  Offline = "reconnect the device (cable, USB debugging on), then run `hdc kill -r`",
  Unknown = "replug the device and run `hdc kill -r`",
}

-- `aa start` / `aa force-stop` error codes.
M.aa = {
  ["10103001"] = "the ability is not exported: set exported: true on it in module.json5, "
    .. "rebuild and install again",
  ["10104001"] = "the app has no such ability: check bundle, ability and module names "
    .. "(project_info), and install the app first (app_install)",
  ["10104002"] = "the bundle is not installed on this device: install it first (app_install) "
    .. "or check the bundleName",
  ["10105001"] = "the device's ability service did not answer: restart the device and retry",
  ["10105002"] = "the ability's information is missing: install the app first (app_install)",
  ["10106002"] = "this needs a debug-signed app: sign with a debug certificate and reinstall",
  ["10106102"] = "the device screen is locked: unlock it, then launch again",
  ["10106401"] = "the process could not be stopped: retry, or restart the device",
}

-- Proving a launch (harmony.launch).
M.launch = {
  crashed = "the app crashed on launch: read the fault log in details.crash (error, message, "
    .. "first stack frames), fix the code, rebuild and launch again",
  exited = "the app's process ended right after the launch without a fault log (it exited, or "
    .. "the system killed it): read its last lines in details.log and the device log "
    .. "(hilog_read), fix, rebuild and launch again",
  no_process = "check the app's own log (hilog_read) and that bundle, module and ability are the "
    .. "ones installed (project_info); a slow device may need a larger wait_ms",
  marker = "the app runs but never logged that text in this launch: check expect_log against what "
    .. "the app logs (hilog_read with pid), or leave expect_log out to prove the launch by its process",
  private = "a device prints <private> for every argument logged without {public}: log the value "
    .. "with %{public}s (or %{public}d), e.g. hilog.info(0x0000, 'testTag', '%{public}s', text), "
    .. "rebuild and launch again",
  not_foreground = "the app's process runs but its first page never came up (blocked main thread, "
    .. "a page that never loads, a window that failed): read details.log and hilog_read, check "
    .. "loadContent's page path and what onCreate/aboutToAppear wait on; a slow device may need a "
    .. "larger wait_ms",
  frozen = "the app's main thread was blocked long enough for the system to record an APP_FREEZE: "
    .. "find what onCreate, onWindowStageCreate, aboutToAppear or build wait on (a sync call, a "
    .. "loop, a lock), move it off the main thread, rebuild and launch again; crash_scan shows the "
    .. "freeze record",
}

-- A device not ready for an install or a launch.
M.ready = {
  booting = "wait until the device has finished booting (its home screen shows), then retry; "
    .. "device_ready checks it",
  locked = "unlock the device's screen by hand (swipe up, enter the PIN), or switch the lock "
    .. "screen off on a test device (Settings > Biometrics & password > Lock screen password off), "
    .. "then retry",
}

-- hvigorw failure classes.
M.build = {
  sdk_home = "set DEVECO_SDK_HOME to the SDK folder (…/command-line-tools/sdk or DevEco's sdk, "
    .. "not sdk/default) and install the SDK components the project's compatibleSdkVersion needs",
  java_missing = "install JDK 17 (21 for command-line-tools 26 and later) and put java on PATH "
    .. "or set JAVA_HOME",
  arkts = "fix the ArkTS errors listed in `errors` (file:line:column), then build again",
  signing = "check signingConfigs in build-profile.json5: certificate, profile and keystore must "
    .. "exist and the encrypted passwords must come from this machine (re-run DevEco "
    .. "auto-signing), or remove signingConfigs to build an unsigned HAP",
  dependency = "run `ohpm install` in the project root; check the names and versions in "
    .. "oh-package.json5 and the registry",
  daemon = "build again with --no-daemon; if it persists, run `hvigorw --stop-daemon-all` and "
    .. "delete the .hvigor folder",
  unknown = "read `failure.message` and the last ERROR lines; run hvigorw with --stacktrace "
    .. "for more detail",
}

-- hap-sign-tool codes: the post-2024 "110…"/"111…" codes and the older enum codes.
M.sign = {
  ["11014003"] = "the keystore did not open: give the plaintext keystore password through the "
    .. "environment variable that home config.toml [signing.<config>] keystore_password_env names "
    .. "(not DevEco's 0000001B… ciphertext), and check keystoreFile",
  ["11014007"] = "the key password is wrong for that key alias: give the plaintext key password "
    .. "through the environment variable that home config.toml [signing.<config>] key_password_env "
    .. "names",
  ["11014001"] = "the keystore has no key with that alias: check keyAlias against the .p12",
  ["11012002"] = "a file passed to hap-sign-tool does not exist: check inFile, appCertFile, "
    .. "profileFile and keystoreFile",
  ["11011008"] = "a parameter is missing or invalid: compare the arguments with `sign-app -h`",
  ["11015005"] = "the profile's certificate does not match the signing certificate: use the "
    .. "certificate and profile issued together",
  ["101"] = "the command is malformed: compare the arguments with `sign-app -h`",
  ["102"] = "a file passed to hap-sign-tool does not exist: check the paths",
  ["105"] = "an option value is not supported: check mode, inForm and profileSigned",
  ["107"] = "signing failed: check that the certificate, profile and key belong together",
  ["110"] = "a parameter is invalid: compare the arguments with `sign-app -h`",
  ["113"] = "a required parameter is missing: compare the arguments with `sign-app -h`",
  ["114"] = "the keystore cannot be opened: check keystoreFile, keystorePwd and keyAlias",
  ["115"] = "a certificate is invalid or does not match: use the certificate issued with the "
    .. "profile",
  ["116"] = "the key cannot be used: check keyAlias and keyPwd",
}

M.ohpm = {
  not_found = "the package is not in any configured registry: check its name and version in "
    .. "oh-package.json5 and the registry (`ohpm config get registry`)",
  invalid_dependency = "a dependency entry in oh-package.json5 is invalid: fix its version or path",
  json5 = "oh-package.json5 is not valid JSON5: fix the syntax at the reported position",
  network = "the registry could not be reached: check the network, proxy and registry URL",
  unknown = "read the ohpm ERROR lines and fix oh-package.json5 or the registry settings",
}

local GENERIC = {
  install = "the install failed with this bm code: look it up in the bm tool docs, fix, and retry",
  uninstall = "the uninstall failed with this bm code: check the bundleName and the device",
  hdc = M.hdc.HDC_FAIL,
  aa = "the launch failed: check bundle, ability and module names, and that the app is installed",
  build = M.build.unknown,
  sign = "signing failed: read the error, check the signing material and arguments, and retry",
  ohpm = M.ohpm.unknown,
}

-- The remedy for `code` of `kind` ("install", "hdc", "aa", "build", "sign", …), or that
-- kind's generic one.
function M.lookup(kind, code)
  local known = M[kind] and code ~= nil and M[kind][tostring(code)]
  return known or GENERIC[kind]
end

return M
