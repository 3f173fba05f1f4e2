//! The typed values a command shape accepts in a variable position: a bundle name, a pid, a
//! device path under `/data/local/tmp/` … Each is a strict pattern; anything else does not
//! match the shape.

use super::hypium;
use crate::harmony::received::is_rein_file_name;
use crate::harmony::stage::is_staged_dir;
use crate::kernel::policy::shapes;

/// The device's scratch folder.
const DEVICE_TMP: &str = "/data/local/tmp/";

/// What a variable position of a command shape holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `com.example.app`: letters, digits, `_` and `.`, starting with a letter.
    Bundle,
    /// `EntryAbility`, `entry`: letters, digits, `_` and `-`.
    Name,
    /// A decimal number (a pid, a line count, a log level number).
    Number,
    /// hilog tags, comma-separated: letters, digits, `_`, `.`, `-`.
    Tags,
    /// A hilog domain: `0x` and hex digits, or decimal.
    Domain,
    /// hilog levels, comma-separated: D, I, W, E, F (any case).
    Levels,
    /// hilog buffer types, comma-separated: app, core, init, kmsg, only.
    LogTypes,
    /// A system parameter name: letters, digits, `_`, `.`, `-`.
    Param,
    /// A file directly under the device's scratch folder `/data/local/tmp/`.
    DeviceTmpFile,
    /// A file there that is not one of rein's own names: what `hdc file send` may write, so
    /// that nothing but the device's own commands writes a file rein will receive as evidence.
    ForeignTmpFile,
    /// One of rein's own scratch files there: `/data/local/tmp/rein-<name>.jpeg|json`
    /// ([`is_rein_file_name`]); the only device files rein removes.
    ReinTmpFile,
    /// Where hdc puts a file rein receives: `.rein-received/rein-<name>.jpeg|json`, relative
    /// to the workspace root (the kernel's transit folder, [`crate::harmony::received::RECEIVED_DIR`]).
    ReceivedFile,
    /// The one `-a` argument of `hidumper -s 1201` that queries fault logs and reads only:
    /// `-p Faultlogger` then `-m <bundle>`, `-t <stamp>` or `-f <log name>` pairs.
    FaultLogQuery,
    /// hdc's connect key: letters, digits, `.`, `:`, `_`, `-` (an address or a serial).
    ConnectKey,
    /// A `date` output format: `+` and letters, digits, `%`, `:`, `.`, `-`, `_`, space.
    DateFormat,
    /// A device local time as `hisysevent -S` reads it: `YYYY-MM-DD HH:MM:SS`.
    EventTime,
    /// A path on this machine, classed by scope (the caller judges the class).
    LocalPath,
    /// An ohpm package: `name` or `@scope/name`, optionally `@version`.
    Package,
    /// What `hdc install` may send, a local path: a `.hap` or `.hsp` file, or a folder rein
    /// staged (`.rein/install/<id>`, `harmony::stage`). hdc sends any other path as a
    /// folder, whole (developtools_hdc `src/host/host_app.cpp` `BeginInstall`), so no other
    /// folder is taken.
    InstallSource,
    /// The bundle `aa test` runs: the project's (checked against the project after the match:
    /// `hdc_shell::of_project`).
    TestBundle,
    /// `-m <module>_test`: a test module (checked against the project's modules likewise).
    TestModule,
    /// `-s unittest <runner>`: a runner's name or `/ets/testrunner/<name>`.
    TestRunner,
    /// `-s class|notClass`: `suite[#test]`, comma-separated (Hypium's rule).
    TestClasses,
    /// `-s itName`: test names, comma-separated.
    TestNames,
    /// `-s level`: 0–4.
    TestLevel,
    /// `-s size`: small, medium, large.
    TestSize,
    /// `-s testType`: function, performance … (Hypium's list).
    TestType,
    /// `true` or `false`.
    Switch,
    /// Text `uitest uiInput` types: one word of printable characters (the strict reader has
    /// refused shell syntax already), at most 2,000.
    InputText,
}

/// The kernel's command shapes, holding these kinds.
pub type Shape = shapes::Shape<Kind>;
pub type Part = shapes::Part<Kind>;
pub type Opt = shapes::Opt<Kind>;
pub type Captured = shapes::Captured<Kind>;

impl shapes::ValueKind for Kind {
    fn accepts(self, value: &str) -> bool {
        Kind::accepts(self, value)
    }

    #[cfg(test)]
    fn placeholder(self) -> &'static str {
        Kind::placeholder(self)
    }
}

