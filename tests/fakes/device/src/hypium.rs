//! Hypium, the test framework inside the test HAP, as `aa test` shows it: the `-s` keys and
//! their value rules, the filters, and the `OHOS_REPORT_*` messages it prints through the
//! delegator (shared/HARMONY-VERIFY.md §1.1, §1.3).
//!
//! Sources (`openharmony/testfwk_arkxtest` @4eea31c0 `jsunit/`): `src/Constant.js` (`KEYSET`),
//! `src/module/config/configService.js` (the value rules), `src/module/report/OhReport.js`
//! (`suiteStart`, `specStart`, `specDone`, `suiteDone`, `taskDone`, `incorrectFormat`: every
//! message starts with `\n`, and the delegator's print adds one, so blank lines interleave;
//! `specDone` prints three messages: the head, the stack or `stream=`, the code), `src/service.js`
//! (`getSummary`: Ignore = total − pass − failure − error; the 5000 ms default timeout;
//! `dryRun`). The delegator cuts a print at 10000 characters
//! (`ability_delegator.h` `DELEGATOR_PRINT_MAX_LENGTH`), Hypium a message at 9000.
//!
//! Time is the scenario's, not the clock's: a case takes its `ms` (a hang takes the timeout), so
//! a run's `-w` expiry is decided without waiting for it.

use serde_json::{json, Value};

use crate::aa_test::TestArgs;
use crate::device::Device;

const PRINT_MAX: usize = 10000;
const MESSAGE_MAX: usize = 9000;
const DEFAULT_TIMEOUT_MS: i64 = 5000;

/// What a case does when run: the device's `test_outcomes["<suite>#<test>"].status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pass,
    /// An assertion failed (`AssertException`): code -2.
    Fail,
    /// It threw: code -1.
    Error,
    /// Skipped: code -3.
    Skip,
    /// It never returns: Hypium ends it at the timeout, code -1 `execute timeout <ms>ms`.
    Hang,
    /// The app's process dies while it runs: aa ends the run with `App died`.
    Crash,
}

#[derive(Debug, Clone)]
pub struct Spec {
    pub suite: String,
    pub test: String,
    level: Option<String>,
    size: Option<String>,
    test_type: Option<String>,
    pub kind: Kind,
    pub message: Option<String>,
    /// `expect(…).message(m)`: the stream then starts `message: <m>, `.
    expect_message: Option<String>,
    error_name: Option<String>,
    stack: Option<Vec<String>>,
    /// Where the case is declared (the fake compiler's record): the default stack's frame.
    file: Option<String>,
    line: Option<i64>,
    ms: i64,
    skip_reason: String,
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(|v| v.as_str().map(String::from).or_else(|| v.as_i64().map(|n| n.to_string())))
}

impl Spec {
    /// A declared case (`{suite, test, level?, size?, testType?, file?, line?}`) with what the
    /// device's `test_outcomes` scripts for it; a case nobody scripted passes in 1 ms.
    pub fn of(declared: &Value, device: &Device) -> Spec {
        let suite = text(declared, "suite").unwrap_or_default();
        let test = text(declared, "test").unwrap_or_default();
        let scripted = device.flag("test_outcomes").get(format!("{suite}#{test}")).cloned().unwrap_or(json!({}));
        let kind = match scripted.get("status").and_then(Value::as_str).unwrap_or("pass") {
            "fail" => Kind::Fail,
            "error" => Kind::Error,
            "skip" => Kind::Skip,
            "hang" => Kind::Hang,
            "crash" => Kind::Crash,
            _ => Kind::Pass,
        };
        let stack = scripted
            .get("stack")
            .and_then(Value::as_array)
            .map(|lines| lines.iter().filter_map(Value::as_str).map(String::from).collect());
        Spec {
            level: text(declared, "level"),
            size: text(declared, "size"),
            test_type: text(declared, "testType"),
            kind,
            message: text(&scripted, "message"),
            expect_message: text(&scripted, "expect_message"),
            error_name: text(&scripted, "error_name"),
            stack,
            file: text(declared, "file"),
            line: declared.get("line").and_then(Value::as_i64),
            ms: scripted.get("ms").and_then(Value::as_i64).unwrap_or(1),
            skip_reason: text(&scripted, "reason").unwrap_or_default(),
            suite,
            test,
        }
    }

    pub fn crash_name(&self) -> String {
        self.error_name.clone().unwrap_or_else(|| "TypeError".into())
    }

    /// The error's message as Hypium reports it. The defaults are GUESSES in Hypium's words:
    /// `assertEqual`'s `expect <actual> equals <expected>`, a TypeError's V8-style text.
    fn error_message(&self, timeout_ms: i64) -> String {
        match (self.kind, &self.message) {
            (Kind::Hang, _) => format!("execute timeout {timeout_ms}ms"),
            (_, Some(message)) => message.clone(),
            (Kind::Fail, None) => "expect false equals true".into(),
            _ => "Cannot read property 'length' of undefined".into(),
        }
    }

