//! The pure-Lua parsers in prelude/harmony/ and `rein.json5`, run inside a real host on the
//! toolchain's real output (copied from shared/HARMONY.md): hdc, aa, hvigorw, hilog,
//! hap-sign-tool and ohpm.

use rein::Host;
use serde_json::{json, Value};

const PARSE_TOOL: &str = r#"
return {
  name = "parse",
  description = "calls harmony.<module>.<fn>(table.unpack(args, 1, n))",
  params = {
    module = { type = "string" },
    fn = { type = "string" },
    args = { type = "array" },
    n = { type = "integer" },
  },
  run = function(a)
    local m = require("harmony." .. a.module)
    local first, second = m[a.fn](table.unpack(a.args, 1, a.n))
    return { first = first, second = second }
  end,
}
"#;

const JSON5_TOOL: &str = r#"
return {
  name = "json5",
  description = "decodes JSON5",
  params = { text = { type = "string" }, json = { type = "string", optional = true } },
  run = function(a)
    local ok, v = pcall(rein.json5.decode, a.text)
    if not ok then
      return { error = { code = v.code, message = v.message, details = v.details } }
    end
    local list = type(v) == "table" and v.list
    return { value = v, null_kept = type(v) == "table" and v.nothing == rein.json.null,
             list_len = type(list) == "table" and #list or nil,
             same_as_json = a.json and rein.json.encode(v) == rein.json.encode(rein.json.decode(a.json)),
             null_same = rein.json5.null == rein.json.null,
             reencoded = rein.json.encode(v) }
  end,
}
"#;

struct Parsers {
    _dir: tempfile::TempDir,
    host: Host,
}

impl Parsers {
    fn new() -> Parsers {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("tools")).unwrap();
        std::fs::write(ws.join("tools/parse.lua"), PARSE_TOOL).unwrap();
        std::fs::write(ws.join("tools/json5.lua"), JSON5_TOOL).unwrap();
        let host = Host::builder().workspace(&ws).home(dir.path().join("home")).build().unwrap();
        assert!(host.problems().is_empty(), "{:?}", host.problems());
        Parsers { _dir: dir, host }
    }

    fn both(&self, module: &str, func: &str, args: Value) -> (Value, Value) {
        let n = args.as_array().unwrap().len();
        let out = self
            .host
            .call("parse", json!({"module": module, "fn": func, "args": args, "n": n}))
            .unwrap_or_else(|e| panic!("{module}.{func}: {e}"));
        (out.get("first").cloned().unwrap_or(Value::Null), out.get("second").cloned().unwrap_or(Value::Null))
    }

    fn call(&self, module: &str, func: &str, args: Value) -> Value {
        self.both(module, func, args).0
    }

    fn json5(&self, text: &str) -> Value {
        self.host.call("json5", json!({"text": text})).unwrap()
    }

    fn json5_vs_json(&self, text: &str) -> Value {
        self.host.call("json5", json!({"text": text, "json": text})).unwrap()
    }
}

/// A Lua list as JSON: an empty Lua table arrives as `{}`.
fn list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items.clone(),
        Value::Object(map) if map.is_empty() => vec![],
        Value::Null => vec![],
        other => panic!("not a list: {other}"),
    }
}

fn remedy(v: &Value) -> &str {
    v["remedy"].as_str().unwrap_or_else(|| panic!("no remedy in {v}"))
}

// ---------------------------------------------------------------- hdc install / uninstall

const INSTALL_CODES: &[(&str, &str)] = &[
    ("9568320", "no signature file."),
    ("9568322", "signature verification failed due to not trusted app source."),
    ("9568332", "install sign info inconsistent."),
    ("9568263", "install version downgrade."),
    ("9568289", "install failed due to grant request permissions failed."),
    ("9568297", "install failed due to older sdk version in the device."),
    ("9568305", "dependent module does not exist."),
    ("9568347", "install parse native so failed."),
    ("9568259", "install parse profile missing prop."),
    ("9568344", "install parse profile prop check error."),
    ("9568258", "install releaseType target not same."),
    ("9568257", "fail to verify pkcs7 file."),
    ("9568266", "install permission denied."),
    ("9568286", "install provision type not same."),
    ("9568329", "verify signature failed."),
    ("9568336", "install debug type not same."),
    ("9568337", "install parse unexpected."),
];

const GENERIC_INSTALL_REMEDY: &str = "the install failed with this bm code";

#[test]
fn install_failures_carry_code_message_and_a_specific_remedy_in_both_formats() {
    let p = Parsers::new();
    for (code, message) in INSTALL_CODES {
        let new = format!(
            "[Info]App install path:/ws/entry/build/default/outputs/default/entry-default-signed.hap msg:error: failed to install bundle. code:{code} error: {message}\nAppMod finish\n"
        );
        let old = format!(
            "[Info]App install path:F:\\…\\clash-entry-default.hap, queuesize:0, msg:error: failed to install bundle. code:{code} error: {message}\r\nAppMod finish\r\n"
        );
        for (text, path) in [
            (new, "/ws/entry/build/default/outputs/default/entry-default-signed.hap"),
            (old, "F:\\…\\clash-entry-default.hap"),
        ] {
            let r = p.call("hdc", "parse_install", json!([text]));
            assert_eq!(r["ok"], json!(false), "{text}");
            assert_eq!(r["code"], json!(code));
            assert_eq!(r["message"], json!(message));
            assert_eq!(r["path"], json!(path));
            assert!(!remedy(&r).starts_with(GENERIC_INSTALL_REMEDY), "{code} has no specific remedy: {r}");
        }
    }
    let r = p.call("hdc", "parse_install", json!(["[Info]App install path:/x.hap msg:error: failed to install bundle. code:9568332 error: install sign info inconsistent.\nAppMod finish\n"]));
    assert!(remedy(&r).contains("app_uninstall"), "{r}");
    let r = p.call("hdc", "parse_install", json!(["[Info]App install path:/x.hap msg:error: failed to install bundle. code:9568999 error: something new.\nAppMod finish\n"]));
    assert_eq!((r["ok"].clone(), r["code"].clone()), (json!(false), json!("9568999")));
    assert!(remedy(&r).starts_with(GENERIC_INSTALL_REMEDY));
}

#[test]
fn install_succeeds_only_on_the_success_message_old_and_new() {
    let p = Parsers::new();
    let new = "[Info]App install path:/ws/entry-default-signed.hap msg:install bundle successfully.\nAppMod finish\n";
    assert_eq!(
        p.call("hdc", "parse_install", json!([new])),
        json!({"ok": true, "path": "/ws/entry-default-signed.hap"})
    );
    let old = "[Info]App install path:C:\\Users\\me\\entry-default-signed.hap, queuesize:0, msg:install bundle successfully.\r\nAppMod finish\r\n";
    assert_eq!(
        p.call("hdc", "parse_install", json!([old])),
        json!({"ok": true, "path": "C:\\Users\\me\\entry-default-signed.hap"})
    );
    // bm on the device prints the parts on separate lines.
    let bm = "error: failed to install bundle.\ncode:9568320\nerror: no signature file.\n";
    let r = p.call("hdc", "parse_install", json!([bm]));
    assert_eq!(
        (r["ok"].clone(), r["code"].clone(), r["message"].clone()),
        (json!(false), json!("9568320"), json!("no signature file."))
    );
    // Exit status means nothing to hdc: no success text, no success.
    for text in ["", "AppMod finish\n", "[Info]App install path:/x.hap msg:\nAppMod finish\n"] {
        let r = p.call("hdc", "parse_install", json!([text]));
        assert_eq!(r["ok"], json!(false), "{text:?}");
        assert!(r["remedy"].is_string());
    }
}