impl Kind {
    /// How the value is shown in documentation: `<bundle>`.
    #[cfg(test)]
    pub fn placeholder(self) -> &'static str {
        match self {
            Kind::Bundle => "<bundle>",
            Kind::Name => "<name>",
            Kind::Number => "<n>",
            Kind::InputText => "<text>",
            Kind::Tags => "<tags>",
            Kind::Domain => "<domain>",
            Kind::Levels => "<levels>",
            Kind::LogTypes => "<types>",
            Kind::Param => "<param>",
            Kind::DeviceTmpFile => "/data/local/tmp/<file>",
            Kind::ForeignTmpFile => "/data/local/tmp/<file, not rein-…>",
            Kind::ReinTmpFile => "/data/local/tmp/rein-<name>",
            Kind::ReceivedFile => ".rein-received/rein-<name>",
            Kind::FaultLogQuery => "\"-p Faultlogger [-m <bundle>] [-t <stamp>] [-f <log>]\"",
            Kind::ConnectKey => "<key>",
            Kind::DateFormat => "+<format>",
            Kind::EventTime => "\"<YYYY-MM-DD HH:MM:SS>\"",
            Kind::LocalPath => "<path>",
            Kind::Package => "<package>",
            Kind::InstallSource => "<hap/hsp/staged>",
            Kind::TestBundle => "<project bundle>",
            Kind::TestModule => "<project module>_test",
            Kind::TestRunner => "<runner>",
            Kind::TestClasses => "<suite[#test],…>",
            Kind::TestNames => "<test,…>",
            Kind::TestLevel => "<0-4>",
            Kind::TestSize => "<small|medium|large>",
            Kind::TestType => "<type>",
            Kind::Switch => "<true|false>",
        }
    }

    pub fn accepts(self, value: &str) -> bool {
        let word =
            |v: &str, extra: &str| !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(c));
        let list = |v: &str, item: &dyn Fn(&str) -> bool| !v.is_empty() && v.split(',').all(item);
        match self {
            Kind::Bundle => {
                value.len() <= 128 && value.starts_with(|c: char| c.is_ascii_alphabetic()) && word(value, "_.")
            }
            Kind::Name => value.len() <= 128 && word(value, "_-") && !value.starts_with('-'),
            Kind::Number => value.len() <= 10 && value.chars().all(|c| c.is_ascii_digit()) && !value.is_empty(),
            Kind::InputText => {
                !value.is_empty() && value.chars().count() <= 2000 && !value.chars().any(char::is_control)
            }
            Kind::Tags => value.len() <= 256 && !value.starts_with('-') && list(value, &|t| word(t, "_.-")),
            Kind::Domain => match value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")) {
                Some(hex) => !hex.is_empty() && hex.len() <= 8 && hex.chars().all(|c| c.is_ascii_hexdigit()),
                None => Kind::Number.accepts(value),
            },
            Kind::Levels => list(value, &|l| ["D", "I", "W", "E", "F"].iter().any(|x| l.eq_ignore_ascii_case(x))),
            Kind::LogTypes => list(value, &|t| ["app", "core", "init", "kmsg", "only"].contains(&t)),
            Kind::Param => value.len() <= 128 && word(value, "_.-") && !value.starts_with('-'),
            Kind::DeviceTmpFile => file_under(value, "/data/local/tmp/"),
            Kind::ForeignTmpFile => {
                file_under(value, "/data/local/tmp/")
                    && !value[DEVICE_TMP.len()..].to_ascii_lowercase().starts_with("rein-")
            }
            Kind::ReinTmpFile => value.strip_prefix(DEVICE_TMP).is_some_and(is_rein_file_name),
            Kind::ReceivedFile => value.strip_prefix(".rein-received/").is_some_and(is_rein_file_name),
            Kind::FaultLogQuery => faultlog_query(value),
            Kind::ConnectKey => value.len() <= 64 && word(value, ".:_-") && !value.starts_with('-'),
            Kind::DateFormat => {
                value.len() <= 64
                    && value.starts_with('+')
                    && value[1..].chars().all(|c| c.is_ascii_alphanumeric() || "%:.-_ ".contains(c))
            }
            Kind::EventTime => event_time(value),
            Kind::LocalPath => !value.is_empty() && !value.starts_with('-') && !value.contains('\0'),
            Kind::Package => package(value),
            Kind::InstallSource => Kind::LocalPath.accepts(value) && (package_file(value) || is_staged_dir(value)),
            Kind::TestBundle => Kind::Bundle.accepts(value),
            Kind::TestModule => hypium::test_module(value),
            Kind::TestRunner => hypium::runner(value),
            Kind::TestClasses => hypium::classes(value),
            Kind::TestNames => hypium::test_names(value),
            Kind::TestLevel => hypium::level(value),
            Kind::TestSize => hypium::size(value),
            Kind::TestType => hypium::test_type(value),
            Kind::Switch => hypium::switch(value),
        }
    }
}

/// A file name ending in `.hap` or `.hsp` with a name before it.
fn package_file(value: &str) -> bool {
    let name = value.rsplit(['/', '\\']).next().unwrap_or(value);
    [".hap", ".hsp"].iter().any(|ext| name.len() > ext.len() && name.ends_with(ext))
}

/// `name`, `@scope/name`, each optionally `@version` (lowercase letters, digits, `-`, `_`, `.`).
fn package(value: &str) -> bool {
    let part = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    let (name, version) = match value.strip_prefix('@') {
        Some(scoped) => match scoped.split_once('/') {
            Some((scope, rest)) if part(scope) => match rest.split_once('@') {
                Some((name, version)) => (name, Some(version)),
                None => (rest, None),
            },
            _ => return false,
        },
        None => match value.split_once('@') {
            Some((name, version)) => (name, Some(version)),
            None => (value, None),
        },
    };
    value.len() <= 214 && part(name) && !name.starts_with('.') && version.is_none_or(part)
}

