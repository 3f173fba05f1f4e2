//! The Python fake hdc stays for what the rig cannot show (an unauthorized or offline USB
//! device, a channel still being set up …). Where both can answer, the fake must print what the
//! real hdc printed: the same commands go to the rig and to the fake, with an equal device, and
//! the answers are compared byte for byte, after replacing only what is measured or timed
//! (`time:…ms rate:…kB/s`, the client's log time stamps).

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::lab::{fakes_bin, fakes_path};
use crate::common::rig::rig_lab;

const SIGNED: &str = "entry/build/default/outputs/default/entry-default-signed.hap";
const UNSIGNED: &str = "entry/build/default/outputs/default/entry-default-unsigned.hap";

/// Measured figures and time stamps, which differ from run to run; line ends (`\r\n` or `\n`)
/// are kept.
fn steady(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            let mut line = line.to_string();
            if let Some(at) = line.find(", time:") {
                let end = line[at..].find("kB/s").map(|e| at + e + 4).unwrap_or(line.len());
                line.replace_range(at..end, ", time:<ms> rate:<rate>");
            }
            if line.starts_with("[F][") {
                if let Some(end) = line.find("] ") {
                    line.replace_range(3..end + 1, "<time>]");
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// After `[Fail]Not match target founded` the real server may also print the message of its
/// command dispatcher's default case, depending on when the client hangs up
/// (`server_for_client.cpp`: `EchoClient` then `return nullptr`, and the dispatcher's
/// `default:`); seen both ways. The fake prints the first line, which is what hdc means.
fn server_falls_through(real: &str, fake: &str) -> bool {
    real.strip_prefix(fake) == Some("[Fail]ExecuteCommand need connect-key? please confirm a device by help info\r\n")
}

fn fake_hdc(state: &Path, cwd: &Path, args: &[&str]) -> String {
    let out = Command::new(fakes_bin().join("hdc"))
        .args(args)
        .current_dir(cwd)
        .env("PATH", fakes_path())
        .env("REIN_FAKE_STATE", state)
        .output()
        .expect("run the fake hdc");
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn the_fake_hdc_prints_what_the_real_hdc_printed() {
    let Some((lab, rig)) = rig_lab() else { return };
    lab.build();
    // Not the lab's state directory: the rig's device keeps its state there, under the same key.
    let fake_state = lab.ws.root.join("compare-state");
    std::fs::create_dir_all(&fake_state).unwrap();
    std::fs::write(
        fake_state.join("devices.json"),
        json!([{"key": rig.key, "conn": "TCP", "name": "rig-a"}]).to_string(),
    )
    .unwrap();
    std::fs::write(lab.ws.path("note.txt"), "a file to send\n").unwrap();
    std::fs::write(lab.ws.path("not-a-package.txt"), "text\n").unwrap();
    std::fs::create_dir_all(lab.ws.path(".rein-received")).unwrap();
    let key = rig.key.as_str();
    let commands: Vec<Vec<&str>> = vec![
        vec!["version"],
        vec!["checkserver"],
        vec!["list", "targets"],
        vec!["list", "targets", "-v"],
        vec!["tconn", key],
        vec!["tconn", "1.2.3:5"],
        vec!["fport", "ls"],
        vec!["-t", "NOPE", "shell", "echo"],
        vec!["shell", "echo", "a  b", "c"],
        vec!["shell", "echo a  b"],
        vec!["shell", "echo a", "b c"],
        vec!["shell", "-x"],
        vec!["-t", key, "shell", "bm", "get", "-u"],
        vec!["shell", "aa", "start", "-a", "EntryAbility", "-b", "com.example.hello"],
        vec!["shell", "param", "get", "const.ohos.apiversion"],
        vec!["shell", "pidof", "com.example.hello"],
        vec!["shell", "snapshot_display", "-f", "/data/local/tmp/compare.jpeg"],
        vec!["file", "recv", "/data/local/tmp/compare.jpeg", "shot.jpeg"],
        vec!["file", "recv", "/data/local/tmp/none.jpeg", "none.jpeg"],
        vec!["shell", "uitest", "dumpLayout", "-p", "/data/local/tmp/layout.json"],
        vec!["file", "recv", "/data/local/tmp/layout.json", "layout.json"],
        // The UI evidence's round: rein's scratch name, the transit folder, the removal.
        vec!["shell", "uitest", "dumpLayout", "-p", "/data/local/tmp/rein-ui-1.json", "-b", "com.example.hello"],
        vec!["file", "recv", "/data/local/tmp/rein-ui-1.json", ".rein-received/rein-ui-1.json"],
        vec!["shell", "rm", "-f", "/data/local/tmp/rein-ui-1.json"],
        vec!["file", "recv", "/data/local/tmp/rein-ui-1.json", ".rein-received/rein-ui-2.json"],
        vec!["file", "recv", "/data/local/tmp/compare.jpeg", "no/such/folder/x.jpeg"],
        vec!["file", "send", "note.txt", "/data/local/tmp/note.txt"],
        vec!["file", "send", "note.txt", "/data/local/nofolder/note.txt"],
        vec!["file", "send", "missing.txt", "/data/local/tmp/missing.txt"],
        vec!["install", "-r", UNSIGNED],
        vec!["install", "-r", SIGNED],
        vec!["install", SIGNED],
        vec!["install", "-r", "missing.hap"],
        vec!["install", "-r", "not-a-package.txt"],
        vec!["uninstall", "com.example.hello"],
        vec!["uninstall", "com.example.hello"],
        vec!["shell", "hilog", "-x", "-T", "nobody"],
        // aa test's usage error and start failure (no test module is installed here): the
        // blank-line-laden run itself is compared by rig_real_hdc's device_test run.
        vec!["shell", "aa", "test", "-b", "com.example.hello", "-w", "1.5"],
        vec!["shell", "aa", "test", "-b", "com.none", "-m", "entry_test", "-s", "unittest", "OpenHarmonyTestRunner"],
    ];
    let mut differ = Vec::new();
    for args in &commands {
        let real = steady(&rig.hdc_in(&lab.ws.ws, args));
        let fake = steady(&fake_hdc(&fake_state, &lab.ws.ws, args));
        if real != fake && !server_falls_through(&real, &fake) {
            differ.push(format!("hdc {}\n  real: {real:?}\n  fake: {fake:?}", args.join(" ")));
        }
    }
    assert!(differ.is_empty(), "the fake hdc differs from the real one:\n{}", differ.join("\n"));
}