#[test]
fn uninstall_success_and_failure() {
    let p = Parsers::new();
    let ok = "[Info]App uninstall path: msg:uninstall bundle successfully.\nAppMod finish\n";
    assert_eq!(p.call("hdc", "parse_uninstall", json!([ok])), json!({"ok": true}));
    let bad = "[Info]App uninstall path: msg:error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.\nAppMod finish\n";
    let r = p.call("hdc", "parse_uninstall", json!([bad]));
    assert_eq!((r["ok"].clone(), r["code"].clone()), (json!(false), json!("9568386")));
    assert!(remedy(&r).contains("not installed"));
}

// ---------------------------------------------------------------- [Fail] lines

#[test]
fn every_fail_line_is_recognised_whatever_the_command() {
    let p = Parsers::new();
    let cases: &[(&str, &str, &str)] = &[
        ("[Fail][E001005] Device not found or connected\n", "E001005", "Device not found or connected"),
        (
            "[Fail][E000002]:The device unauthorized.\r\nThis server's public key is not set.\r\nPlease check for a confirmation dialog on your device.\r\nOtherwise try 'hdc kill' if that seems wrong.\n",
            "E000002",
            "The device unauthorized. This server's public key is not set. Please check for a confirmation dialog on your device. Otherwise try 'hdc kill' if that seems wrong.",
        ),
        (
            "[Fail][E000003]:The device unauthorized.\r\nThe user denied the access for the device.\r\nPlease execute 'hdc kill' and redo your command,\r\nthen check for a confirmation dialog on your device.\n",
            "E000003",
            "The device unauthorized. The user denied the access for the device. Please execute 'hdc kill' and redo your command, then check for a confirmation dialog on your device.",
        ),
        (
            "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.\n",
            "E000004",
            "The communication channel is being established. Please wait for several seconds and try again.",
        ),
        (
            "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n",
            "NEED_CONNECT_KEY",
            "ExecuteCommand need connect-key? please confirm a device by help info",
        ),
        ("[Fail][E006001] Not any installation package was found\n", "E006001", "Not any installation package was found"),
        ("[Fail]Not any installation package was found\n", "E006001", "Not any installation package was found"),
        (
            "[Fail]Not match target founded, check connect-key please\n",
            "TARGET_NOT_FOUND",
            "Not match target founded, check connect-key please",
        ),
        (
            "[Fail]Transfer Stop at:1024/4096(Bytes), Reason: connection lost\n",
            "TRANSFER_STOPPED",
            "Transfer Stop at:1024/4096(Bytes), Reason: connection lost",
        ),
        ("[Fail]Error opening file: no such file, path:/x.jpeg\n", "FILE_OPEN_FAILED", "Error opening file: no such file, path:/x.jpeg"),
        ("[Fail]Connect failed\n", "CONNECT_FAILED", "Connect failed"),
        ("[Fail][E001104]:IP address incorrect\n", "E001104", "IP address incorrect"),
        ("Connect server failed\n", "SERVER_UNREACHABLE", "Connect server failed"),
    ];
    for (text, code, message) in cases {
        let expected_remedy = p.call("hdc", "fail_line", json!([text]))["remedy"].clone();
        for func in [
            "fail_line",
            "parse_install",
            "parse_uninstall",
            "parse_aa_start",
            "parse_force_stop",
            "parse_file_transfer",
            "parse_snapshot",
            "parse_bm_dump",
        ] {
            let r = p.call("hdc", func, json!([text]));
            assert_eq!(r["ok"], json!(false), "{func} {text:?}");
            assert_eq!(r["code"], json!(code), "{func} {text:?}");
            assert_eq!(r["message"], json!(message), "{func} {text:?}");
            assert_eq!(r["remedy"], expected_remedy);
            assert!(!remedy(&r).starts_with("hdc refused the command"), "{code} needs its own remedy");
        }
    }
    assert_eq!(p.call("hdc", "fail_line", json!(["start ability successfully.\n"])), Value::Null);
    let unknown = p.call("hdc", "fail_line", json!(["[Fail]Something brand new\n"]));
    assert_eq!(
        (unknown["code"].clone(), unknown["message"].clone()),
        (json!("HDC_FAIL"), json!("Something brand new"))
    );
    // A bracketed code rein does not know keeps the code and gets the remedy of its message.
    let coded =
        p.call("hdc", "fail_line", json!(["[Fail][E001003] Not match target founded, check connect-key please\n"]));
    assert_eq!(coded["code"], json!("E001003"));
    assert!(remedy(&coded).contains("device_list"));
    // On Windows every line ends "\r\n": the message still ends at the next hdc marker.
    let win = p.call("hdc", "fail_line", json!(["[Fail][E001005] Device not found or connected\r\n[Info]other\r\n"]));
    assert_eq!(win["message"], json!("Device not found or connected"));
}

// ---------------------------------------------------------------- hdc list targets

#[test]
fn targets_empty_plain_unauthorized_and_verbose() {
    let p = Parsers::new();
    let (empty, fail) = p.both("hdc", "parse_targets", json!(["[Empty]\n"]));
    assert!(list(&empty).is_empty());
    assert_eq!(fail, Value::Null);
    assert!(list(&p.call("hdc", "parse_targets", json!([""]))).is_empty());

    let plain =
        p.call("hdc", "parse_targets", json!(["FMR0223C13000649\n127.0.0.1:5555\nABCDEF012345\tUnauthorized\n"]));
    let plain = list(&plain);
    assert_eq!(plain.len(), 3);
    assert_eq!(plain[0], json!({"key": "FMR0223C13000649", "status": "Connected"}));
    assert_eq!(plain[1], json!({"key": "127.0.0.1:5555", "status": "Connected"}));
    assert_eq!(plain[2]["key"], json!("ABCDEF012345"));
    assert_eq!(plain[2]["status"], json!("Unauthorized"));
    assert!(remedy(&plain[2]).contains("USB debugging"));

    let verbose = "FMR0223C13000649\t\tUSB\tConnected\tlocalhost\thdc\r\n192.168.1.5:5555\t\tTCP\tOffline\t\thdc\r\nXYZ\t\tUSB\tUnauthorized\tunknown...\thdc\r\n";
    for flag in [json!(true), Value::Null] {
        let n = if flag.is_null() { 1 } else { 2 };
        let args = if n == 1 { json!([verbose]) } else { json!([verbose, flag]) };
        let t = list(&p.call("hdc", "parse_targets", args));
        assert_eq!(t.len(), 3);
        assert_eq!(t[0], json!({"key": "FMR0223C13000649", "conn": "USB", "status": "Connected", "name": "localhost"}));
        assert_eq!(t[1]["conn"], json!("TCP"));
        assert_eq!(t[1]["status"], json!("Offline"));
        assert_eq!(t[1].get("name"), None);
        assert!(remedy(&t[1]).contains("reconnect"));
        assert_eq!(t[2]["status"], json!("Unauthorized"));
        assert_eq!(t[2]["name"], json!("unknown..."));
    }

    let (none, fail) = p.both("hdc", "parse_targets", json!(["Connect server failed\n"]));
    assert!(list(&none).is_empty());
    assert_eq!(fail["code"], json!("SERVER_UNREACHABLE"));
}

// ---------------------------------------------------------------- aa start / force-stop

