//! hdc command lines, read the way hdc reads them (`developtools_hdc` src/host/main.cpp): the
//! first registered command word splits the global options (parsed with getopt's
//! `hvpfmncs:Sd:e:t:l:o:Ni:L:`) from the command and its arguments. Then an allow-list:
//! probes that only read are allowed; installs, launches and file transfers ask; commands
//! that flash, wipe or reboot a device are refused; everything else is refused unless a
//! person's rule names it.

use super::hdc_shell;
use super::shell_words;
use super::values::Kind;
use super::values::{Captured, Part, Shape};
use crate::harmony::hdc_servers::{HdcServers, ServerKind};
use crate::harmony::project::ProjectFacts;
use crate::harmony::stage::is_staged_dir;
use crate::kernel::policy::shapes::{self, Effect, Verdict};
use crate::kernel::policy::Decision;
use crate::kernel::PathClass;

/// hdc's registered commands (src/common/define.h `CMDSTR_*`, as listed by `IsRegisterCommand`).
const COMMANDS: [&str; 36] = [
    "version",
    "help",
    "discover",
    "list targets",
    "checkserver",
    "checkdevice",
    "wait",
    "any",
    "tconn",
    "reconnect",
    "shell",
    "shell -",
    "file send",
    "file recv",
    "fport",
    "rport",
    "kill",
    "start",
    "keygen",
    "install",
    "uninstall",
    "target mount",
    "hilog",
    "smode",
    "bugreport",
    "tmode",
    "sideload",
    "target boot",
    "jpid",
    "track-jpid",
    "update",
    "flash",
    "erase",
    "format",
    "spawn-sub",
    "killall-sub",
];

/// Commands that flash, wipe, reboot or re-mode a device: refused whoever asks.
const DESTRUCTIVE: [&str; 9] =
    ["target boot", "target mount", "flash", "erase", "format", "update", "smode", "tmode", "sideload"];