    /// `error.stack` without its last newline: the scripted lines, else one frame at the case's
    /// declaration (GUESS: the path form; a timeout's error has none).
    fn stack_text(&self) -> String {
        if let Some(lines) = &self.stack {
            return lines.join("\n");
        }
        match (self.kind, &self.file) {
            (Kind::Hang, _) | (_, None) => String::new(),
            (_, Some(file)) => format!("    at anonymous ({file}:{}:7)", self.line.unwrap_or(1)),
        }
    }
}

/// How a run ended.
pub enum Outcome {
    /// Hypium called `finishTest(<message>, 0)`.
    Finished(String),
    /// The app died while this case ran.
    Crashed(Box<Spec>),
    /// `-w`'s seconds passed before the run finished.
    Expired,
}

/// `configService`'s rule for a key's value; false means `this param <key>:<value> is invalid`.
fn valid(key: &str, value: &str) -> bool {
    let boolean = |v: &str| v == "true" || v == "false";
    let class_entry = |e: &str| {
        let mut chars = e.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || "_#,.".contains(c))
    };
    match key {
        "level" => ["0", "1", "2", "3", "4"].contains(&value),
        "size" => ["small", "medium", "large"].contains(&value),
        "testType" => [
            "function",
            "performance",
            "power",
            "reliability",
            "security",
            "global",
            "compatibility",
            "user",
            "standard",
            "safety",
            "resilience",
        ]
        .contains(&value),
        "timeout" => !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()),
        "dryRun" | "random" | "breakOnError" | "coverage" | "skipMessage" | "snapshotWhenFail" => boolean(value),
        "class" | "notClass" => value.split(',').all(class_entry),
        "tag" => value.chars().all(|c| c.is_ascii_alphanumeric() || ", +".contains(c)),
        _ => true,
    }
}

/// `-s class`/`notClass`: `suite` or `suite#it`, comma-separated.
fn named_by(list: &str, spec: &Spec) -> bool {
    list.split(',').any(|entry| match entry.split_once('#') {
        Some((suite, test)) => suite == spec.suite && test == spec.test,
        None => entry == spec.suite,
    })
}

fn selected(spec: &Spec, args: &TestArgs) -> bool {
    let attribute = |key: &str, own: &Option<String>| args.param(key).is_none_or(|v| own.as_deref() == Some(v));
    args.param("class").is_none_or(|list| named_by(list, spec))
        && args.param("notClass").is_none_or(|list| !named_by(list, spec))
        && args.param("itName").is_none_or(|list| list.split(',').any(|name| name == spec.test))
        && attribute("level", &spec.level)
        && attribute("size", &spec.size)
        && attribute("testType", &spec.test_type)
}

/// `SysTestKit.print` → `AbilityDelegator.print` → aa's `printf("%s\n")`.
fn print(out: &mut String, message: &str) {
    let cut: String = message.chars().take(PRINT_MAX).collect();
    out.push_str(&cut);
    out.push('\n');
}