#[test]
fn aa_start_success_and_coded_failures() {
    let p = Parsers::new();
    assert_eq!(p.call("hdc", "parse_aa_start", json!(["start ability successfully.\n"])), json!({"ok": true}));
    let failure = "error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist\nError cause: The ability name or bundle name is wrong.\n  Try the following:\n  > Check the ability name.\n  > Check that the app is installed.\n  > MoreInfo: https://gitee.com/openharmony/docs/blob/master/zh-cn/application-dev/tools/aa-tool.md\n";
    let r = p.call("hdc", "parse_aa_start", json!([failure]));
    assert_eq!(r["ok"], json!(false));
    assert_eq!(r["code"], json!("10104001"));
    assert_eq!(r["message"], json!("The specified ability does not exist"));
    assert_eq!(r["cause"], json!("The ability name or bundle name is wrong."));
    assert_eq!(r["suggestions"], json!(["Check the ability name.", "Check that the app is installed."]));
    assert_eq!(
        r["more_info"],
        json!("https://gitee.com/openharmony/docs/blob/master/zh-cn/application-dev/tools/aa-tool.md")
    );
    assert!(remedy(&r).contains("app_install"));

    for (code, message, hint) in [
        ("10103001", "Failed to verify the visibility of the target ability.", "exported"),
        ("10104002", "Failed to retrieve specified package information.", "not installed"),
        ("10106102", "The device screen is locked during the application launch.", "unlock"),
        ("10105001", "Failed to connect to the ability service.", "restart the device"),
    ] {
        let text = format!("error: failed to start ability.\nError Code:{code}  Error Message:{message}\n");
        let r = p.call("hdc", "parse_aa_start", json!([text]));
        assert_eq!(
            (r["ok"].clone(), r["code"].clone(), r["message"].clone()),
            (json!(false), json!(code), json!(message))
        );
        assert!(remedy(&r).contains(hint), "{code}: {r}");
    }
    let old = p.call("hdc", "parse_aa_start", json!(["error: failed to start ability.\n"]));
    assert_eq!((old["ok"].clone(), old["message"].clone()), (json!(false), json!("failed to start ability.")));
    assert!(old["remedy"].is_string());
}

#[test]
fn force_stop_success_and_failure() {
    let p = Parsers::new();
    assert_eq!(p.call("hdc", "parse_force_stop", json!(["force stop process successfully.\n"])), json!({"ok": true}));
    let r = p.call("hdc", "parse_force_stop", json!(["error: failed to force stop process.\n"]));
    assert_eq!((r["ok"].clone(), r["message"].clone()), (json!(false), json!("failed to force stop process.")));
    assert!(r["remedy"].is_string());
}

// ---------------------------------------------------------------- other hdc commands

#[test]
fn file_transfer_snapshot_bm_dump_udid_and_version() {
    let p = Parsers::new();
    let r = p.call(
        "hdc",
        "parse_file_transfer",
        json!(["FileTransfer finish, Size:10, File count = 1, time:0ms rate:100.00kB/s\n"]),
    );
    assert_eq!(r, json!({"ok": true, "size": 10, "files": 1, "time_ms": 0, "rate_kbps": 100.0}));

    let new = "success: snapshot display 0 , write to /data/local/tmp/x.jpeg as jpeg, width: 1276, height: 2848\n";
    assert_eq!(
        p.call("hdc", "parse_snapshot", json!([new])),
        json!({"ok": true, "display": 0, "path": "/data/local/tmp/x.jpeg", "format": "jpeg", "width": 1276, "height": 2848})
    );
    let old = "success: snapshot display 0 , write to /data/local/tmp/x.jpeg as jpeg, width 800, height 1280\n";
    let r = p.call("hdc", "parse_snapshot", json!([old]));
    assert_eq!((r["width"].clone(), r["height"].clone()), (json!(800), json!(1280)));
    assert_eq!(p.call("hdc", "parse_snapshot", json!(["error: snapshot failed\n"]))["ok"], json!(false));

    let dump = "com.example.x:\n{\n    \"appId\": \"com.example.x_BAbc\",\n    \"applicationInfo\": {\n        \"appProvisionType\": \"debug\",\n        \"bundleName\": \"com.example.x\",\n        \"versionCode\": 1000000,\n        \"versionName\": \"1.0.0\"\n    },\n    \"hapModuleInfos\": [{\"mainElementName\": \"EntryAbility\"}],\n    \"installTime\": 1719000000000,\n    \"updateTime\": 1719000001000\n}\n";
    let r = p.call("hdc", "parse_bm_dump", json!([dump]));
    assert_eq!(r["ok"], json!(true));
    assert_eq!(r["bundle_name"], json!("com.example.x"));
    assert_eq!(r["version_code"], json!(1000000));
    assert_eq!(r["version_name"], json!("1.0.0"));
    assert_eq!(r["app_provision_type"], json!("debug"));
    assert_eq!(r["main_element"], json!("EntryAbility"));
    assert_eq!(r["update_time"], json!(1719000001000u64));
    assert!(serde_json::from_str::<Value>(r["json"].as_str().unwrap()).is_ok());
    let missing =
        p.call("hdc", "parse_bm_dump", json!(["error: failed to get information and the parameters may be wrong.\n"]));
    assert_eq!(missing["ok"], json!(false));
    assert_eq!(missing["installed"], json!(false));
    assert_eq!(missing["message"], json!("failed to get information and the parameters may be wrong."));

    assert_eq!(
        p.call("hdc", "parse_udid", json!(["udid of current device is :\n2A8D9C0F11AB\n"])),
        json!("2A8D9C0F11AB")
    );
    assert_eq!(p.call("hdc", "parse_version", json!(["Ver: 3.2.0f\n"])), json!("3.2.0f"));
}

// ---------------------------------------------------------------- hvigorw

const BUILD_OK: &str = "> hvigor hvigor client: Starting hvigor daemon.\n> hvigor Hvigor Daemon started in 944 ms\n> hvigor UP-TO-DATE :entry:default@PreBuild...  \n> hvigor WARN: Will skip sign 'hos_hap'. No signingConfigs profile is configured in current project.\n             If needed, configure the signingConfigs in /p/build-profile.json5.\n> hvigor Finished :entry:default@SignHap... after 4 ms\n> hvigor Finished :entry:assembleHap... after 1 ms\n> hvigor BUILD SUCCESSFUL in 32 s 860 ms \n";

const ARKTS_FAIL: &str = "> hvigor ERROR: Failed :entry:default@CompileArkTS... \n> hvigor WARN: \n1 WARN: ArkTS:WARN File: E:/…/HomeViewModel.ets:70:14\n 'pushUrl' has been deprecated.\n> hvigor ERROR: ArkTS Compiler Error\n1 ERROR: 10505001 ArkTS Compiler Error\nError Message: ',' expected. At File: E:/…/KnowledgeGraph.ets:319:26\n\n2 ERROR: 10605008 ArkTS Compiler Error\nError Message: Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown) At File: /home/me/app/entry/src/main/ets/pages/Index.ets:12:7\n\n\nCOMPILE RESULT:FAIL {ERROR:45 WARN:22}\n\n* Try:\n> Run with --stacktrace option to get the stack trace.\n> Run with --debug option to get more log output.\n\n> hvigor ERROR: BUILD FAILED in 1 min 14 s 227 ms \n";

#[test]
fn hvigor_success_needs_the_text_not_the_exit_code() {
    let p = Parsers::new();
    let r = p.call("hvigor", "parse_build", json!([BUILD_OK, "", 0]));
    assert_eq!(r["ok"], json!(true));
    assert_eq!(r["duration"], json!("32 s 860 ms"));
    assert_eq!(r["duration_ms"], json!(32860));
    assert!(list(&r["errors"]).is_empty() && list(&r["warnings"]).is_empty());
    assert_eq!(r.get("failure"), None);

    // Exit 0 alone is not success; "BUILD SUCCESSFUL" with a failed compile is not either.
    let r = p.call("hvigor", "parse_build", json!(["> hvigor Finished :entry:assembleHap... after 1 ms\n", "", 0]));
    assert_eq!(r["ok"], json!(false));
    assert_eq!(r["failure"]["class"], json!("unknown"));
    assert!(r["failure"]["remedy"].is_string());
    let mixed = "COMPILE RESULT:FAIL {ERROR:1 WARN:0}\n> hvigor BUILD SUCCESSFUL in 699 ms\n";
    assert_eq!(p.call("hvigor", "parse_build", json!([mixed, "", 0]))["ok"], json!(false));
}

