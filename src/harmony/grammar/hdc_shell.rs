//! What `hdc shell` may run on a device: an allow-list of exact command shapes with typed
//! values. Probes that only read are allowed; commands that change the device ask; every
//! other command is refused unless a person's rule names it exactly. The command line is read
//! by the strict shell-word reader first, so syntax never reaches the table.

use super::values::Kind;
use super::values::{Captured, Opt, Part, Shape};
use crate::harmony::project::ProjectFacts;
use crate::kernel::policy::shapes::{Effect, Verdict};

const HILOG_FILTERS: [Opt; 6] = [
    Opt { flag: "-T", value: Some(Kind::Tags), required: false },
    Opt { flag: "-D", value: Some(Kind::Domain), required: false },
    Opt { flag: "-P", value: Some(Kind::Number), required: false },
    Opt { flag: "-L", value: Some(Kind::Levels), required: false },
    Opt { flag: "-t", value: Some(Kind::LogTypes), required: false },
    Opt { flag: "-z", value: Some(Kind::Number), required: false },
];

const fn hilog_dump(first: Opt) -> [Opt; 7] {
    [first, HILOG_FILTERS[0], HILOG_FILTERS[1], HILOG_FILTERS[2], HILOG_FILTERS[3], HILOG_FILTERS[4], HILOG_FILTERS[5]]
}

/// `hilog -x` dumps the buffer and exits; the filters only narrow what is shown. Every hilog
/// option that changes settings or buffers (`-r`, `-b`, `-G`, `-k`, `-p`, `-Q`, `-w`, `-S`) is
/// absent (`hiviewdfx_hilog` services/hilogtool/main.cpp, `optEntries`).
const HILOG: [Opt; 7] = hilog_dump(Opt { flag: "-x", value: None, required: true });

/// What `aa test` takes after `-b` and `-m`: the runner, Hypium's `-s` keys rein passes, each
/// with its value rule, and `-w`, the run's deadline in seconds (shared/HARMONY-VERIFY.md §1.1).
const AA_TEST_RUN: [Opt; 10] = [
    Opt { flag: "-s unittest", value: Some(Kind::TestRunner), required: true },
    Opt { flag: "-s class", value: Some(Kind::TestClasses), required: false },
    Opt { flag: "-s notClass", value: Some(Kind::TestClasses), required: false },
    Opt { flag: "-s itName", value: Some(Kind::TestNames), required: false },
    Opt { flag: "-s level", value: Some(Kind::TestLevel), required: false },
    Opt { flag: "-s size", value: Some(Kind::TestSize), required: false },
    Opt { flag: "-s testType", value: Some(Kind::TestType), required: false },
    Opt { flag: "-s timeout", value: Some(Kind::Number), required: false },
    Opt { flag: "-s dryRun", value: Some(Kind::Switch), required: false },
    Opt { flag: "-w", value: Some(Kind::Number), required: false },
];

/// `-D`: the app waits for a debugger (ability_command.cpp `debugApp`).
const DEBUG: Opt = Opt { flag: "-D", value: None, required: false };

/// `-b`, `-m`, [`AA_TEST_RUN`], then `-D`.
const fn aa_test(bundle: Kind, module: Kind) -> [Opt; 13] {
    let mut all = [DEBUG; 13];
    all[0] = Opt { flag: "-b", value: Some(bundle), required: true };
    all[1] = Opt { flag: "-m", value: Some(module), required: true };
    let mut i = 0;
    while i < AA_TEST_RUN.len() {
        all[i + 2] = AA_TEST_RUN[i];
        i += 1;
    }
    all
}

const AA_TEST_OWN_AND_DEBUG: [Opt; 13] = aa_test(Kind::TestBundle, Kind::TestModule);
/// The project's own tests (its bundle, one of its modules' test module), without `-D`: they
/// run in the app the person let rein install, so they run unasked.
const AA_TEST_OWN: &[Opt] = AA_TEST_OWN_AND_DEBUG.split_at(12).0;
/// Any bundle's test module, or `-D`: a person decides.
const AA_TEST_ANY: [Opt; 13] = aa_test(Kind::Bundle, Kind::Name);

