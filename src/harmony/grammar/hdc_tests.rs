use super::*;
use crate::harmony::grammar::table_cases::{label, words};

/// The fixture's project: `com.example.hello` with its module `entry`.
fn hello() -> ProjectFacts {
    ProjectFacts { bundle: Some("com.example.hello".into()), modules: vec!["entry".into()] }
}

fn verdict(line: &str) -> &'static str {
    verdict_of(&words(line))
}

fn verdict_of(args: &[String]) -> &'static str {
    label(&decide(args, &classify, &HdcServers::default(), &hello))
}

/// As the scope classes a path given relative to the workspace root: its protected names, `..`
/// taken back.
fn classify(path: &str) -> PathClass {
    if path.starts_with('/') {
        return PathClass::Outside;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." => drop(parts.pop()),
            "." | "" => {}
            part => parts.push(part),
        }
    }
    crate::kernel::scope::protected::class_of(&parts).unwrap_or(PathClass::Workspace)
}

/// `hdc shell` with the device command as ONE argument, as tools often pass it.
fn shell_verdict(device_command: &str) -> &'static str {
    verdict_of(&["shell".to_string(), device_command.to_string()])
}

#[test]
fn what_rein_tools_run_stays_allowed_or_asks() {
    let cases = [
        ("list targets", "allow"),
        ("list targets -v", "allow"),
        ("version", "allow"),
        ("-v", "allow"),
        ("checkserver", "allow"),
        ("fport ls", "allow"),
        ("-t FMR0223C13000649 list targets", "allow"),
        ("-tFMR0223C13000649 list targets", "allow"),
        ("-t 127.0.0.1:5555 shell hilog -x", "allow"),
        ("-s 8710 list targets", "allow"),
        ("-s 127.0.0.1:8710 list targets", "allow"),
        ("-s [::1]:8710 list targets", "allow"),
        ("-l 3 list targets", "allow"),
        ("shell hilog -x", "allow"),
        ("-t ABC shell hilog -x -L E -T testTag", "allow"),
        ("shell hilog -x -T testTag,AbilityManager -P 4321 -D 0xD001100 -t app -z 200", "allow"),
        ("shell bm dump -n com.example.hello", "allow"),
        ("shell bm dump -a", "allow"),
        ("shell bm get -u", "allow"),
        ("shell aa dump -a", "allow"),
        ("shell aa dump -l", "allow"),
        ("shell pidof com.example.hello", "allow"),
        ("shell param get const.ohos.apiversion", "allow"),
        ("shell date", "allow"),
        ("shell date +%Y%m%d%H%M%S", "allow"),
        ("install -r entry/build/default/outputs/default/entry-default-signed.hap", "ask"),
        ("-t ABC install -r x.hap", "ask"),
        ("install x.hap", "ask"),
        ("uninstall com.example.hello", "ask"),
        ("uninstall -k com.example.hello", "ask"),
        ("shell aa start -a EntryAbility -b com.example.hello", "ask"),
        ("shell aa start -a EntryAbility -b com.example.hello -m entry", "ask"),
        ("shell aa force-stop com.example.hello", "ask"),
        ("shell snapshot_display -f /data/local/tmp/rein-shot.jpeg", "ask"),
        ("shell rm -f /data/local/tmp/rein-shot.jpeg", "allow"),
        ("shell rm /data/local/tmp/rein-ui-0a1b2c3d4e5f6789.json", "allow"),
        ("shell uitest dumpLayout -p /data/local/tmp/rein-ui-0a1b2c3d4e5f6789.json", "allow"),
        ("shell uitest dumpLayout -p /data/local/tmp/rein-ui-1.json -b com.example.hello", "allow"),
        ("file recv /data/local/tmp/rein-ui-1.json .rein-received/rein-ui-1.json", "allow"),
        ("file send notes.txt /data/local/tmp/notes.txt", "ask"),
        ("file recv /data/local/tmp/rein-shot.jpeg shots/x.jpeg", "ask"),
        ("-s 10.0.0.5:8710 list targets", "ask"),
    ];
    for (line, expected) in cases {
        assert_eq!(verdict(line), expected, "hdc {line}");
    }
    // One argument holding the whole command: hdc wraps it in quotes, the daemon strips them and
    // the device shell splits it, so the words are not the argument given.
    assert_eq!(shell_verdict("hidumper -s 1201 -a \"-p Faultlogger -m com.x\""), "deny", "one argument, many words");
    let hidumper = |query: &str| verdict_of(&["shell", "hidumper", "-s", "1201", "-a", query].map(String::from));
    assert_eq!(hidumper("-p Faultlogger -m com.example.hello -t 20250615095959"), "allow");
    assert_eq!(hidumper("-p Faultlogger -f jscrash-com.example.hello-20010044-20250615100000"), "allow");
    assert_eq!(hidumper("-p Faultlogger"), "rule");
    assert_eq!(hidumper("-p Faultlogger -m x -d"), "rule");
    assert_eq!(hidumper("--sysevent_backup"), "rule");
    assert_eq!(verdict_of(&["shell", "date", "061510002025"].map(String::from)), "rule", "setting the clock");
    assert_eq!(verdict_of(&["shell", "date", "+%m-%d %H:%M:%S"].map(String::from)), "allow");
}