#[test]
fn hvigor_arkts_errors_in_the_current_format_with_windows_and_posix_paths() {
    let p = Parsers::new();
    let r = p.call("hvigor", "parse_build", json!([ARKTS_FAIL, "", 255]));
    assert_eq!(r["ok"], json!(false));
    assert_eq!(r["exit_code"], json!(255));
    assert_eq!(r["duration_ms"], json!(74227));
    assert_eq!(r["failed_task"], json!("entry:default@CompileArkTS"));
    assert_eq!(r["compile_result"], json!({"status": "FAIL", "errors": 45, "warnings": 22}));
    assert_eq!(
        list(&r["errors"]),
        vec![
            json!({"file": "E:/…/KnowledgeGraph.ets", "line": 319, "column": 26, "code": "10505001",
                   "message": "',' expected.", "severity": "error"}),
            json!({"file": "/home/me/app/entry/src/main/ets/pages/Index.ets", "line": 12, "column": 7,
                   "code": "10605008", "rule": "arkts-no-any-unknown",
                   "message": "Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown)",
                   "severity": "error"}),
        ]
    );
    assert_eq!(
        list(&r["warnings"]),
        vec![json!({"file": "E:/…/HomeViewModel.ets", "line": 70, "column": 14,
                    "message": "'pushUrl' has been deprecated.", "severity": "warning"})]
    );
    assert_eq!(r["failure"]["class"], json!("arkts"));
    assert_eq!(r["failure"]["message"], json!("E:/…/KnowledgeGraph.ets:319:26 ',' expected."));
    assert!(r["failure"]["remedy"].as_str().unwrap().contains("errors"));
}

#[test]
fn hvigor_arkts_errors_in_the_older_format() {
    let p = Parsers::new();
    let out = "> hvigor WARN: Will skip sign 'hos_hap'. No signingConfigs profile is configured in current project.\n             If needed, configure the signingConfigs in D:\\app\\build-profile.json5.\n> hvigor ERROR: ArkTS:ERROR File: D:/work/app/entry/src/main/ets/pages/Index.ets:64:31\n Cannot find name 'foo'.\nERROR: ArkTS:ERROR File: /Users/me/app/entry/src/main/ets/pages/Second.ets:3:5\n Property 'bar' does not exist on type 'Index'.\n> hvigor ERROR: ArkTS:WARN File: C:\\app\\entry\\src\\main\\ets\\Util.ets:9:1\n Function may throw exceptions.\n> hvigor ERROR: BUILD FAILED in 12 s 247 ms\n";
    let r = p.call("hvigor", "parse_build", json!(["", out, 1]));
    assert_eq!(r["ok"], json!(false));
    let errors = list(&r["errors"]);
    assert_eq!(errors.len(), 2);
    assert_eq!(
        errors[0],
        json!({"file": "D:/work/app/entry/src/main/ets/pages/Index.ets", "line": 64, "column": 31,
               "message": "Cannot find name 'foo'.", "severity": "error"})
    );
    assert_eq!(errors[1]["file"], json!("/Users/me/app/entry/src/main/ets/pages/Second.ets"));
    assert_eq!((errors[1]["line"].clone(), errors[1]["column"].clone()), (json!(3), json!(5)));
    let warnings = list(&r["warnings"]);
    assert_eq!(warnings[0]["file"], json!("C:\\app\\entry\\src\\main\\ets\\Util.ets"));
    assert_eq!(warnings[0]["message"], json!("Function may throw exceptions."));
    // The skip-sign warning mentions signingConfigs, but the failure is the ArkTS code.
    assert_eq!(r["failure"]["class"], json!("arkts"));
    assert_eq!(r["duration_ms"], json!(12247));
}

#[test]
fn hvigor_recognises_each_failure_class() {
    let p = Parsers::new();
    let cases = [
        ("> hvigor ERROR: 00303217 Configuration Error: Invalid value of 'DEVECO_SDK_HOME' in the system environment path.\n> hvigor ERROR: BUILD FAILED in 699 ms\n", "sdk_home", Some("00303217")),
        ("> hvigor ERROR: Unable to find 'DEVECO_SDK_HOME' in the system environment path.\n> hvigor ERROR: BUILD FAILED in 1 s 2 ms\n", "sdk_home", None),
        ("> hvigor ERROR: SDK component missing. Please verify the integrity of your SDK.\n> hvigor ERROR: BUILD FAILED in 1 s\n", "sdk_home", None),
        ("> hvigor ERROR: Failed :entry:default@SignHap... \n> hvigor ERROR: Error Code: 00308018 Unknown Error\nspawn java ENOENT\n> hvigor ERROR: BUILD FAILED in 3 s 10 ms\n", "java_missing", None),
        ("> hvigor ERROR: Failed :entry:default@SignHap... \n> hvigor ERROR: Unsupported state or unable to authenticate data\n> hvigor ERROR: BUILD FAILED in 5 s 1 ms\n", "signing", None),
        ("ohpm ERROR: NOTFOUND package '@ohos/hamock@1.0.1' not found from all the registries\n> hvigor ERROR: BUILD FAILED in 2 s\n", "dependency", None),
        ("> hvigor ERROR: ENOENT: no such file or directory, uv_cwd\n> hvigor ERROR: BUILD FAILED in 10 ms\n", "daemon", None),
        ("> hvigor ERROR: Something nobody has seen before\n> hvigor ERROR: BUILD FAILED in 10 ms\n", "unknown", None),
    ];
    for (out, class, code) in cases {
        let r = p.call("hvigor", "parse_build", json!([out, "", 255]));
        assert_eq!(r["ok"], json!(false), "{out}");
        assert_eq!(r["failure"]["class"], json!(class), "{out}");
        assert!(!r["failure"]["remedy"].as_str().unwrap().is_empty());
        assert!(r["failure"]["message"].is_string(), "{r}");
        if let Some(code) = code {
            assert_eq!(r["failure"]["code"], json!(code));
        }
    }
    let unknown = p.call("hvigor", "parse_build", json!([cases[7].0, "", 255]));
    assert_eq!(unknown["failure"]["message"], json!("ERROR: Something nobody has seen before"));
    let java = p.call("hvigor", "parse_build", json!([cases[3].0, "", 255]));
    assert!(java["failure"]["remedy"].as_str().unwrap().contains("JDK"));
}

#[test]
fn a_compile_result_without_a_warn_field_is_still_read() {
    // Huawei FAQ faqs-compiling-and-building-231 quotes "COMPILE RESULT:FAIL {ERROR:1}".
    let p = Parsers::new();
    let out = "> hvigor ERROR: Failed :entry:default@CompileArkTS... \n> hvigor ERROR: ArkTS Compiler Error\n1 ERROR: 10505001 ArkTS Compiler Error\nError Message: Cannot find name 'x'. At File: /p/entry/src/main/ets/pages/Index.ets:5:28\n\n2 ERROR: 10505001 ArkTS Compiler Error\nError Message: Cannot find name 'y'. At File: /p/entry/src/main/ets/pages/Index.ets:9:3\n\nCOMPILE RESULT:FAIL {ERROR:2}\n> hvigor ERROR: BUILD FAILED in 3 s 512 ms \n";
    let r = p.call("hvigor", "parse_build", json!([out, "", 255]));
    assert_eq!(r["compile_result"], json!({"status": "FAIL", "errors": 2, "warnings": 0}));
    assert_eq!(list(&r["errors"]).len(), 2);
    assert_eq!((r["ok"].clone(), r["failure"]["class"].clone()), (json!(false), json!("arkts")));
}