/// Whether the values an `aa test` shape captured are the project's: its bundle and one of its
/// modules' `<module>_test`. Other shapes capture neither and pass.
pub fn of_project(captured: &[Captured], project: &ProjectFacts) -> bool {
    captured.iter().all(|c| match c.kind {
        Kind::TestBundle => project.is_bundle(&c.value),
        Kind::TestModule => project.is_test_module(&c.value),
        _ => true,
    })
}

pub const SHAPES: &[Shape] = &[
    // The project's tests, run by Hypium in its test module (ability_command.cpp
    // `RunAsTestCommand`); another bundle or module than the project's asks (hdc.rs). A test may
    // change or remove what the app keeps, so it replaces as far as annotations go.
    Shape {
        parts: &[Part::Word("aa"), Part::Word("test"), Part::Options(AA_TEST_OWN)],
        verdict: Verdict::Allow,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("aa"), Part::Word("test"), Part::Options(&AA_TEST_ANY)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape { parts: &[Part::Word("hilog"), Part::Options(&HILOG)], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape {
        parts: &[Part::Word("bm"), Part::Word("dump"), Part::Word("-n"), Part::Value(Kind::Bundle)],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape {
        parts: &[Part::Word("bm"), Part::Word("dump"), Part::Word("-a")],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape {
        parts: &[Part::Word("bm"), Part::Word("get"), Part::Word("-u")],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape {
        parts: &[Part::Word("aa"), Part::Word("dump"), Part::Word("-a")],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape {
        parts: &[Part::Word("aa"), Part::Word("dump"), Part::Word("-l")],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape { parts: &[Part::Word("pidof"), Part::Value(Kind::Bundle)], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape {
        parts: &[Part::Word("param"), Part::Word("get"), Part::Value(Kind::Param)],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape { parts: &[Part::Word("date")], verdict: Verdict::Allow, effect: Effect::Reads },
    // hiview's history of RELIABILITY events (crashes, freezes) since a time: it only reads
    // (`hiviewdfx_hisysevent` frameworks/native/hisysevent_tool.cpp; `-r` would subscribe and
    // never end, so it is absent).
    Shape {
        parts: &[
            Part::Word("hisysevent"),
            Part::Word("-l"),
            Part::Word("-o"),
            Part::Word("RELIABILITY"),
            Part::Word("-S"),
            Part::Value(Kind::EventTime),
        ],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    // The lock screen's state (`theme_screenlock_mgr` services/src/screenlock_system_ability.cpp
    // `RegisterDumpCommand`): it only reads.
    Shape {
        parts: &[
            Part::Word("hidumper"),
            Part::Word("-s"),
            Part::Word("ScreenlockService"),
            Part::Word("-a"),
            Part::Word("-all"),
        ],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    // Turns the screen on, as the power key does (`powermgr_power_manager`
    // utils/shell/src/power_shell_command.cpp `RunAsWakeupCommand`); nothing else changes.
    Shape { parts: &[Part::Word("power-shell"), Part::Word("wakeup")], verdict: Verdict::Allow, effect: Effect::Adds },
    // The screen-off timeout a recipe overrides while it works and restores after (`-r` gives
    // back the device's own setting): the screen stays lit, nothing else changes, so it is not
    // asked on top of the install or launch it serves.
    Shape {
        parts: &[Part::Word("power-shell"), Part::Word("timeout"), Part::Word("-o"), Part::Value(Kind::Number)],
        verdict: Verdict::Allow,
        effect: Effect::Adds,
    },
    Shape {
        parts: &[Part::Word("power-shell"), Part::Word("timeout"), Part::Word("-r")],
        verdict: Verdict::Allow,
        effect: Effect::Adds,
    },
    Shape {
        parts: &[Part::Word("date"), Part::Value(Kind::DateFormat)],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    // hiview's Faultlogger plugin lists and prints fault logs; only these queries, which read.
    Shape {
        parts: &[
            Part::Word("hidumper"),
            Part::Word("-s"),
            Part::Word("1201"),
            Part::Word("-a"),
            Part::Value(Kind::FaultLogQuery),
        ],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape {
        parts: &[
            Part::Word("aa"),
            Part::Word("start"),
            Part::Options(&[
                // -W waits until the ability is in the foreground (ability_command.cpp
                // StartAbilityWithWait); an aa without it answers "fail: unknown option.".
                Opt { flag: "-W", value: None, required: false },
                Opt { flag: "-a", value: Some(Kind::Name), required: true },
                Opt { flag: "-b", value: Some(Kind::Bundle), required: true },
                Opt { flag: "-m", value: Some(Kind::Name), required: false },
            ]),
        ],
        verdict: Verdict::Ask,
        effect: Effect::Adds,
    },
    Shape {
        parts: &[Part::Word("aa"), Part::Word("force-stop"), Part::Value(Kind::Bundle)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("snapshot_display"), Part::Word("-f"), Part::Value(Kind::DeviceTmpFile)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    // The UI tree of what is on screen, written to one of rein's scratch names (never uitest's
    // default `layout_<time>.json`, which nothing would remove). It only reads the screen
    // (`testfwk_arkxtest` uitest/server/server_main.cpp `DumpLayout`: `-p` path, `-b` bundle's
    // windows only; `-a`, `-i`, `-w`, `-d`, `-e`, `-m` are left out).
    Shape {
        parts: &[
            Part::Word("uitest"),
            Part::Word("dumpLayout"),
            Part::Options(&[
                Opt { flag: "-p", value: Some(Kind::ReinTmpFile), required: true },
                Opt { flag: "-b", value: Some(Kind::Bundle), required: false },
            ]),
        ],
        verdict: Verdict::Allow,
        effect: Effect::Scratch,
    },
    // Removing rein's own scratch files after `file recv`, as hypium (`uitree.py`
    // `_dump_uitest_layout`: `rm <path>`) and hmdriver2 (`hdc.py` `screenshot`) do: one file,
    // one of rein's names, nothing recursive.
    Shape {
        parts: &[Part::Word("rm"), Part::Value(Kind::ReinTmpFile)],
        verdict: Verdict::Allow,
        effect: Effect::Scratch,
    },
    Shape {
        parts: &[Part::Word("rm"), Part::Word("-f"), Part::Value(Kind::ReinTmpFile)],
        verdict: Verdict::Allow,
        effect: Effect::Scratch,
    },
    // Input on the screen (`testfwk_arkxtest` uitest/input/ui_input.cpp `UiActionInput`;
    // shared/HARMONY-VERIFY.md §3.1): it does what a finger would in whatever app is in front.
    // It asks; the profile lets it through unasked only while rein has just seen the project's
    // own app in the foreground of that device (`harmony::ui_input`), and `Power` always asks.
    // uitest checks the counts itself (a wrong one is a usage error that does nothing).
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("click"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("doubleClick"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("longClick"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("swipe"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("drag"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("fling"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("dircFling"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[
            Part::Word("uitest"),
            Part::Word("uiInput"),
            Part::Word("inputText"),
            Part::Value(Kind::Number),
            Part::Value(Kind::Number),
            Part::Value(Kind::InputText),
        ],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("text"), Part::Value(Kind::InputText)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("keyEvent"), Part::Word("Home")],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("keyEvent"), Part::Word("Back")],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("keyEvent"), Part::Word("Power")],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uitest"), Part::Word("uiInput"), Part::Word("keyEvent"), Part::Values(Kind::Number)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
];