/// `-p Faultlogger` and at least one `-m <bundle>`, `-t <digits>` or `-f <log name>` pair, each
/// at most once (hiview's Faultlogger dump options; `-d` and others that delete are absent).
fn faultlog_query(value: &str) -> bool {
    let words: Vec<&str> = value.split(' ').collect();
    let ["-p", "Faultlogger", pairs @ ..] = words.as_slice() else { return false };
    let mut seen = Vec::new();
    !pairs.is_empty()
        && pairs.len() % 2 == 0
        && pairs.chunks(2).all(|pair| {
            let fresh = !seen.contains(&pair[0]);
            seen.push(pair[0]);
            fresh
                && match pair[0] {
                    "-m" => Kind::Bundle.accepts(pair[1]),
                    "-t" => {
                        Kind::Number.accepts(pair[1])
                            || (pair[1].len() <= 17 && pair[1].chars().all(|c| c.is_ascii_digit()))
                    }
                    "-f" => {
                        !pair[1].is_empty()
                            && pair[1].len() <= 128
                            && pair[1].chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
                    }
                    _ => false,
                }
        })
}

/// A plain file name directly under `dir` (no `..`, no further folders).
/// `YYYY-MM-DD HH:MM:SS` and nothing else (hisysevent_tool.cpp `ParseTimeStampFromArgs`).
fn event_time(value: &str) -> bool {
    let shape = "dddd-dd-dd dd:dd:dd";
    value.len() == shape.len()
        && value.chars().zip(shape.chars()).all(|(c, s)| if s == 'd' { c.is_ascii_digit() } else { c == s })
}

fn file_under(value: &str, dir: &str) -> bool {
    value.strip_prefix(dir).is_some_and(|name| {
        !name.is_empty()
            && name.len() <= 128
            && !name.starts_with('.')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_only_their_strict_shape() {
        let cases: &[(Kind, &str, bool)] = &[
            (Kind::Bundle, "com.example.hello", true),
            (Kind::Bundle, "com.example;reboot", false),
            (Kind::Bundle, "-n", false),
            (Kind::Bundle, "1com", false),
            (Kind::Name, "EntryAbility", true),
            (Kind::Name, "-rf", false),
            (Kind::Number, "1234", true),
            (Kind::Number, "12a", false),
            (Kind::Number, "", false),
            (Kind::Tags, "testTag,AbilityManager", true),
            (Kind::Tags, "a b", false),
            (Kind::Domain, "0xD001100", true),
            (Kind::Domain, "0x", false),
            (Kind::Levels, "E,F", true),
            (Kind::Levels, "X", false),
            (Kind::LogTypes, "app,core", true),
            (Kind::LogTypes, "all", false),
            (Kind::DeviceTmpFile, "/data/local/tmp/shot.jpeg", true),
            (Kind::DeviceTmpFile, "/data/local/tmp/../../system/x", false),
            (Kind::DeviceTmpFile, "/data/local/tmp/a/b", false),
            (Kind::DeviceTmpFile, "/data/local/tmp/", false),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-ui-0a1b2c3d.json", true),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-screen-7.jpeg", true),
            (Kind::ReinTmpFile, "/data/local/tmp/layout_1733.json", false),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-.json", false),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-a--b.json", false),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-a.so", false),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-A.json", false),
            (Kind::ReinTmpFile, "/data/local/tmp/rein-a/../b.json", false),
            (Kind::ReinTmpFile, "/data/rein-a.json", false),
            (Kind::ReceivedFile, ".rein-received/rein-ui-1.json", true),
            (Kind::ReceivedFile, ".rein-received/../rein-ui-1.json", false),
            (Kind::ReceivedFile, "/w/.rein-received/rein-ui-1.json", false),
            (Kind::FaultLogQuery, "-p Faultlogger -m com.example.hello -t 20250615095959", true),
            (Kind::FaultLogQuery, "-p Faultlogger -f jscrash-com.example.hello-20010044-20250615100000", true),
            (Kind::FaultLogQuery, "-p Faultlogger", false),
            (Kind::FaultLogQuery, "-p Faultlogger -m x -d", false),
            (Kind::FaultLogQuery, "-p Faultlogger -m com.x -m com.y", false),
            (Kind::FaultLogQuery, "--sysevent_backup", false),
            (Kind::ConnectKey, "127.0.0.1:5555", true),
            (Kind::ConnectKey, "FMR0223C13000649", true),
            (Kind::ConnectKey, "-s", false),
            (Kind::DateFormat, "+%m-%d %H:%M:%S", true),
            (Kind::DateFormat, "+%s;reboot", false),
            (Kind::EventTime, "2025-06-15 10:00:00", true),
            (Kind::EventTime, "2025-06-15 10:00:00;reboot", false),
            (Kind::EventTime, "2025-06-15", false),
            (Kind::EventTime, "-r", false),
        ];
        for (kind, value, expected) in cases {
            assert_eq!(kind.accepts(value), *expected, "{kind:?} {value:?}");
        }
    }
}