// ---------------------------------------------------------------- launch proof: pidof, clock, faultlog

#[test]
fn fail_lines_count_only_at_the_start_of_hdc_lines() {
    let p = Parsers::new();
    let hilog = "06-15 10:00:00.000  2291  2291 E A00000/testTag: [Fail] upload retry 3\n\
                 06-15 10:00:00.001  2291  2291 I A00000/testTag: Connect server failed, retrying\n";
    assert_eq!(p.call("hdc", "fail_line", json!([hilog])), Value::Null, "an app's message is not hdc's");
    assert_eq!(list(&p.call("hilog", "parse", json!([hilog]))).len(), 2);
    assert_eq!(
        p.call("hdc", "fail_line", json!(["[Fail][E001005] Device not found or connected\n"]))["code"],
        json!("E001005")
    );
}

#[test]
fn aa_failures_are_read_by_their_code() {
    let p = Parsers::new();
    // A reworded message keeps its code's remedy; a code wins over any other text.
    let text = "error: failed to start ability.\nError Code:10103001  Error Message:Some future wording\n";
    let r = p.call("hdc", "parse_aa_start", json!([text]));
    assert_eq!((r["ok"].clone(), r["code"].clone()), (json!(false), json!("10103001")));
    assert!(remedy(&r).contains("exported"), "{r}");
    let both = "start ability successfully.\nError Code:10106102  Error Message:x\n";
    assert_eq!(p.call("hdc", "parse_aa_start", json!([both]))["code"], json!("10106102"));
}

#[test]
fn pidof_the_device_clock_and_fault_logs() {
    let p = Parsers::new();
    let (pids, other) = p.both("hdc", "parse_pidof", json!(["2291 2308\n"]));
    assert_eq!((pids, other), (json!([2291, 2308]), Value::Null));
    assert!(list(&p.call("hdc", "parse_pidof", json!([""]))).is_empty());
    let (_, other) = p.both("hdc", "parse_pidof", json!(["/bin/sh: pidof: inaccessible or not found\n"]));
    assert_eq!(other, json!("/bin/sh: pidof: inaccessible or not found"));

    let now = p.call("clock", "parse_date", json!(["20250101000000\n"]));
    assert_eq!(
        (now["year"].clone(), now["month"].clone(), now["stamp"].clone()),
        (json!(2025), json!(1), json!("20250101000000"))
    );
    assert_eq!(p.call("clock", "second_before", json!([now])), json!("20241231235959"));
    let leap = p.call("clock", "parse_date", json!(["20240301000000"]));
    assert_eq!(p.call("clock", "second_before", json!([leap])), json!("20240229235959"));
    assert_eq!(p.call("clock", "parse_date", json!(["Sun Jun 15 10:00:00 CST 2025"])), Value::Null);
    let june = p.call("clock", "parse_date", json!(["20250615100000"]));
    for (time, after) in [
        ("06-15 10:00:00.000", true),
        ("06-15 09:59:59.999", false),
        ("06-16 00:00:00.000", true),
        ("2025-06-15 10:00:01.000", true),
        ("2024-06-16 10:00:01.000", false),
    ] {
        assert_eq!(p.call("clock", "not_before", json!([time, june])), json!(after), "{time}");
    }
    let december = p.call("clock", "parse_date", json!(["20251231235959"]));
    assert_eq!(p.call("clock", "not_before", json!(["01-01 00:00:00.100", december])), json!(true), "the new year");

    // hiviewdfx_hidumper sa_dumper.cpp frames hiview's output; faultlog_dump.cpp lists names.
    let frame = "\n-------------------------------[ability]-------------------------------\n\n\n----------------------------------HiviewService----------------------------------\n";
    let empty = format!("{frame}No fault log exist.\nFault log list:\n******\n******\n");
    assert!(list(&p.call("faultlog", "parse_list", json!([empty]))).is_empty());
    let listed = format!("{frame}Fault log list:\n******\njscrash-com.example.hello-20010044-20250615100001\ncppcrash-com.example.hello-20010044-20250615100000123.log\n******\n");
    let logs = list(&p.call("faultlog", "parse_list", json!([listed])));
    assert_eq!(logs.len(), 2);
    assert_eq!(logs[0]["name"], json!("cppcrash-com.example.hello-20010044-20250615100000123"));
    assert_eq!(
        logs[1],
        json!({"name": "jscrash-com.example.hello-20010044-20250615100001", "type": "jscrash",
               "module": "com.example.hello", "uid": 20010044, "time": "20250615100001"})
    );
    let (none, why) = p.both("faultlog", "parse_list", json!([format!("{frame}dump operation is not permitted.\n")]));
    assert_eq!(none, Value::Null);
    assert!(why.as_str().unwrap().contains("not permitted"), "{why}");
    let content = format!("{frame}Generated by HiviewDFX@OpenHarmony\n================================================================\nDevice info:HarmonyOS 5.0.0\nModule name:com.example.hello\nPid:2291\nUid:20010044\nReason:TypeError\nError name:TypeError\nError message:Cannot read property 'length' of undefined\nStacktrace:\n    at onCreate (entry/src/main/ets/entryability/EntryAbility.ets:7:5)\n    at anonymous (entry/src/main/ets/pages/Index.ets:3:1)\n");
    let log = p.call("faultlog", "parse_log", json!([content]));
    assert_eq!(
        (log["pid"].clone(), log["reason"].clone(), log["error_message"].clone()),
        (json!(2291), json!("TypeError"), json!("Cannot read property 'length' of undefined"))
    );
    assert_eq!(log["stack"][0], json!("at onCreate (entry/src/main/ets/entryability/EntryAbility.ets:7:5)"));
    assert_eq!(log["first_lines"][0], json!("Generated by HiviewDFX@OpenHarmony"));
    assert_eq!(p.call("faultlog", "parse_log", json!([format!("{frame}Fail to dump the log.\n")])), Value::Null);
}

// ---------------------------------------------------------------- hilog

#[test]
fn hilog_lines_are_parsed_and_filtered() {
    let p = Parsers::new();
    let line = "01-01 08:10:55.571  2291  2291 I A00000/testTag: AAAAAAAA napi testprint testzzz";
    assert_eq!(
        p.call("hilog", "parse_line", json!([line])),
        json!({"time": "01-01 08:10:55.571", "pid": 2291, "tid": 2291, "level": "I", "type": "A",
               "domain": "00000", "tag": "testTag", "message": "AAAAAAAA napi testprint testzzz"})
    );
    assert_eq!(p.call("hilog", "parse_line", json!(["1719-1738/? I A00000/testTag: DevEco form"])), Value::Null);
    assert_eq!(p.call("hilog", "parse_line", json!(["not a log line"])), Value::Null);

    let text = "01-01 08:10:55.571  2291  2291 I A00000/testTag: EntryAbility onCreate\r\n\
                01-01 08:10:55.600  2291  2300 W A03d00/JSAPP: slow frame: 40ms\r\n\
                01-01 08:10:55.700   512   530 E C01f00/Ability: cannot start\r\n\
                garbage\r\n\
                01-01 08:10:56.000  2291  2291 D A00000/testTag: details\r\n";
    assert_eq!(list(&p.call("hilog", "parse", json!([text]))).len(), 4);
    let warn_up = list(&p.call("hilog", "parse", json!([text, {"level": "W"}])));
    assert_eq!(warn_up.iter().map(|e| e["level"].clone()).collect::<Vec<_>>(), vec![json!("W"), json!("E")]);
    assert_eq!(list(&p.call("hilog", "parse", json!([text, {"level": "error"}]))).len(), 1);
    let tagged = list(&p.call("hilog", "parse", json!([text, {"tag": "testTag"}])));
    assert_eq!(tagged.len(), 2);
    let grepped = list(&p.call("hilog", "parse", json!([text, {"grep": "EntryAbility onCreate"}])));
    assert_eq!(grepped.len(), 1);
    assert_eq!(grepped[0]["message"], json!("EntryAbility onCreate"));
    assert_eq!(grepped[0]["domain"], json!("00000"));
    let last = list(&p.call("hilog", "parse", json!([text, {"lines": 1}])));
    assert_eq!(last[0]["message"], json!("details"));
    let special = list(&p.call("hilog", "parse", json!([text, {"grep": "40ms"}])));
    assert_eq!(special[0]["tag"], json!("JSAPP"));
    assert_eq!(special[0]["message"], json!("slow frame: 40ms"));
}

