//! hdc commands by risk. Probes only read; installs and launches change the device and need a
//! yes; commands that can brick a device or wipe data are refused outright.

use super::Decision;

/// hdc's own commands that flash, wipe or reboot a device.
const DESTRUCTIVE_COMMANDS: [&str; 6] = ["flash", "erase", "format", "update", "smode", "tmode"];

/// Device shell commands allowed without asking: each reads state and changes nothing.
fn is_probe(shell: &[&str]) -> bool {
    match shell {
        ["hilog", rest @ ..] => rest.contains(&"-x") && rest.iter().all(|a| !HILOG_WRITES.contains(a)),
        ["bm", "dump", ..] | ["bm", "get", "-u"] | ["aa", "dump", ..] => true,
        ["pidof", _] | ["param", "get", ..] => true,
        ["date", format] => format.starts_with('+'),
        ["hidumper", "-s", "1201", "-a", "-p", "Faultlogger", query @ ..] => is_faultlog_query(query),
        _ => false,
    }
}

/// Faultlogger queries that only read: `-m <bundle>`, `-t <time>`, `-f <log name>` pairs.
fn is_faultlog_query(query: &[&str]) -> bool {
    !query.is_empty()
        && query.len().is_multiple_of(2)
        && query.chunks(2).all(|pair| matches!(pair[0], "-m" | "-t" | "-f") && !pair[1].starts_with('-'))
}

/// hilog flags that change the device's log settings or buffers.
const HILOG_WRITES: [&str; 8] = ["-r", "-g", "-G", "-b", "-p", "-Q", "-w", "-s"];

/// Device paths whose removal would break the system or wipe every app's data.
const SYSTEM_PATHS: [&str; 18] = [
    "/",
    "/*",
    "/system",
    "/vendor",
    "/data",
    "/sys",
    "/proc",
    "/dev",
    "/etc",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/chip_prod",
    "/sys_prod",
    "/cust",
    "/storage",
    "/data/app",
];

/// Device shell programs that reboot, format or weaken the device.
const DESTRUCTIVE_SHELL: [&str; 9] =
    ["reboot", "poweroff", "shutdown", "mkfs", "wipe", "format", "setenforce", "flash_image", "recovery"];

pub fn decide(args: &[String]) -> Decision {
    let args: Vec<&str> = strip_target(args);
    match args.as_slice() {
        [] => Decision::Deny("hdc without a command does nothing useful".into()),
        ["list", "targets"] | ["list", "targets", "-v"] | ["version"] | ["-v"] | ["checkserver"] => Decision::Allow,
        ["fport", "ls"] => Decision::Allow,
        ["shell", rest @ ..] => decide_shell(rest),
        ["target", "boot", ..] => Decision::Deny("`hdc target boot` reboots the device".into()),
        [command, ..] if DESTRUCTIVE_COMMANDS.contains(command) => {
            Decision::Deny(format!("`hdc {command}` can flash, wipe or reset the device"))
        }
        ["install" | "uninstall" | "file" | "app" | "tconn" | "fport" | "rport" | "kill" | "start", ..] => {
            Decision::Ask
        }
        [other, ..] => Decision::DenyUnlessRule(format!("`hdc {other}` is not a command rein knows to be safe")),
    }
}

/// The local path `hdc file recv REMOTE LOCAL` would write.
pub fn received_file(args: &[String]) -> Option<&str> {
    match strip_target(args).as_slice() {
        ["file", "recv", .., _remote, local] => Some(local),
        _ => None,
    }
}

/// Drops the global options (`-t KEY`, `-s ADDR`, `-l LEVEL`) before the command.
fn strip_target(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut iter = args.iter().map(String::as_str);
    while let Some(arg) = iter.next() {
        if out.is_empty() && matches!(arg, "-t" | "-s" | "-l") {
            iter.next();
            continue;
        }
        out.push(arg);
    }
    out
}

/// A device shell command line: one string or several words. Chained commands are judged
/// part by part, and a chain is never a probe.
fn decide_shell(words: &[&str]) -> Decision {
    let line = words.join(" ");
    let parts: Vec<Vec<&str>> =
        line.split([';', '&', '|', '\n', '`']).map(|p| p.split_whitespace().collect::<Vec<_>>()).collect();
    let chained = parts.iter().filter(|p| !p.is_empty()).count() > 1 || line.contains("$(");
    for part in &parts {
        if let Some(reason) = destructive(part) {
            return Decision::Deny(reason);
        }
    }
    if parts.iter().all(|p| p.is_empty()) {
        return Decision::Ask;
    }
    if !chained && is_probe(&parts[0]) && !line.contains('>') {
        return Decision::Allow;
    }
    Decision::Ask
}