/// Commands of hdc itself (not the device shell) that rein knows.
const HOST_SHAPES: &[Shape] = &[
    Shape { parts: &[Part::Word("version")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape { parts: &[Part::Word("checkserver")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape { parts: &[Part::Word("list"), Part::Word("targets")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape {
        parts: &[Part::Word("list"), Part::Word("targets"), Part::Word("-v")],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape { parts: &[Part::Word("fport"), Part::Word("ls")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape {
        parts: &[Part::Word("install"), Part::Word("-r"), Part::Values(Kind::InstallSource)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("install"), Part::Values(Kind::InstallSource)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uninstall"), Part::Value(Kind::Bundle)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[Part::Word("uninstall"), Part::Word("-k"), Part::Value(Kind::Bundle)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape {
        parts: &[
            Part::Word("file"),
            Part::Word("send"),
            Part::Value(Kind::LocalPath),
            Part::Value(Kind::ForeignTmpFile),
        ],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    // One of rein's scratch files into the workspace's transit folder (the kernel takes it from
    // there: rein.fs.take_received): it cannot overwrite a project file, and the kernel admits
    // it only for a name the call reserved, from the device file of that name, once
    // (harmony::received).
    Shape {
        parts: &[
            Part::Word("file"),
            Part::Word("recv"),
            Part::Value(Kind::ReinTmpFile),
            Part::Value(Kind::ReceivedFile),
        ],
        verdict: Verdict::Allow,
        effect: Effect::Scratch,
    },
    Shape {
        parts: &[
            Part::Word("file"),
            Part::Word("recv"),
            Part::Value(Kind::DeviceTmpFile),
            Part::Value(Kind::LocalPath),
        ],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
];

/// hdc's global options as getopt reads them (`hvpfmncs:Sd:e:t:l:o:Ni:L:`): the ones that take a
/// value.
const OPTIONS_WITH_VALUE: &str = "sdetloiL";

/// A global option rein passes to hdc.
#[derive(Debug, PartialEq, Eq)]
enum Global {
    /// `-t KEY`: which device.
    Target(String),
    /// `-s ADDR`: which hdc server.
    Server(String),
    /// `-l N`: log level.
    LogLevel,
    /// `-v`, `-h`: print and exit.
    Informational,
}

/// `project` gives the project's bundle and modules (read only when a command needs them).
pub fn decide(
    args: &[String],
    classify: &dyn Fn(&str) -> PathClass,
    servers: &HdcServers,
    project: &dyn Fn() -> ProjectFacts,
) -> Decision {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if args.contains(&"-cwd") {
        return Decision::Deny("`-cwd` moves where hdc reads and writes local files; rein refuses it".into());
    }
    let Some((options, command, rest)) = split_command(&args) else {
        return match global_options(&args) {
            Ok(globals) if globals.contains(&Global::Informational) => Decision::Allow,
            Ok(_) => Decision::Deny("hdc without a command does nothing useful".into()),
            Err(refused) => Decision::Deny(refused.to_string()),
        };
    };
    // The client joins the options as they are, unquoted, and hdc splits them again.
    if let Some(refusal) = resplit(options, &options.join(" "), "the options before the hdc command") {
        return refusal;
    }
    let globals = match global_options(options) {
        Ok(globals) => globals,
        Err(refused) => return Decision::Deny(refused.to_string()),
    };
    let unnamed_server =
        globals.iter().any(|g| matches!(g, Global::Server(addr) if servers.kind(addr) == ServerKind::Unnamed));
    let decision = match command {
        "shell" => decide_shell(rest, project),
        c if DESTRUCTIVE.contains(&c) => {
            Decision::Deny(format!("`hdc {c}` can flash, wipe, reboot or re-mode the device"))
        }
        c => decide_host_command(c, rest, classify),
    };
    match decision {
        // A server nobody named is another machine's hdc (or a tunnel to one): whatever it may
        // do, a person decides.
        Decision::Allow if unnamed_server => Decision::Ask,
        other => other,
    }
}

/// What the command does, as its shape in the tables declares: a command outside them (a
/// person's rule ran it, or one refused anyway) may do anything.
pub fn effect(args: &[String]) -> Effect {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some((_, command, rest)) = split_command(&args) else {
        // `hdc -v`, `hdc -h`: print and exit (anything else without a command is refused).
        return Effect::Reads;
    };
    let found = match command {
        "shell" => shapes::find(hdc_shell::SHAPES, rest),
        c if DESTRUCTIVE.contains(&c) => None,
        c => {
            let words: Vec<&str> = c.split(' ').chain(rest.iter().copied()).collect();
            shapes::find(HOST_SHAPES, &words)
        }
    };
    found.map_or(Effect::Replaces, |(shape, _)| shape.effect)
}

/// The device command of `hdc shell ARGS`, judged by the strict reader, then the table.
fn decide_shell(rest: &[&str], project: &dyn Fn() -> ProjectFacts) -> Decision {
    if rest.is_empty() {
        return Decision::Deny("an interactive `hdc shell` cannot be judged; give the command to run".into());
    }
    // hdc quotes an argument that holds a space, so the device sees it as one word; an hdc
    // that did not would let its content speak as shell. Each argument must be plain words
    // on its own too.
    if let Some((arg, why)) = rest.iter().find_map(|arg| shell_words::words(arg).err().map(|why| (arg, why))) {
        return Decision::Deny(format!("`{arg}`: {why}"));
    }
    // What the device shell gets is the client's line after the daemon's trim: it must split
    // into exactly the words given, or the policy would judge other words than run.
    let line = shell_words::device_line(rest);
    let received = shell_words::daemon_line(&line);
    let words = match shell_words::words(received) {
        Ok(words) => words,
        Err(why) => return Decision::Deny(format!("`{received}`: {why}")),
    };
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    if words != rest {
        return Decision::Deny(format!(
            "hdc would hand the device shell `{received}`, which it reads as {} word(s), not as the {} given; give each word of the device command as its own argument, without quotes",
            words.len(),
            rest.len()
        ));
    }
    match shapes::find(hdc_shell::SHAPES, &words) {
        // Another bundle or module than the project's: a person decides.
        Some((_, captured)) if !hdc_shell::of_project(&captured, &project()) => Decision::Ask,
        Some((shape, _)) => from_verdict(shape.verdict),
        None => Decision::DenyUnlessRule(format!("the device command `{line}` is not one rein knows to be safe")),
    }
}

/// A refusal when hdc, splitting the client's `line` again (`shell_words::hdc_words`), would
/// read other words than `words`: one holding a double quote, or an empty one (or, among the
/// options, which the client does not quote, a space).
fn resplit(words: &[&str], line: &str, what: &str) -> Option<Decision> {
    let read = shell_words::hdc_words(line);
    (read != words).then(|| {
        Decision::Deny(format!(
            "hdc would read {what} as {read:?}, not as the {} argument(s) given; give no argument that holds a double quote or is empty",
            words.len()
        ))
    })
}

fn decide_host_command(command: &str, rest: &[&str], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let words: Vec<&str> = command.split(' ').chain(rest.iter().copied()).collect();
    if let Some(refusal) = resplit(&words, &shell_words::device_line(&words), &format!("`hdc {command}`'s arguments")) {
        return refusal;
    }
    // A device file of rein's name is what rein receives as evidence: only the device's own
    // commands write it, never a transfer, whoever allows it.
    if command == "file send" && rest.last().is_some_and(|to| Kind::ReinTmpFile.accepts(&to.to_ascii_lowercase())) {
        return Decision::Deny(format!(
            "`hdc file send` may not write {}: rein's own device files are written only by the device's commands",
            rest[rest.len() - 1]
        ));
    }
    let Some((shape, captured)) = shapes::find(HOST_SHAPES, &words) else {
        return Decision::DenyUnlessRule(format!("`hdc {}` is not a command rein knows to be safe", words.join(" ")));
    };
    let outside: Vec<&Captured> = captured.iter().filter(|c| !in_its_place(c, classify)).collect();
    if let Some(path) = outside.first() {
        return Decision::Deny(format!("`hdc {command}` may only use files inside the workspace, not {}", path.value));
    }
    from_verdict(shape.verdict)
}

/// Whether a captured local path is where its kind may be: a path in the workspace, or a folder
/// rein staged in its own `.rein/` (which no tool or program may write, so what hdc sends from it
/// is what rein copied there).
fn in_its_place(captured: &Captured, classify: &dyn Fn(&str) -> PathClass) -> bool {
    match captured.kind {
        Kind::LocalPath => classify(&captured.value) == PathClass::Workspace,
        // The transit folder at the workspace root, protected (the kernel then admits only a
        // name the call reserved: `files::received`).
        Kind::ReceivedFile => classify(&captured.value) == PathClass::Protected,
        Kind::InstallSource if is_staged_dir(&captured.value) => classify(&captured.value) == PathClass::Protected,
        Kind::InstallSource => classify(&captured.value) == PathClass::Workspace,
        _ => true,
    }
}

fn from_verdict(verdict: Verdict) -> Decision {
    match verdict {
        Verdict::Allow => Decision::Allow,
        Verdict::Ask => Decision::Ask,
    }
}

/// Splits at the first registered command (one word, or two as in `list targets`): the global
/// options before it, the command, and its arguments.
fn split_command<'a>(args: &'a [&'a str]) -> Option<(&'a [&'a str], &'a str, &'a [&'a str])> {
    for i in 0..args.len() {
        if let Some(next) = args.get(i + 1) {
            let double = format!("{} {next}", args[i]);
            if let Some(command) = COMMANDS.iter().find(|c| **c == double) {
                return Some((&args[..i], command, &args[i + 2..]));
            }
        }
        if let Some(command) =
            COMMANDS.iter().find(|c| **c == args[i] || (**c == "wait" && args[i].starts_with("wait")))
        {
            return Some((&args[..i], command, &args[i + 1..]));
        }
    }
    None
}

/// The global options, read as getopt reads them; an option rein does not pass is refused.
fn global_options(options: &[&str]) -> Result<Vec<Global>, OptionRefused> {
    read_options(options)?.into_iter().map(|(flag, value)| global(flag, value)).collect()
}

/// Each option flag before the command word with its value, as getopt reads them
/// (`-t KEY`, `-tKEY`, `-vh`).
fn read_options<'a>(options: &[&'a str]) -> Result<Vec<(char, Option<&'a str>)>, OptionRefused> {
    let mut read = Vec::new();
    let mut iter = options.iter();
    while let Some(arg) = iter.next() {
        let Some(flags) = arg.strip_prefix('-').filter(|f| !f.is_empty()) else {
            return Err(OptionRefused::NotAnOption { arg: arg.to_string() });
        };
        for (at, flag) in flags.char_indices() {
            if OPTIONS_WITH_VALUE.contains(flag) {
                let attached = &flags[at + flag.len_utf8()..];
                let value = if attached.is_empty() { iter.next().copied() } else { Some(attached) };
                read.push((flag, Some(value.ok_or(OptionRefused::NeedsValue { flag })?)));
                break;
            }
            read.push((flag, None));
        }
    }
    Ok(read)
}

/// The server a command line names with `-s [ip:]port` before its command word (not a `-s`
/// of the device command after it); None when it names none.
pub fn server_option(args: &[String]) -> Option<String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let options = split_command(&args).map_or(args.as_slice(), |(options, _, _)| options);
    let read = read_options(options).ok()?;
    read.into_iter().find(|(flag, _)| *flag == 's').and_then(|(_, value)| value.map(String::from))
}

fn global(flag: char, value: Option<&str>) -> Result<Global, OptionRefused> {
    match (flag, value) {
        ('t', Some(key)) if Kind::ConnectKey.accepts(key) => Ok(Global::Target(key.to_string())),
        ('s', Some(addr)) => Ok(Global::Server(addr.to_string())),
        ('l', Some(level)) if Kind::Number.accepts(level) => Ok(Global::LogLevel),
        ('v' | 'h', None) => Ok(Global::Informational),
        (flag, value) => Err(OptionRefused::NotPassed { flag, value: value.map(String::from) }),
    }
}

/// Why an option before the hdc command word is refused (the reason a `Deny` gives).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum OptionRefused {
    #[error("`{arg}` before the hdc command is not an option")]
    NotAnOption { arg: String },
    #[error("hdc option -{flag} needs a value")]
    NeedsValue { flag: char },
    #[error("hdc option -{flag}{} is not one rein passes to hdc", value.as_ref().map(|v| format!(" {v}")).unwrap_or_default())]
    NotPassed { flag: char, value: Option<String> },
}

/// The device an hdc command line is for, when it names a device command: the server (`-s`,
/// else the local one) and the target (`-t`, else whichever single device the server has).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceOf {
    pub server: Option<String>,
    pub target: Option<String>,
}

/// The hdc commands that act on a device (the rest talk to the server: list, tconn, version …).
const DEVICE_COMMANDS: [&str; 13] = [
    "shell",
    "shell -",
    "install",
    "uninstall",
    "file send",
    "file recv",
    "hilog",
    "fport",
    "rport",
    "jpid",
    "track-jpid",
    "bugreport",
    "keygen",
];

/// [`DeviceOf`] for a command line hdc would run on a device; None for one that does not, or
/// that rein would not pass.
pub fn device_of(args: &[String]) -> Option<DeviceOf> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (options, command, rest) = split_command(&args)?;
    if !DEVICE_COMMANDS.contains(&command) || (command == "fport" && rest.first() == Some(&"ls")) {
        return None;
    }
    let mut device = DeviceOf { server: None, target: None };
    for global in global_options(options).ok()? {
        match global {
            Global::Target(key) => device.target = Some(key),
            Global::Server(addr) => device.server = Some(addr),
            Global::LogLevel | Global::Informational => {}
        }
    }
    Some(device)
}

/// The hdc command word of a command line (`install`, `file recv` …) and where the words after
/// it start.
pub fn command_of(args: &[String]) -> Option<(&'static str, usize)> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, command, rest) = split_command(&words)?;
    let known = COMMANDS.iter().find(|c| **c == command)?;
    Some((known, args.len() - rest.len()))
}

/// The device command of an `hdc … shell` line, as the device shell reads it, when it is one.
pub fn device_words(args: &[String]) -> Option<Vec<String>> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, "shell", rest) = split_command(&args)? else { return None };
    let line = shell_words::device_line(rest);
    shell_words::words(shell_words::daemon_line(&line)).ok()
}

/// Whether the command line runs a device's tests (`hdc shell aa test …`): allowed unasked for
/// the project's own, it still holds the device for the call (another run's install or launch
/// in the middle would change what the tests see) and may run as long as the tests do.
pub fn runs_tests(args: &[String]) -> bool {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some((_, "shell", rest)) = split_command(&args) else { return false };
    let line = shell_words::device_line(rest);
    shell_words::words(shell_words::daemon_line(&line)).is_ok_and(|w| w.len() >= 2 && w[0] == "aa" && w[1] == "test")
}

/// Every shape rein allows or asks about, for the approval table in docs/src/approvals.md.
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    let host = HOST_SHAPES.iter().map(|s| (format!("hdc {}", s.render()), s.verdict));
    let shell = hdc_shell::SHAPES.iter().map(|s| (format!("hdc shell {}", s.render()), s.verdict));
    host.chain(shell).collect()
}

#[cfg(test)]
#[path = "hdc_tests.rs"]
mod tests;