// ---------------------------------------------------------------- hap-sign-tool

#[test]
fn sign_success_and_failure_in_both_log_formats() {
    let p = Parsers::new();
    let ok_new = "08-21 16:44:24.101  INFO - Start sign-app\n08-21 16:44:25.310  INFO - Sign Hap success!\n08-21 16:44:25.311  INFO - sign-app success\n";
    assert_eq!(
        p.call("sign", "parse_sign", json!([ok_new, "", 0])),
        json!({"ok": true, "method": "sign-app", "errors": {}})
    );
    let ok_old = "08-21 16:44:24 INFO  - Start sign-app\n08-21 16:44:25 INFO  - sign-app success\n";
    assert_eq!(p.call("sign", "parse_sign", json!([ok_old, "", 0]))["ok"], json!(true));
    // Exit 0 is not enough, and neither is the text with exit 1.
    assert_eq!(
        p.call("sign", "parse_sign", json!(["08-21 16:44:24.101  INFO - Start sign-app\n", "", 0]))["ok"],
        json!(false)
    );
    assert_eq!(p.call("sign", "parse_sign", json!([ok_new, "", 1]))["ok"], json!(false));

    let err_new = "08-21 16:44:25.300  ERROR - \nERROR: 11014007 Key alias {oh-app1-key-v1} password error\nError Message: Key alias {oh-app1-key-v1} password error\n\n* Try the following: \n > Check the key password\n";
    let r = p.call(
        "sign",
        "parse_sign",
        json!(["08-21 16:44:24.101  INFO - Start sign-app\n08-21 16:44:25.311  INFO - sign-app failed\n", err_new, 1]),
    );
    assert_eq!(r["ok"], json!(false));
    let errors = list(&r["errors"]);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["code"], json!("11014007"));
    assert_eq!(errors[0]["description"], json!("Key alias {oh-app1-key-v1} password error"));
    assert_eq!(errors[0]["cause"], json!("Key alias {oh-app1-key-v1} password error"));
    assert_eq!(errors[0]["solutions"], json!(["Check the key password"]));
    assert!(remedy(&r).contains("key password") && remedy(&r).contains("key_password_env"), "{r}");

    let err_old = "08-21 16:44:24 INFO  - Start sign-app\n08-21 16:44:24 ERROR - FILE_NOT_FOUND, code: 102. Details: Not found file: app1-profile.p7b\n";
    let r = p.call("sign", "parse_sign", json!([err_old, "", 1]));
    assert_eq!(r["ok"], json!(false));
    let errors = list(&r["errors"]);
    assert_eq!(
        (errors[0]["code"].clone(), errors[0]["description"].clone(), errors[0]["cause"].clone()),
        (json!("102"), json!("FILE_NOT_FOUND"), json!("Not found file: app1-profile.p7b"))
    );
    assert!(r["remedy"].is_string());

    // java's launcher fails before the jar runs: what it says is the error (it was none, and the
    // failure said "see errors" with nothing to see). Printed by the real OpenJDK 17 for a
    // missing and a broken jar, and by the Windows JDK 17 under Wine for a jar path it could
    // not open; the JVM's warnings under Wine are no error.
    let wine = "OpenJDK 64-Bit Server VM warning: Attempt to get process group affinity failed: Call not implemented\n";
    for cause in [
        "Unable to access jarfile /sdk/toolchains/lib/hap-sign-tool.jar",
        "Invalid or corrupt jarfile /sdk/toolchains/lib/hap-sign-tool.jar",
        "An unexpected error occurred while trying to open file /root/sdk/toolchains/lib/hap-sign-tool.jar",
    ] {
        let r = p.call("sign", "parse_sign", json!(["", format!("{wine}Error: {cause}\n"), 1]));
        let errors = list(&r["errors"]);
        assert_eq!((r["ok"].clone(), errors.len()), (json!(false), 1), "{r}");
        assert_eq!(errors[0]["description"], json!(cause), "{r}");
    }

    let verify = "Digest verify result: true, DigestAlgorithm: SHA-256\nverify: Verify success\nverify-app success\n";
    let r = p.call("sign", "parse_verify", json!([verify, "", 0]));
    assert_eq!((r["ok"].clone(), r["digest_ok"].clone()), (json!(true), json!(true)));
    assert_eq!(p.call("sign", "parse_verify", json!(["hap verify successed!\n", "", 0]))["ok"], json!(true));
    assert_eq!(p.call("sign", "parse_verify", json!(["verify-app failed\n", "", 1]))["ok"], json!(false));
}

// ---------------------------------------------------------------- ohpm

#[test]
fn ohpm_install_success_and_failure() {
    let p = Parsers::new();
    let ok = "ohpm INFO: fetch meta info of package '@x/y' success https://ohpm.openharmony.cn/ohpm/@x/y\nohpm INFO: fetch package done 1 @x/y from https://ohpm.openharmony.cn/y-1.0.0.har\ninstall completed in 0s 431ms\n";
    let r = p.call("ohpm", "parse_install", json!([ok, "", 0]));
    assert_eq!(r["ok"], json!(true));
    assert_eq!(r["packages"], json!(["@x/y"]));
    assert_eq!(r["duration_ms"], json!(431));

    let bad = "ohpm ERROR: Run install command failed Error: 00617101 Fetch Pkg Info Failed\nError Message: FetchPackageInfo: \"@ohos/hvigor-ohos-plugin\" failed\nNOTFOUND package '@ohos/hvigor-ohos-plugin@4.0.5' not found from all the registries\n";
    let r = p.call("ohpm", "parse_install", json!(["", bad, 1]));
    assert_eq!(r["ok"], json!(false));
    let errors = list(&r["errors"]);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["code"], json!("00617101"));
    assert_eq!(errors[0]["package"], json!("@ohos/hvigor-ohos-plugin@4.0.5"));
    assert_eq!(errors[0]["kind"], json!("not_found"));
    assert!(remedy(&r).contains("oh-package.json5"));
    let json5 = p.call("ohpm", "parse_install", json!(["ohpm ERROR: JSON5: invalid end of input at 1:1\n", "", 1]));
    assert_eq!(list(&json5["errors"])[0]["kind"], json!("json5"));
}

// ---------------------------------------------------------------- rein.json5