/// The words the policy judges are the words hdc hands on: the client wraps an argument holding
/// a space in quotes, the daemon trims the line and strips one pair of enclosing quotes before
/// `/bin/sh -c`, and hdc splits its own commands again. Whatever would arrive split or joined
/// differently is refused (tests/hdc_quoting.rs checks the same against the real hdc).
#[test]
fn what_hdc_would_split_or_join_differently_is_refused() {
    let v = |args: &[&str]| verdict_of(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
    assert_eq!(v(&["shell", "date", "+%s 010100002020"]), "allow", "one word, wrapped in quotes, arrives as one");
    assert_eq!(v(&["shell", "date", "+%s"]), "allow");
    for refused in [
        &["shell", "date +%s"][..],
        &["shell", "hidumper x", "-s", "1201", "-a", "-p Faultlogger"],
        &["shell", "\"date\""],
        &["shell", "'date'"],
        &["shell", "date", "\"+%s\""],
        &["shell", "date", ""],
        &["install", "-r", "a\"b.hap"],
        &["install", "-r", ""],
        &["file", "send", "x\" \"/system/bin/x", "/data/local/tmp/x"],
        &["-s", "8710 -t other", "list", "targets"],
        &["-t", "\"KEY\"", "list", "targets"],
    ] {
        assert_eq!(v(refused), "deny", "hdc {refused:?}");
    }
    assert_eq!(v(&["file", "send", "my notes.txt", "/data/local/tmp/x"]), "ask", "a space is wrapped and read back");
}

/// Every attack of issue 11, and more: refused outright ("deny") or needing a person's exact
/// rule ("rule"); never allowed, never merely asked (so `--yes` cannot pass them).
#[test]
fn shell_attacks_are_refused_before_any_table() {
    let refused_syntax = [
        "hilog -x ; reboot",
        "hilog -x && rm -rf /data",
        "hilog -x || reboot",
        "hilog -x | grep x",
        "hilog -x & reboot",
        "$(reboot)",
        "echo $(reboot)",
        "echo `reboot`",
        "(reboot)",
        "{ reboot; }",
        "pidof x > /data/local/tmp/p",
        "pidof x >> /data/local/tmp/p",
        "pidof x < /dev/zero",
        "pidof x 2>&1",
        "echo $HOME",
        "echo ${PATH}",
        "ls *",
        "ls /data/*",
        "ls /data/?",
        "ls [a]",
        "cd ~",
        "reboot # now",
        "re\\boot",
        "echo \"$(reboot)\"",
        "echo \"`id`\"",
        "echo 'x",
        "echo \"x",
        "a\nreboot",
        "pidof com.x\nreboot",
        "!!",
        "ls {a,b}",
        "eval reboot;",
        "hilog -x;reboot",
        "hilog -x&&reboot",
        "bm dump -n com.x|sh",
        "param get a;param set persist.x 1",
        "aa start -a A -b com.x;reboot",
        "pidof `echo com.x`",
        "pidof $(echo com.x)",
        "date +%s > /data/local/tmp/x",
        "cat /data/log/faultlog/faultlogger/x; reboot",
        "kill -9 $$",
    ];
    for line in refused_syntax {
        assert_eq!(shell_verdict(line), "deny", "hdc shell {line:?}");
    }
    let not_in_the_table = [
        "reboot",
        "reboot bootloader",
        "/system/bin/reboot",
        "sh -c reboot",
        "toybox reboot",
        "busybox reboot",
        "'reboot'",
        "re''boot",
        "\"reboot\"",
        "FOO=1 reboot",
        "env reboot",
        "exec reboot",
        "nohup reboot",
        "rm -rf /",
        "rm -rf //",
        "rm -rf /data",
        "rm -r /data/",
        "rm /data/local/tmp/../../system/lib/x.so",
        "rm -rf /data/local/tmp/x",
        "dd if=/dev/zero of=/dev/block/sda",
        "dd \"of=/dev/block/sda\"",
        "mkfs.ext4 /dev/block/sdb",
        "setenforce 0",
        "mount -o remount,rw /",
        "param set persist.sys.usb.config none",
        "param set ohos.startup.powerctrl reboot",
        "hilog -r",
        "hilog -x -r",
        "hilog -x -rt app",
        "hilog -x -b D",
        "hilog -x -k off",
        "hilog -x -G 16M",
        "hilog -x -p off",
        "hilog -x -Q pidoff",
        "hilog -x -w start",
        "hilog -x -S",
        "hilog -x -x",
        "hilog",
        "hilog -T testTag",
        "ls /data/local/tmp",
        "cat /data/misc/keystore/x",
        "cat /data/log/faultlog/faultlogger/x.log",
        "aa start -a EntryAbility",
        "aa start -a EntryAbility -b com.x -D",
        "aa start -d dev -a EntryAbility -b com.x",
        "aa force-stop com.x com.y",
        "bm install -p /data/local/tmp/x.hap",
        "bm uninstall -n com.x",
        "pidof com.x extra",
        "snapshot_display -f /data/x.jpeg",
        "snapshot_display -f /data/local/tmp/a/b.jpeg",
        "uitest uiInput click 100 100",
        "date -s 20200101",
        "hidumper -s 1201 -a \"-p Faultlogger -c\"",
        "hidumper",
        "sh",
        "su",
    ];
    for line in not_in_the_table {
        let v = shell_verdict(line);
        assert!(v == "rule" || v == "deny", "hdc shell {line:?} must be refused, got {v}");
    }
}

/// `rm` and `uitest dumpLayout -p` reach only rein's own scratch names on the device
/// (`/data/local/tmp/rein-<letters, digits, ->.jpeg|json`): an agent cannot delete another
/// tool's files, uitest's own `layout_<time>.json`, a folder, or anything outside the scratch
/// folder, nor make uitest overwrite a file that is not rein's. A received file lands only in
/// the workspace's transit folder under the same name when hdc is not asked.
#[test]
fn device_files_rein_removes_are_only_its_own() {
    let refused = [
        "rm /data/local/tmp/layout_1733000000000000.json",
        "rm /data/local/tmp/_tmp_0a1b.jpeg",
        "rm /data/local/tmp/shot.jpeg",
        "rm -f /data/local/tmp/notes.txt",
        "rm /data/local/tmp/rein-",
        "rm /data/local/tmp/rein-.json",
        "rm /data/local/tmp/rein-x.so",
        "rm /data/local/tmp/rein-x.json.bak",
        "rm /data/local/tmp/rein-X.json",
        "rm /data/local/tmp/rein-x/../../../system/x.json",
        "rm /data/local/tmp/rein-x.json /data/local/tmp/other.json",
        "rm -r /data/local/tmp/rein-x.json",
        "rm -rf /data/local/tmp/rein-x.json",
        "rm -f -f /data/local/tmp/rein-x.json",
        "rm /data/rein-x.json",
        "rm /data/local/tmp/sub/rein-x.json",
        "rm -- /data/local/tmp/rein-x.json",
        "uitest dumpLayout",
        "uitest dumpLayout -p /data/local/tmp/layout.json",
        "uitest dumpLayout -p /data/app/rein-x.json",
        "uitest dumpLayout -p /data/local/tmp/rein-x.json -a",
        "uitest dumpLayout -p /data/local/tmp/rein-x.json -b com.x;reboot",
        "uitest dumpLayout -p /data/local/tmp/rein-x.json -p /data/local/tmp/rein-y.json",
    ];
    for line in refused {
        let v = verdict(&format!("shell {line}"));
        assert!(v == "rule" || v == "deny", "hdc shell {line:?} must be refused, got {v}");
    }
    let asked_as_any_transfer = [
        "file recv /data/local/tmp/rein-ui-1.json src/main.ets",
        "file recv /data/local/tmp/rein-ui-1.json .rein-received/../src/rein-ui-1.json",
    ];
    for line in asked_as_any_transfer {
        assert_eq!(verdict(line), "ask", "hdc {line}");
    }
    // The transit folder is protected: only the kernel's own recv of a name it reserved writes
    // there (harmony::received), never a transfer a person could approve.
    let into_transit = [
        "file recv /data/local/tmp/other.json .rein-received/rein-ui-1.json",
        "file recv /data/local/tmp/rein-ui-1.json .rein-received/x.json",
        "file recv /data/local/tmp/rein-ui-1.json .rein-received/sub/rein-ui-1.json",
        "file recv /data/local/tmp/rein-ui-1.json .REIN-RECEIVED/rein-ui-1.json",
        "file recv /data/local/tmp/rein-ui-1.json ./.rein-received/rein-ui-1.json",
        "file recv /data/local/tmp/rein-ui-1.json .rein-received",
        "file send .rein-received/rein-ui-1.json /data/local/tmp/rein-ui-1.json",
        // Nor a device file rein will receive, written by anything but the device's commands.
        "file send note.txt /data/local/tmp/rein-screen-1.jpeg",
        "file send note.txt /data/local/tmp/REIN-screen-1.jpeg",
    ];
    for line in into_transit {
        assert_eq!(verdict(line), "deny", "hdc {line}");
    }
    assert_eq!(verdict("file recv /data/local/tmp/rein-ui-1.json /tmp/.rein-received/rein-ui-1.json"), "deny");
}

#[test]
fn hdc_commands_and_options_outside_the_table_are_refused() {
    let cases = [
        ("", "deny"),
        ("shell", "deny"),
        ("target boot", "deny"),
        ("target mount", "deny"),
        ("flash system system.img", "deny"),
        ("erase -f userdata", "deny"),
        ("format -f userdata", "deny"),
        ("update update.zip", "deny"),
        ("smode", "deny"),
        ("smode -r", "deny"),
        ("tmode port 5555", "deny"),
        ("sideload x.zip", "deny"),
        ("fport tcp:8080 tcp:8080", "rule"),
        ("rport tcp:8080 tcp:8080", "rule"),
        ("fport rm tcp:1", "rule"),
        ("tconn 127.0.0.1:5555", "rule"),
        ("tconn 10.0.0.5:5555", "rule"),
        ("kill", "rule"),
        ("kill -r", "rule"),
        ("start", "rule"),
        ("start -r", "rule"),
        ("keygen /tmp/k", "rule"),
        ("jpid", "rule"),
        ("discover", "rule"),
        ("bugreport", "rule"),
        ("hilog", "rule"),
        ("jdwp", "deny"),
        ("install -r /etc/x.hap", "deny"),
        ("install -r x.hap -cwd /", "deny"),
        ("-cwd / install -r x.hap", "deny"),
        ("install -w 100 x.hap", "rule"),
        ("file recv /data/local/tmp/x.jpeg /etc/x.jpeg", "deny"),
        ("-t K file recv /data/local/tmp/x.jpeg /etc/x.jpeg", "deny"),
        ("file recv -cwd /outside/ /data/local/tmp/x.jpeg x.jpeg", "deny"),
        ("file recv /data/misc/keystore x", "rule"),
        ("file recv -a /data/local/tmp/x.jpeg x.jpeg", "rule"),
        ("file send /home/u/.ssh/id_rsa /data/local/tmp/k", "deny"),
        ("file send notes.txt /system/etc/hosts", "rule"),
        ("-s 10.0.0.5:8710 install -r x.hap", "ask"),
        ("-s evil.example:8710 list targets", "ask"),
        ("-m list targets", "deny"),
        ("-p list targets", "deny"),
        ("-e 0.0.0.0 fport tcp:1 tcp:1", "deny"),
        ("-S shell hilog -x", "deny"),
        ("-t", "deny"),
        ("-t shell list targets", "deny"),
        ("-l x list targets", "deny"),
        ("-L /tmp/log list targets", "deny"),
        ("uninstall com.x;reboot", "rule"),
        ("uninstall -n com.x", "rule"),
    ];
    for (line, expected) in cases {
        assert_eq!(verdict(line), expected, "hdc {line}");
    }
    assert_eq!(verdict_of(&["install", "-r", "x.hap", "-u 100"].map(String::from)), "rule");
    assert_eq!(verdict_of(&["shell", "pidof", "com.x; reboot"].map(String::from)), "deny");
    assert_eq!(verdict_of(&["shell", "pidof", ""].map(String::from)), "deny");
}

#[test]
fn named_lab_servers_are_judged_like_the_local_one_and_unnamed_ones_ask() {
    let classify = |_: &str| PathClass::Workspace;
    let servers = HdcServers::new(Some("27710"), vec![("lab".into(), "127.0.0.1:27720".into())]);
    let cases = [
        ("list targets -v", "allow"),
        ("-s 27710 list targets -v", "allow"),
        ("-s 127.0.0.1:27720 list targets -v", "allow"),
        ("-s 127.0.0.1:27720 -t 127.0.0.1:27778 shell hilog -x", "allow"),
        ("-s 127.0.0.1:27720 -t 127.0.0.1:27778 install -r x.hap", "ask"),
        // A loopback port nobody named may be a tunnel to another machine's server.
        ("-s 127.0.0.1:27730 list targets -v", "ask"),
        ("-s 8710 list targets -v", "ask"),
        ("-s 127.0.0.1:27720 target boot", "deny"),
    ];
    for (line, expected) in cases {
        assert_eq!(label(&decide(&words(line), &classify, &servers, &hello)), expected, "{line}");
    }
}

#[test]
fn device_commands_name_their_server_and_target() {
    let of = |line: &str| device_of(&words(line));
    let device = |server: Option<&str>, target: Option<&str>| {
        Some(DeviceOf { server: server.map(String::from), target: target.map(String::from) })
    };
    assert_eq!(of("-t K install -r x.hap"), device(None, Some("K")));
    assert_eq!(of("-s 127.0.0.1:27720 -tK shell aa start -a A -b B"), device(Some("127.0.0.1:27720"), Some("K")));
    assert_eq!(of("uninstall com.x"), device(None, None));
    assert_eq!(of("file recv /data/local/tmp/x a"), device(None, None));
    for line in ["list targets -v", "version", "tconn 127.0.0.1:5555", "fport ls", "-t K -x shell ls"] {
        assert_eq!(of(line), None, "{line}");
    }
}

/// `hdc install` sends a path that is not a `.hap`, `.hsp` or `.app` as a folder, whole
/// (developtools_hdc host_app.cpp `BeginInstall`, `Dir2Tar`): a workspace folder would carry
/// whatever the agent put in it. Only packages, and folders rein staged in its own `.rein/`.
#[test]
fn install_takes_packages_and_the_folders_rein_staged_only() {
    let classify = |p: &str| {
        if p.starts_with('/') {
            PathClass::Outside
        } else if p.starts_with(".rein/") || p.starts_with(".git/") {
            PathClass::Protected
        } else {
            PathClass::Workspace
        }
    };
    let cases = [
        ("install -r entry-default-signed.hap feature-default-signed.hap library-default-signed.hsp", "ask"),
        ("install -r .rein/install/1733090000000-42-0", "ask"),
        ("-t K install -r .rein/install/1-2-3", "ask"),
        ("install -r entry", "rule"),
        ("install -r .", "rule"),
        ("install -r signing", "rule"),
        ("install -r x.app", "rule"),
        ("install -r .rein/install/1/../../journal", "rule"),
        ("install -r .rein/journal", "rule"),
        ("install -r .rein/install", "rule"),
        ("install -r .git/x.hap", "deny"),
        ("install -r .rein/x.hap", "deny"),
        ("install -r a.hap /home/u/.ssh/x.hap", "deny"),
        ("install -r /ws/.rein/install/1-2-3", "rule"),
    ];
    for (line, expected) in cases {
        assert_eq!(label(&decide(&words(line), &classify, &HdcServers::default(), &hello)), expected, "hdc {line}");
    }
}

/// `aa test` of the project's own test module runs unasked, with Hypium's keys by their value
/// rules; another bundle or module, or `-D`, asks; anything else is refused unless a rule names it.
#[test]
fn aa_test_of_the_projects_own_tests_runs_and_the_rest_asks() {
    let run = "shell aa test -b com.example.hello -m entry_test -s unittest OpenHarmonyTestRunner";
    let cases = [
        (run.to_string(), "allow"),
        (format!("{run} -w 600"), "allow"),
        (format!("{run} -s class ActsAbilityTest#assertContain,MathTest -s timeout 10000"), "allow"),
        (
            format!("{run} -s notClass Slow -s itName assertContain -s level 1 -s size small -s testType function"),
            "allow",
        ),
        (format!("{run} -s dryRun true"), "allow"),
        (
            "shell aa test -s unittest /ets/testrunner/OpenHarmonyTestRunner -m entry_test -b com.example.hello".into(),
            "allow",
        ),
        // A person decides: another bundle, another module, the debugger.
        ("shell aa test -b com.other.app -m entry_test -s unittest OpenHarmonyTestRunner".into(), "ask"),
        ("shell aa test -b com.example.hello -m feature_test -s unittest OpenHarmonyTestRunner".into(), "ask"),
        ("shell aa test -b com.example.hello -m entry -s unittest OpenHarmonyTestRunner".into(), "ask"),
        (format!("{run} -D"), "ask"),
        // Outside the typed shape: refused unless a person's rule names it.
        (format!("{run} -s class 1bad"), "rule"),
        (format!("{run} -s level 5"), "rule"),
        (format!("{run} -s size huge"), "rule"),
        (format!("{run} -s timeout -1"), "rule"),
        (format!("{run} -w 1.5"), "rule"),
        (format!("{run} -s dryRun yes"), "rule"),
        (format!("{run} -s coverage true"), "rule"),
        (format!("{run} -s stress 100"), "rule"),
        (format!("{run} -u 100"), "rule"),
        (format!("{run} -p com.example.hello"), "rule"),
        (format!("{run} -w 5 -w 6"), "rule"),
        (format!("{run} -s class A -s class B"), "rule"),
        ("shell aa test -b com.example.hello -m entry_test".into(), "rule"),
        ("shell aa test -b com.example.hello -m entry_test -s unittest ../x".into(), "rule"),
        (format!("{run} -s class A;reboot"), "deny"),
    ];
    for (line, expected) in &cases {
        assert_eq!(verdict(line), *expected, "hdc {line}");
    }
    // The project's files decide what is its own: without them nothing runs unasked.
    let unknown = label(&decide(&words(run), &classify, &HdcServers::default(), &ProjectFacts::default));
    assert_eq!(unknown, "ask");
    assert!(runs_tests(&words(run)) && runs_tests(&words("-t K shell aa test -b x")));
    assert!(runs_tests(&["shell".to_string(), "aa test -b com.example.hello".to_string()]));
    assert!(!runs_tests(&words("shell aa start -a A -b B")) && !runs_tests(&words("install aa test")));
}