fn destructive(part: &[&str]) -> Option<String> {
    let (program, args) = part.split_first()?;
    let program = program.rsplit('/').next().unwrap_or(program);
    if DESTRUCTIVE_SHELL.iter().any(|d| program == *d || program.starts_with("mkfs")) {
        return Some(format!("`{program}` on the device reboots, formats or weakens it"));
    }
    match program {
        "rm" => {
            let recursive = args.iter().any(|a| a.starts_with('-') && (a.contains('r') || a.contains('R')));
            let system = args.iter().find(|a| SYSTEM_PATHS.contains(&a.trim_end_matches('/')) || **a == "/");
            match (recursive, system) {
                (true, Some(path)) => Some(format!("`rm -r {path}` would delete a system path of the device")),
                _ => None,
            }
        }
        "dd" if args.iter().any(|a| a.starts_with("of=/dev/")) => {
            Some("`dd of=/dev/...` overwrites a device partition".into())
        }
        "mount" if args.iter().any(|a| a.contains("remount")) => Some("remounting device partitions is refused".into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(line: &str) -> &'static str {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        match decide(&args) {
            Decision::Allow => "allow",
            Decision::Ask | Decision::AskHuman => "ask",
            Decision::Deny(_) | Decision::DenyUnlessRule(_) => "deny",
        }
    }

    #[test]
    fn hdc_policy_table() {
        let cases = [
            ("list targets", "allow"),
            ("list targets -v", "allow"),
            ("version", "allow"),
            ("-v", "allow"),
            ("-t ABC list targets", "allow"),
            ("shell hilog -x", "allow"),
            ("-t ABC shell hilog -x -L E -T testTag", "allow"),
            ("shell bm dump -n com.example.hello", "allow"),
            ("shell bm get -u", "allow"),
            ("shell aa dump -a", "allow"),
            ("shell pidof com.example.hello", "allow"),
            ("shell param get const.ohos.apiversion", "allow"),
            ("-t ABC shell date +%Y%m%d%H%M%S", "allow"),
            ("shell date 061510002025", "ask"),
            ("shell date -s 20250615", "ask"),
            ("shell hidumper -s 1201 -a -p Faultlogger -m com.example.hello -t 20250615095959", "allow"),
            ("shell hidumper -s 1201 -a -p Faultlogger -f jscrash-com.example.hello-20010044-20250615100000", "allow"),
            ("shell hidumper -s 1201 -a -p Faultlogger", "ask"),
            ("shell hidumper -s 1201 -a -p Faultlogger -m", "ask"),
            ("shell hidumper -s 1201 -a --sysevent_backup", "ask"),
            ("shell hidumper -s 1201 -a -p Faultlogger -m x -d", "ask"),
            ("install -r entry-default-signed.hap", "ask"),
            ("-t ABC install -r x.hap", "ask"),
            ("app install -r x.hap", "ask"),
            ("uninstall com.example.hello", "ask"),
            ("shell aa start -a EntryAbility -b com.example.hello", "ask"),
            ("shell aa force-stop com.example.hello", "ask"),
            ("file send a.txt /data/local/tmp/a.txt", "ask"),
            ("file recv /data/local/tmp/x.jpeg shot.jpeg", "ask"),
            ("shell snapshot_display -f /data/local/tmp/x.jpeg", "ask"),
            ("shell hilog -r", "ask"),
            ("shell hilog -x -r", "ask"),
            ("shell ls /data/local/tmp", "ask"),
            ("shell hilog -x ; reboot", "deny"),
            ("shell hilog -x && rm -rf /data", "deny"),
            ("shell hilog -x | grep x", "ask"),
            ("shell pidof x > /data/local/tmp/p", "ask"),
            ("shell echo $(id)", "ask"),
            ("shell reboot", "deny"),
            ("shell reboot bootloader", "deny"),
            ("shell /system/bin/reboot", "deny"),
            ("shell rm -rf /", "deny"),
            ("shell rm -rf /system", "deny"),
            ("shell rm -r /data/", "deny"),
            ("shell rm -rf /data/local/tmp/x.jpeg", "ask"),
            ("shell rm /data/local/tmp/x.jpeg", "ask"),
            ("shell dd if=/dev/zero of=/dev/block/sda", "deny"),
            ("shell mkfs.ext4 /dev/block/sdb", "deny"),
            ("shell setenforce 0", "deny"),
            ("shell mount -o remount,rw /", "deny"),
            ("target boot", "deny"),
            ("flash system system.img", "deny"),
            ("erase -f userdata", "deny"),
            ("format -f userdata", "deny"),
            ("update update.zip", "deny"),
            ("smode", "deny"),
            ("tconn 127.0.0.1:5555", "ask"),
            ("kill -r", "ask"),
            ("jpda", "deny"),
            ("", "deny"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "hdc {line}");
        }
    }
}