#[test]
fn json5_decodes_what_deveco_writes() {
    let p = Parsers::new();
    let text = "// build-profile.json5\n{\n  /* products */\n  app: {\n    signingConfigs: [],\n    products: [\n      { name: 'default', compatibleSdkVersion: \"5.0.0(12)\", runtimeOS: 'HarmonyOS', },\n    ],\n  },\n  versionCode: 0x10,\n  ratio: .5,\n  big: +1e3,\n  nothing: null,\n  list: [1, null, 3,],\n  'quoted key': 'it\\'s',\n}\n";
    let out = p.json5(text);
    let v = &out["value"];
    assert_eq!(v["app"]["products"][0]["name"], json!("default"));
    assert_eq!(v["app"]["products"][0]["compatibleSdkVersion"], json!("5.0.0(12)"));
    assert_eq!(v["versionCode"], json!(16));
    assert_eq!(v["ratio"], json!(0.5));
    assert_eq!(v["big"], json!(1000.0));
    assert_eq!(out["list_len"], json!(3));
    assert_eq!(v["quoted key"], json!("it's"));
    assert_eq!(out["null_kept"], json!(true));
    assert_eq!(out["null_same"], json!(true));
    // Empty arrays stay arrays when encoded again.
    let again: Value = serde_json::from_str(out["reencoded"].as_str().unwrap()).unwrap();
    assert_eq!(again["app"]["signingConfigs"], json!([]));
    // Plain JSON decodes exactly as rein.json.decode decodes it.
    let plain = p.json5_vs_json(r#"{"a": [1, null, {"b": []}], "c": {"d": "e"}, "f": 1.5, "g": -3}"#);
    assert_eq!(plain["same_as_json"], json!(true));
}

#[test]
fn json5_errors_say_where() {
    let p = Parsers::new();
    let out = p.json5("{\n  a: 1,\n  b: [1 2],\n}\n");
    assert_eq!(out["error"]["code"], json!("INVALID_ARGS"));
    assert_eq!(out["error"]["details"], json!({"line": 3, "column": 9}));
    let message = out["error"]["message"].as_str().unwrap();
    assert!(message.contains("line 3 column 9"), "{message}");
    assert_eq!(p.json5("")["error"]["code"], json!("INVALID_ARGS"));
}

// ---------------------------------------------------------------- aa test (Hypium)

/// A case's start block and end as aa prints them (shared/HARMONY-VERIFY.md §1.3): each
/// Hypium message starts with "\n" and aa's printf ends it with one.
fn case_start(suite: &str, index: usize, total: usize, test: &str) -> String {
    format!("\nOHOS_REPORT_STATUS: class={suite}\nOHOS_REPORT_STATUS: current={index}\nOHOS_REPORT_STATUS: id=JS\nOHOS_REPORT_STATUS: numtests={total}\nOHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test={test}\nOHOS_REPORT_STATUS_CODE: 1\n\n")
}

fn case_end(suite: &str, index: usize, total: usize, middle: &str) -> String {
    format!("\nOHOS_REPORT_STATUS: class={suite}\nOHOS_REPORT_STATUS: current={index}\nOHOS_REPORT_STATUS: id=JS\nOHOS_REPORT_STATUS: numtests={total}\n{middle}\n")
}

fn passed(test: &str, ms: u32) -> String {
    format!("OHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test={test}\nOHOS_REPORT_STATUS_CODE: 0\nOHOS_REPORT_STATUS: consuming={ms}\n")
}

fn errored(test: &str, code: i32, stack: &str, message: &str, ms: u32) -> String {
    format!("OHOS_REPORT_STATUS: stack={stack}\nOHOS_REPORT_STATUS: stream=Error in {test}, {message}\nOHOS_REPORT_STATUS: test={test}\nOHOS_REPORT_STATUS_CODE: {code}\nOHOS_REPORT_STATUS: consuming={ms}\n")
}

const FINISHED: &str =
    "TestFinished-ResultCode: 0\nTestFinished-ResultMsg: your test finished!!!\nuser test finished.\n";

fn mixed_run() -> String {
    let mut out = String::from("\nOHOS_REPORT_SUM: 2\nOHOS_REPORT_STATUS: class=ActsAbilityTest\n\n");
    out += &case_start("ActsAbilityTest", 1, 4, "passes");
    out += &case_end("ActsAbilityTest", 1, 4, &passed("passes", 3));
    out += &case_start("ActsAbilityTest", 2, 4, "asserts");
    let stack = "    at anonymous (entry/src/ohosTest/ets/test/Ability.test.ets:30:7)\n    at run (oh_modules/@ohos/hypium/index.js:12:3)";
    out += &case_end("ActsAbilityTest", 2, 4, &errored("asserts", -2, stack, "expect 1 equals 2", 7));
    out += "\nOHOS_REPORT_STATUS: class=ActsAbilityTest\nOHOS_REPORT_STATUS: suiteconsuming=10\n\n";
    out += "\nOHOS_REPORT_SUM: 2\nOHOS_REPORT_STATUS: class=MathTest\n\n";
    out += &case_start("MathTest", 3, 4, "waits");
    out += &case_end("MathTest", 3, 4, &errored("waits", -1, "", "execute timeout 5000ms", 5000));
    out += &case_start("MathTest", 4, 4, "skipped");
    out += &case_end("MathTest", 4, 4, "OHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test=skipped\nOHOS_REPORT_STATUS_CODE: -3\nOHOS_REPORT_STATUS: skipReason=not on phones\nOHOS_REPORT_STATUS: consuming=1\n");
    out += "\nOHOS_REPORT_STATUS: class=MathTest\nOHOS_REPORT_STATUS: suiteconsuming=5001\n\n";
    out += "\nOHOS_REPORT_RESULT: stream=Tests run: 4, Failure: 1, Error: 1, Pass: 1, Ignore: 1, SkipSpec: 1\nOHOS_REPORT_CODE: -1\nOHOS_REPORT_STATUS: taskconsuming=5011\n\n";
    out + FINISHED
}

fn statuses(r: &Value) -> Vec<String> {
    list(&r["tests"])
        .iter()
        .map(|t| {
            format!(
                "{}#{}={}",
                t["suite"].as_str().unwrap(),
                t["test"].as_str().unwrap(),
                t["status"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn aa_test_results_come_per_test_with_message_whole_stack_and_time() {
    let p = Parsers::new();
    let r = p.call("hypium", "parse", json!([mixed_run()]));
    assert_eq!(r["ok"], json!(false), "{r}");
    assert_eq!(r["verdict"], "failed");
    assert_eq!(
        statuses(&r),
        [
            "ActsAbilityTest#passes=passed",
            "ActsAbilityTest#asserts=failed",
            "MathTest#waits=timed out",
            "MathTest#skipped=skipped"
        ]
    );
    let tests = list(&r["tests"]);
    assert_eq!(tests[0]["time_ms"], 3);
    assert_eq!(tests[1]["message"], "expect 1 equals 2");
    // Both lines of the stack: the second came without a prefix (xdevice drops it).
    assert_eq!(
        tests[1]["stack"],
        "    at anonymous (entry/src/ohosTest/ets/test/Ability.test.ets:30:7)\n    at run (oh_modules/@ohos/hypium/index.js:12:3)"
    );
    assert_eq!(tests[2]["message"], "execute timeout 5000ms");
    assert_eq!(tests[3]["skip_reason"], "not on phones");
    assert_eq!(r["summary"], json!({"run": 4, "failure": 1, "error": 1, "pass": 1, "ignore": 1, "skip_spec": 1}));
    assert_eq!(
        r["counts"],
        json!({"total": 4, "passed": 1, "failed": 1, "error": 0, "timed_out": 1, "skipped": 1, "not_run": 0})
    );
    assert_eq!(r["ending"]["kind"], "finished");
}

#[test]
fn errors_fail_the_run_though_every_end_code_says_zero() {
    let p = Parsers::new();
    let mut out = String::from("\nOHOS_REPORT_SUM: 1\nOHOS_REPORT_STATUS: class=S\n\n");
    out += &case_start("S", 1, 1, "throws");
    out += &case_end(
        "S",
        1,
        1,
        &errored("throws", -1, "    at throws (entry/src/ohosTest/ets/test/S.test.ets:4:5)", "boom", 2),
    );
    out += "\nOHOS_REPORT_STATUS: class=S\nOHOS_REPORT_STATUS: suiteconsuming=2\n\n";
    out += "\nOHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 1, Pass: 0, Ignore: 0\nOHOS_REPORT_CODE: 0\nOHOS_REPORT_STATUS: taskconsuming=2\n\n";
    out += FINISHED;
    let r = p.call("hypium", "parse", json!([out]));
    assert_eq!((r["ok"].clone(), r["verdict"].clone()), (json!(false), json!("failed")), "{r}");
    assert_eq!(list(&r["tests"])[0]["status"], "error");
    assert_eq!(list(&r["tests"])[0]["message"], "boom");
}

#[test]
fn a_passing_run_passes_and_the_real_tail_reads() {
    let p = Parsers::new();
    let mut out = String::from("\nOHOS_REPORT_SUM: 1\nOHOS_REPORT_STATUS: class=ActsAbilityTest\n\n");
    out += &case_start("ActsAbilityTest", 1, 1, "assertContain");
    out += &case_end("ActsAbilityTest", 1, 1, &passed("assertContain", 1));
    out += "\nOHOS_REPORT_STATUS: class=ActsAbilityTest\nOHOS_REPORT_STATUS: suiteconsuming=1\n\n\nOHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 1, Ignore: 0\nOHOS_REPORT_CODE: 0\nOHOS_REPORT_STATUS: taskconsuming=1\n\n";
    out += FINISHED;
    let r = p.call("hypium", "parse", json!([out.replace('\n', "\r\n")]));
    assert_eq!(r["ok"], json!(true), "{r}");
    assert_eq!(r["message"], "all 1 tests passed (1 passed, 0 failed, 0 errors, 0 timed out, 0 skipped, 0 not run)");
    // The tail of a real run on a HarmonyOS emulator (HARMONY-VERIFY.md §1.3, OBS): no blank
    // lines, no `user test finished.`.
    let real = "OHOS_REPORT_STATUS: class=cryptoAdapterTest\nOHOS_REPORT_STATUS: current=37\nOHOS_REPORT_STATUS: test=barrel_totp_defaultProvider_generates\nOHOS_REPORT_STATUS_CODE: 0\nOHOS_REPORT_STATUS: suiteconsuming=13\nOHOS_REPORT_RESULT: stream=Tests run: 37, Failure: 0, Error: 0, Pass: 37, Ignore: 0\nOHOS_REPORT_CODE: 0\nTestFinished-ResultCode: 0\nTestFinished-ResultMsg: your test finished!!!\n";
    let r = p.call("hypium", "parse", json!([real]));
    assert_eq!(r["verdict"], "failed", "36 of the 37 counted tests are not in this tail: {r}");
    assert_eq!(list(&r["problems"])[0], "the Tests run line counts 37 tests, but 1 were reported");
}

#[test]
fn zero_tests_is_a_failure_that_says_so() {
    let p = Parsers::new();
    let out = format!("\nOHOS_REPORT_RESULT: stream=Tests run: 0, Failure: 0, Error: 0, Pass: 0, Ignore: 0\nOHOS_REPORT_CODE: 0\nOHOS_REPORT_STATUS: taskconsuming=0\n\n{FINISHED}");
    let r = p.call("hypium", "parse", json!([out]));
    assert_eq!((r["ok"].clone(), r["verdict"].clone()), (json!(false), json!("no tests")), "{r}");
    assert!(r["message"].as_str().unwrap().starts_with("no test ran"), "{r}");
}

#[test]
fn a_crash_a_deadline_and_a_lost_device_list_what_never_ran() {
    let p = Parsers::new();
    let expected = json!([{"suite": "S", "test": "a"}, {"suite": "S", "test": "b"}, {"suite": "S", "test": "c"}]);
    let mut head = String::from("\nOHOS_REPORT_SUM: 3\nOHOS_REPORT_STATUS: class=S\n\n");
    head += &case_start("S", 1, 3, "a");
    head += &case_end("S", 1, 3, &passed("a", 1));
    head += &case_start("S", 2, 3, "b");
    let died = format!("{head}TestFinished-ResultCode: -1\nTestFinished-ResultMsg: App died\nuser test finished.\n");
    let r = p.call("hypium", "parse", json!([died, expected]));
    assert_eq!(r["verdict"], "crashed", "{r}");
    assert_eq!(statuses(&r), ["S#a=passed", "S#b=error", "S#c=not run"]);
    assert_eq!(list(&r["tests"])[1]["message"], "the app died while this test ran (App died)");
    let expired = format!("{head}Timeout: user test is not completed within the specified time.\n");
    let r = p.call("hypium", "parse", json!([expired, expected]));
    assert_eq!(r["verdict"], "timed out", "{r}");
    assert_eq!(statuses(&r), ["S#a=passed", "S#b=timed out", "S#c=not run"]);
    let r = p.call(
        "hypium",
        "parse",
        json!(["TestFinished-ResultCode: -1\nTestFinished-ResultMsg: App died\nuser test finished.\n"]),
    );
    assert_eq!(r["verdict"], "crashed", "{r}");
    assert!(r["message"].as_str().unwrap().starts_with("the app died before any test ran"), "{r}");
    let r = p.call("hypium", "parse", json!([head, expected]));
    assert_eq!(r["verdict"], "incomplete", "{r}");
    assert_eq!(statuses(&r), ["S#a=passed", "S#b=not run", "S#c=not run"]);
}

#[test]
fn start_usage_and_parameter_errors_say_the_tests_did_not_start() {
    let p = Parsers::new();
    let start = "error: failed to start user test.\nError Code:10106002  Error Message:The aa start command's window option or the aa test command does not support app with release signature.\nError cause: x\n";
    let r = p.call("hypium", "parse", json!([start]));
    assert_eq!((r["verdict"].clone(), r["ending"]["code"].clone()), (json!("not started"), json!("10106002")), "{r}");
    let usage = "error: option [-w] only supports integer numbers.\nusage: aa test <options>\noptions list:\n";
    let r = p.call("hypium", "parse", json!([usage]));
    assert_eq!(r["ending"], json!({"kind": "usage_error", "message": "option [-w] only supports integer numbers."}));
    let param = "TestFinished-ResultCode: 0\nTestFinished-ResultMsg: this param timeout:abc is invalid\n\nuser test finished.\n";
    let r = p.call("hypium", "parse", json!([param]));
    assert_eq!((r["ok"].clone(), r["ending"]["kind"].clone()), (json!(false), json!("invalid_param")), "{r}");
    assert!(r["message"].as_str().unwrap().contains("this param timeout:abc is invalid"), "{r}");
}

#[test]
fn a_dry_run_lists_the_tests_from_its_pieces() {
    let p = Parsers::new();
    let json = r#"{"suites":[{"ActsAbilityTest":[{"itName":"passes"},{"itName":"asserts"}]},{"MathTest":[{"itName":"throws"}]}]}"#;
    let (a, b) = json.split_at(40);
    let out = format!(
        "{a}\n{b}\nTestFinished-ResultCode: 0\nTestFinished-ResultMsg: dry run finished!!!\nuser test finished.\n"
    );
    let r = p.call("hypium", "parse_dry_run", json!([out]));
    assert_eq!(
        r,
        json!([{"suite": "ActsAbilityTest", "test": "passes"}, {"suite": "ActsAbilityTest", "test": "asserts"}, {"suite": "MathTest", "test": "throws"}])
    );
}

#[test]
fn the_recipes_never_take_a_test_hap_for_the_modules_package() {
    let p = Parsers::new();
    let haps = json!([
        {"path": "entry/build/default/outputs/ohosTest/entry-ohosTest-signed.hap", "signed": true},
        {"path": "entry/build/default/outputs/default/entry-default-signed.hap", "signed": true},
    ]);
    let picked = p.call("deploy", "pick_hap", json!([haps, "entry", true]));
    assert_eq!(picked, "entry/build/default/outputs/default/entry-default-signed.hap");
}