/// Runs `specs` as Hypium runs the suites of List.test.ets, printing as it goes.
pub fn run(specs: &[Spec], args: &TestArgs, deadline_ms: Option<i64>, out: &mut String) -> Outcome {
    let keys = ["class", "notClass", "itName", "level", "size", "testType", "timeout", "dryRun", "random"];
    let more = ["breakOnError", "coverage", "skipMessage", "snapshotWhenFail", "tag"];
    if let Some((key, value)) =
        args.params.iter().find(|(k, v)| keys.iter().chain(&more).any(|known| known == k) && !valid(k, v))
    {
        return Outcome::Finished(format!("this param {key}:{value} is invalid\n"));
    }
    let chosen: Vec<&Spec> = specs.iter().filter(|s| selected(s, args)).collect();
    if args.param("dryRun") == Some("true") {
        return dry_run(&chosen, out);
    }
    let timeout_ms = args.param("timeout").and_then(|t| t.parse().ok()).unwrap_or(DEFAULT_TIMEOUT_MS);
    let total = chosen.len();
    let (mut pass, mut failure, mut error, mut skipped, mut elapsed, mut index) = (0, 0, 0, 0, 0i64, 0);
    let mut at = 0;
    while at < chosen.len() {
        let suite = &chosen[at].suite;
        let cases: Vec<&Spec> = chosen[at..].iter().take_while(|s| &s.suite == suite).copied().collect();
        at += cases.len();
        print(out, &format!("\nOHOS_REPORT_SUM: {}\nOHOS_REPORT_STATUS: class={suite}\n", cases.len()));
        let mut suite_ms = 0;
        for spec in cases {
            index += 1;
            let head = format!(
                "\nOHOS_REPORT_STATUS: class={suite}\nOHOS_REPORT_STATUS: current={index}\nOHOS_REPORT_STATUS: id=JS\nOHOS_REPORT_STATUS: numtests={total}"
            );
            print(
                out,
                &format!(
                    "{head}\nOHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test={}\nOHOS_REPORT_STATUS_CODE: 1\n",
                    spec.test
                ),
            );
            if spec.kind == Kind::Crash {
                return Outcome::Crashed(Box::new(spec.clone()));
            }
            let ms = if spec.kind == Kind::Hang { timeout_ms } else { spec.ms };
            if deadline_ms.is_some_and(|d| elapsed + ms > d) {
                return Outcome::Expired;
            }
            elapsed += ms;
            suite_ms += ms;
            print(out, &head);
            let (stack, code) = spec_end(spec, timeout_ms, ms);
            print(out, &stack);
            print(out, &code);
            match spec.kind {
                Kind::Pass => pass += 1,
                Kind::Fail => failure += 1,
                Kind::Skip => skipped += 1,
                Kind::Error | Kind::Hang | Kind::Crash => error += 1,
            }
        }
        if deadline_ms.is_some_and(|d| elapsed > d) {
            return Outcome::Expired;
        }
        print(out, &format!("\nOHOS_REPORT_STATUS: class={suite}\nOHOS_REPORT_STATUS: suiteconsuming={suite_ms}\n"));
    }
    let ignore = total - pass - failure - error;
    let skip_spec = if skipped > 0 { format!(", SkipSpec: {skipped}") } else { String::new() };
    print(
        out,
        &format!(
            "\nOHOS_REPORT_RESULT: stream=Tests run: {total}, Failure: {failure}, Error: {error}, Pass: {pass}, Ignore: {ignore}{skip_spec}\nOHOS_REPORT_CODE: {}\nOHOS_REPORT_STATUS: taskconsuming={elapsed}\n",
            if failure > 0 { -1 } else { 0 }
        ),
    );
    Outcome::Finished("your test finished!!!".into())
}

/// `specDone`'s second and third messages: the stack (or `stream=`), then the code lines.
fn spec_end(spec: &Spec, timeout_ms: i64, ms: i64) -> (String, String) {
    let test = &spec.test;
    let code = match spec.kind {
        Kind::Pass => 0,
        Kind::Fail => -2,
        Kind::Skip => -3,
        Kind::Error | Kind::Hang | Kind::Crash => -1,
    };
    if matches!(spec.kind, Kind::Pass | Kind::Skip) {
        let reason = if spec.kind == Kind::Skip {
            format!("OHOS_REPORT_STATUS: skipReason={}\n", spec.skip_reason)
        } else {
            String::new()
        };
        let lines = format!("OHOS_REPORT_STATUS: test={test}\nOHOS_REPORT_STATUS_CODE: {code}\n{reason}OHOS_REPORT_STATUS: consuming={ms}\n");
        return ("OHOS_REPORT_STATUS: stream=".into(), lines);
    }
    let message: String = spec.error_message(timeout_ms).chars().take(MESSAGE_MAX).collect();
    let stream = match &spec.expect_message {
        Some(m) => format!("message: {m}, Error in {test}, {message}"),
        None => format!("Error in {test}, {message}"),
    };
    let lines = format!(
        "OHOS_REPORT_STATUS: stream={stream}\nOHOS_REPORT_STATUS: test={test}\nOHOS_REPORT_STATUS_CODE: {code}\nOHOS_REPORT_STATUS: consuming={ms}\n"
    );
    (format!("OHOS_REPORT_STATUS: stack={}", spec.stack_text()), lines)
}

/// `-s dryRun true`: the suites as JSON, printed in raw 500-character pieces, and no case run
/// (the shape `{"suites":[{"<class>":[{"itName":"<test>"}]}]}` is the sheet's GUESS from
/// service.js and xdevice's reader).
fn dry_run(chosen: &[&Spec], out: &mut String) -> Outcome {
    let mut suites: Vec<(String, Vec<Value>)> = Vec::new();
    for spec in chosen {
        match suites.last_mut() {
            Some((name, tests)) if *name == spec.suite => tests.push(json!({"itName": spec.test})),
            _ => suites.push((spec.suite.clone(), vec![json!({"itName": spec.test})])),
        }
    }
    let list: Vec<Value> = suites.into_iter().map(|(name, tests)| json!({ name: tests })).collect();
    let text = json!({ "suites": list }).to_string();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(500) {
        print(out, &piece.iter().collect::<String>());
    }
    Outcome::Finished("dry run finished!!!".into())
}
