//! One word for the policy, one for the device: with the real hdc (client, server and `hdcd -t`,
//! `REIN_REAL_HDC_DIR`, run as `../shared/toolchain/hdc/README.md` says: a private network
//! namespace with only loopback, the server on a private port with a private TMPDIR), each
//! device command is sent twice — straight through hdc, and through rein. The device's
//! commands are stand-ins that print the arguments they got. Whatever rein lets run reaches
//! the device as exactly the words the policy judged; whatever hdc would split or re-quote
//! differently (the issue's `hdc shell date "+%s 010100002020"` passed as one word, a quote, an
//! empty word, a `$`, a backslash, a tab, a lone single quote) is refused, and hdc alone shows why.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{output_within, real_tools, Workspace, REIN};

/// Device commands that print their arguments between BEGIN and END, one per line.
const DEVICE_COMMANDS: [&str; 4] = ["date", "pidof", "hidumper", "param"];

/// Device commands as arguments of `hdc shell`, and whether rein runs them.
const CASES: &[(&[&str], bool)] = &[
    (&["date", "+%s 010100002020"], true),
    (&["date +%s 010100002020"], false),
    (&["date", "\"+%s\""], false),
    (&["'date'"], false),
    (&["date", ""], false),
    (&["hidumper", "-s", "1201", "-a", "-p Faultlogger -m com.example.hello"], true),
    (&["hidumper -s", "1201", "-a", "-p Faultlogger"], false),
    (&["pidof", "com.example.hello"], true),
    (&["param", "get", "const.ohos.apiversion"], true),
    (&["date", "+%s $HOME"], false),
    (&["date", "$HOME"], false),
    (&["date", "a\\b"], false),
    (&["date", "+%s\t010100002020"], false),
    (&["param", "get", "it's"], false),
];

/// `word` single-quoted for sh.
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The script run in the private network: the stack, then each case straight through hdc and
/// through rein, each answer in its own file under `dir`.
fn script(dir: &Path, hdc_dir: &Path, ws: &Workspace) -> String {
    let mut text = format!(
        r#"set -eu
R={dir}
ip link set lo up
export HOME=$R/home
printf 'persist.hdc.port=27777\n' > $R/hdcd.para
(cd $R/device && HDCD_PARAM_FILE=$R/hdcd.para TMPDIR=$R/dtmp PATH=$R/devbin:$PATH exec timeout 300 {hdc_dir}/hdcd -t) >/dev/null 2>&1 &
D=$!
(TMPDIR=$R/htmp exec timeout 300 {hdc_dir}/hdc -s 127.0.0.1:27710 -m) >/dev/null 2>&1 &
S=$!
trap 'kill $D $S 2>/dev/null || true' EXIT
export OHOS_HDC_SERVER_PORT=27710 TMPDIR=$R/htmp
connected=no
for i in $(seq 1 150); do
  {hdc_dir}/hdc tconn 127.0.0.1:27777 >/dev/null 2>&1 || true
  if {hdc_dir}/hdc list targets -v 2>/dev/null | grep -q Connected; then connected=yes; break; fi
  sleep 0.2
done
[ $connected = yes ] || {{ echo 'the real hdc stack did not connect within 30 s' >&2; exit 3; }}
"#,
        dir = dir.display(),
        hdc_dir = hdc_dir.display()
    );
    for (n, (args, _)) in CASES.iter().enumerate() {
        let words: Vec<String> = args.iter().map(|a| quoted(a)).collect();
        let argv: Vec<&str> = ["shell"].iter().chain(args.iter()).copied().collect();
        let payload = json!({"program": "hdc", "args": argv});
        std::fs::write(dir.join(format!("case-{n}.json")), payload.to_string()).unwrap();
        text.push_str(&format!(
            "{hdc_dir}/hdc shell {words} > $R/direct-{n}.txt 2>&1 || true\n\
             {REIN} --workspace {ws} --home {home} --json call run - < $R/case-{n}.json > $R/rein-{n}.json 2>$R/rein-{n}.err || true\n",
            hdc_dir = hdc_dir.display(),
            words = words.join(" "),
            ws = ws.ws.display(),
            home = ws.home.display()
        ));
    }
    text
}

/// The arguments a device command printed (between BEGIN and END), or None.
fn device_argv(output: &str) -> Option<Vec<String>> {
    let output = output.replace("\r\n", "\n");
    let (_, after) = output.split_once("BEGIN\n")?;
    let (args, _) = after.split_once("END")?;
    Some(args.lines().map(str::to_string).collect())
}

#[test]
fn the_policy_judges_exactly_the_words_the_real_device_shell_gets() {
    let Some(hdc_dir) = real_tools::hdc_dir("hdc_quoting") else { return };
    if !std::process::Command::new("unshare").args(["-n", "true"]).status().is_ok_and(|s| s.success()) {
        return real_tools::unavailable("hdc_quoting", "a private network namespace (`unshare -n`, as root)");
    }
    let ws = Workspace::new();
    let dir = ws.root.join("rig");
    for sub in ["device", "dtmp", "htmp", "home", "devbin"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for command in DEVICE_COMMANDS {
        let path = dir.join("devbin").join(command);
        std::fs::write(&path, "#!/bin/sh\necho BEGIN\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\necho END\n")
            .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = \"{}\"\n", hdc_dir.join("hdc").display()))
        .unwrap();
    ws.file(
        "tools/run.lua",
        "return { name = 'run', description = 'runs a program', params = { program = { type = 'string' }, args = { type = 'array', items = { type = 'string' } } }, run = function(a) return rein.proc.run(a.program, a.args) end }",
    );
    std::fs::write(dir.join("rig.sh"), script(&dir, &hdc_dir, &ws)).unwrap();
    let mut unshare = std::process::Command::new("unshare");
    unshare.args(["-n", "sh"]).arg(dir.join("rig.sh"));
    let ran = output_within(&mut unshare, None, Duration::from_secs(240));
    assert!(ran.status.success(), "the rig: {}", String::from_utf8_lossy(&ran.stderr));
    for (n, (args, runs)) in CASES.iter().enumerate() {
        let printed = std::fs::read_to_string(dir.join(format!("direct-{n}.txt"))).unwrap();
        // None: the device shell ran no command at all (a syntax error).
        let direct = device_argv(&printed);
        let rein: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(format!("rein-{n}.json"))).unwrap())
            .unwrap_or_else(|e| panic!("rein's answer to {args:?}: {e}"));
        let given: Vec<String> = args[1..].iter().map(|a| a.to_string()).collect();
        let judged =
            direct.as_ref() == Some(&given) && args[0].split(' ').count() == 1 && !args[0].contains(['"', '\'']);
        assert_eq!(judged, *runs, "hdc shell {args:?}: the device got {direct:?} ({printed})");
        if *runs {
            let stdout = rein["result"]["stdout"].as_str().unwrap_or_else(|| panic!("rein ran {args:?}: {rein}"));
            assert_eq!(device_argv(stdout), Some(given), "through rein, hdc shell {args:?}: {rein}");
        } else {
            let code = rein["error"]["code"].as_str().unwrap_or_default();
            assert!(code == "APPROVAL_DENIED" || code == "INVALID_ARGS", "rein refuses hdc shell {args:?}: {rein}");
        }
    }
}
