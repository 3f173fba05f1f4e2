//! One word for the policy, one for the device: on the rig (`common/rig.rs`: the real hdc
//! client, server and `hdcd -t` built from OpenHarmony's sources, the device's commands
//! recording the argv they get), each device command is sent twice — straight through the real
//! hdc, as a person would type it, and through rein. Whatever rein lets run reaches the device
//! as exactly the words the policy judged; whatever hdc would split or re-quote differently
//! (the issue's `hdc shell date "+%s 010100002020"` passed as one word, a quote, an empty word,
//! a `$`, a backslash, a tab, a lone single quote) is refused, and the real hdc alone shows why.

use serde_json::{json, Value};

use crate::common::lab::Lab;
use crate::common::rig::{rig_lab, Rig};

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

/// The words (command, then its argv) of the first device command the rig's device ran after
/// the first `before` calls of the lab; None when it ran none (the device shell refused the
/// line).
fn device_words_since(lab: &Lab, before: usize) -> Option<Vec<String>> {
    let calls = lab.calls();
    let call = calls.iter().skip(before).find(|c| c.get("device").is_some())?;
    let argv = call["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string());
    Some(std::iter::once(call["program"].as_str().unwrap().to_string()).chain(argv).collect())
}

/// `hdc shell ARGS` straight through the real client: what the device ran.
fn direct(lab: &Lab, rig: &Rig, args: &[&str]) -> Option<Vec<String>> {
    let before = lab.calls().len();
    let argv: Vec<&str> = ["shell"].iter().chain(args).copied().collect();
    rig.hdc(&argv);
    device_words_since(lab, before)
}

/// `hdc shell ARGS` through rein (a project tool handing them to `rein.proc.run`): rein's
/// answer, and what the device ran.
fn through_rein(lab: &Lab, args: &[&str]) -> (Value, Option<Vec<String>>) {
    let before = lab.calls().len();
    let argv: Vec<&str> = ["shell"].iter().chain(args).copied().collect();
    let (_, answer) = lab.call(&[], "run", json!({"program": "hdc", "args": argv}));
    (answer, device_words_since(lab, before))
}

#[test]
fn the_policy_judges_exactly_the_words_the_real_device_shell_gets() {
    let Some((lab, rig)) = rig_lab() else { return };
    std::fs::create_dir_all(lab.ws.path("tools")).unwrap();
    std::fs::write(
        lab.ws.path("tools/run.lua"),
        "return { name = 'run', description = 'runs a program', params = { program = { type = 'string' }, args = { type = 'array', items = { type = 'string' } } }, run = function(a) return rein.proc.run(a.program, a.args) end }",
    )
    .unwrap();
    for (args, runs) in CASES {
        let given: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        // The real hdc is the judge: whether the device gets the words as given.
        let device = direct(&lab, &rig, args);
        let as_given = device.as_ref() == Some(&given);
        assert_eq!(as_given, *runs, "hdc shell {args:?}: the device ran {device:?}");
        let (answer, device) = through_rein(&lab, args);
        if *runs {
            assert_eq!(answer["ok"], json!(true), "rein runs hdc shell {args:?}: {answer}");
            assert_eq!(device, Some(given), "through rein, hdc shell {args:?}: {answer}");
        } else {
            let code = answer["error"]["code"].as_str().unwrap_or_default();
            assert!(code == "APPROVAL_DENIED" || code == "INVALID_ARGS", "rein refuses hdc shell {args:?}: {answer}");
            assert_eq!(device, None, "nothing reached the device for {args:?}");
        }
    }
}
