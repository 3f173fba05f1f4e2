//! Why a person is asked about a command, in words about what it does: "it installs an app on
//! the device", not a reason that fits every question. The shapes that ask are the grammars'
//! (`grammar/`); this only names what each does. A command it does not know gets the general
//! reason.

use super::programs::Program;

/// What the command does that needs a yes; `outside` when a path of it lies outside the
/// workspace.
pub fn why_asked(program: &Program, args: &[String], outside: bool) -> String {
    let what = match program {
        Program::Hdc => hdc(args),
        Program::Hvigorw => "it runs a hvigor task that reaches a device, or a setting only a person may choose",
        Program::Ohpm => "it fetches packages from the network (the ohpm registry) into the project",
        Program::HapSignTool => "it signs with material outside the workspace (your keys and certificates)",
        Program::Emulator => "it stops an emulator instance, and with it whatever runs on it",
        Program::Git | Program::Codelinter | Program::Hstack | Program::Other(_) => GENERAL,
    };
    if outside && what != GENERAL {
        format!("{what}, and touches files outside the workspace")
    } else {
        what.to_string()
    }
}

/// Why rein asks when the command's own reason is not known here.
pub const GENERAL: &str = crate::kernel::process::WHY_ASK;

fn hdc(args: &[String]) -> &'static str {
    let mut words = args.iter().map(String::as_str).peekable();
    let mut other_server = false;
    // hdc's own options come first (`-t KEY`, `-s HOST:PORT`, `-l N`, `-p`).
    while let Some(option) = words.peek().copied().filter(|w| w.starts_with('-')) {
        words.next();
        if matches!(option, "-t" | "-s" | "-l") {
            other_server |= option == "-s";
            words.next();
        }
    }
    let command: Vec<&str> = words.take(3).collect();
    match command.as_slice() {
        ["install", ..] => "it installs an app on the device",
        ["uninstall", "-k", ..] => "it removes an app from the device (keeping its data)",
        ["uninstall", ..] => "it removes an app and its data from the device",
        ["file", "send", ..] => "it copies a file from this machine onto the device",
        ["file", "recv", ..] => "it copies a file from the device onto this machine",
        ["shell", "uitest", "uiInput"] => {
            "it touches the device's screen (a tap, typing, a swipe or a key) and rein has not just seen this project's app in front"
        }
        ["shell", "aa", "start"] => "it starts an app on the device",
        ["shell", "aa", "force-stop"] => "it stops an app on the device",
        ["shell", ..] => "it runs a command on the device",
        _ if other_server => "it talks to an hdc server rein does not know, which may be another machine's",
        _ => "it changes the device",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(program: Program, line: &str) -> String {
        why_asked(&program, &line.split_whitespace().map(String::from).collect::<Vec<_>>(), false)
    }

    #[test]
    fn each_question_says_what_the_command_does() {
        assert_eq!(why(Program::Hdc, "-t 127.0.0.1:5555 install -r app.hap"), "it installs an app on the device");
        assert_eq!(why(Program::Hdc, "shell aa start -a EntryAbility -b com.x"), "it starts an app on the device");
        assert_eq!(
            why(Program::Hdc, "-s 10.0.0.2:8710 list targets"),
            "it talks to an hdc server rein does not know, which may be another machine's"
        );
        assert_eq!(
            why(Program::Ohpm, "install"),
            "it fetches packages from the network (the ohpm registry) into the project"
        );
        assert_eq!(why(Program::Other("x".into()), "y"), GENERAL);
        let outside = why_asked(&Program::Hdc, &["file".into(), "send".into(), "/etc/x".into()], true);
        assert_eq!(
            outside,
            "it copies a file from this machine onto the device, and touches files outside the workspace"
        );
    }
}
