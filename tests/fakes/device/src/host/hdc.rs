//! Fake `hdc`: the client's parsing, the server's device selection, and the commands rein runs.
//! Like the real client it always exits 0 and reports failure only through text
//! (`openharmony/developtools_hdc` @8b85a677 `src/host/main.cpp` ends client mode in `_exit(0)`).
//! Device commands run through [`crate::device_command`], as the real daemon runs the device's
//! programs, so the device's logic has one home.

use serde_json::{json, Map, Value};

use super::common::{conf_str, err, out, outln, Conf};
use super::{hdc_app, hdc_file, hdc_server};
use crate::device::safe_key;
use crate::state::State;

/// Registered commands (main.cpp `IsRegisterCommand`): one- and two-word forms.
const SINGLE: [&str; 27] = [
    "version",
    "help",
    "discover",
    "checkserver",
    "checkdevice",
    "wait",
    "any",
    "tconn",
    "shell",
    "fport",
    "rport",
    "kill",
    "start",
    "keygen",
    "install",
    "uninstall",
    "hilog",
    "smode",
    "bugreport",
    "tmode",
    "sideload",
    "jpid",
    "track-jpid",
    "update",
    "flash",
    "erase",
    "format",
];
const DOUBLE: [&str; 5] = ["list targets", "file send", "file recv", "target mount", "target boot"];
const DEVICE_COMMANDS: [&str; 15] = [
    "shell",
    "install",
    "uninstall",
    "file send",
    "file recv",
    "hilog",
    "target mount",
    "target boot",
    "smode",
    "tmode",
    "jpid",
    "track-jpid",
    "bugreport",
    "sideload",
    "rport",
];

const NEED_KEY: &str = "[Fail]ExecuteCommand need connect-key? please confirm a device by help info";
const NO_MATCH: &str = "[Fail]Not match target founded, check connect-key please";
const OFFLINE: &str = "[Fail][E001005] Device not found or connected";
const UNAUTHORIZED: &str = "[Fail][E000002]:The device unauthorized.\r\nThis server's public key is not set.\r\nPlease check for a confirmation dialog on your device.\r\nOtherwise try 'hdc kill' if that seems wrong.";
const DENIED: &str = "[Fail][E000003]:The device unauthorized.\r\nThe user denied the access for the device.\r\nPlease execute 'hdc kill' and redo your command,\r\nthen check for a confirmation dialog on your device.";
const NOT_READY: &str =
    "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.";

/// The fake's own usage text (rein never reads the real one's).
const USAGE: &str = "
                         OpenHarmony device connector(hdc) ... (rein fake)

 -h/help [verbose]                     - Print hdc help
 -v/version                            - Print hdc version
 -t connectkey                         - Use device with given connect key
 list targets [-v]                     - List all devices status, -v for detail
 tconn key                             - Connect device via key, TCP use ip:port
 kill [-r]                             - Kill server
 file send|recv [option] src dst       - Transfer a file
 install [-r] src                      - Send package(s) to device and install them
 uninstall [-k] package                - Remove application package from device
 hilog                                 - Show device log
 shell [COMMAND...]                    - Run shell command
";

/// main.cpp `SplitOptionAndCommand`: everything before the first registered command is an
/// option; the command (two words joined for a two-word one) and its arguments follow.
fn split_option_and_command(argv: &[String]) -> (&[String], Vec<String>) {
    for (i, arg) in argv.iter().enumerate() {
        if let Some(next) = argv.get(i + 1) {
            let both = format!("{arg} {next}");
            if DOUBLE.contains(&both.as_str()) {
                return (&argv[..i], std::iter::once(both).chain(argv[i + 2..].iter().cloned()).collect());
            }
        }
        if SINGLE.contains(&arg.as_str()) || arg.starts_with("wait") {
            return (&argv[..i], argv[i..].to_vec());
        }
    }
    (argv, Vec::new())
}

/// getopt("hvpfmncs:Sd:e:t:l:") with GNU permutation and opterr=0: unknown characters are
/// skipped, so `--version` reaches 'v' as in the real client.
fn parse_options(options: &[String]) -> Map<String, Value> {
    let mut parsed = Map::new();
    let mut i = 0;
    while i < options.len() {
        let arg = &options[i];
        i += 1;
        if arg == "--" {
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            continue;
        }
        let chars: Vec<char> = arg.chars().collect();
        let mut j = 1;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            if "hvpfmncS".contains(c) {
                parsed.entry(c.to_string()).or_insert(json!(true));
                if c == 'h' || c == 'v' {
                    return parsed;
                }
            } else if "sdetl".contains(c) {
                if j < chars.len() {
                    parsed.insert(c.to_string(), json!(chars[j..].iter().collect::<String>()));
                } else if i < options.len() {
                    parsed.insert(c.to_string(), json!(options[i]));
                    i += 1;
                }
                break;
            }
        }
    }
    parsed
}

/// devices.json's entries with their defaults.
pub fn list_devices(state: &State) -> Vec<Map<String, Value>> {
    let listed = state.read_json("devices.json", json!([]));
    let mut devices = Vec::new();
    for d in listed.as_array().into_iter().flatten() {
        let mut d = d.as_object().cloned().unwrap_or_default();
        d.entry("status").or_insert(json!("Connected"));
        d.entry("conn").or_insert(json!("USB"));
        d.entry("name").or_insert(json!("localhost"));
        devices.push(d);
    }
    devices
}

fn field<'a>(d: &'a Map<String, Value>, name: &str) -> &'a str {
    d.get(name).and_then(Value::as_str).unwrap_or("")
}

/// The device, or the server's failure text (`server_for_client.cpp`).
fn select_device<'a>(
    key: Option<&str>,
    devices: &'a [Map<String, Value>],
) -> Result<&'a Map<String, Value>, &'static str> {
    let d = match key {
        Some(key) => {
            let d = devices.iter().find(|d| field(d, "key") == key).ok_or(NO_MATCH)?;
            if field(d, "status") == "Offline" {
                return Err(OFFLINE);
            }
            d
        }
        None => {
            let usable: Vec<_> = devices.iter().filter(|d| field(d, "status") != "Offline").collect();
            match usable.as_slice() {
                [one] => *one,
                _ => return Err(NEED_KEY),
            }
        }
    };
    if field(d, "status") == "Unauthorized" {
        return Err(if d.get("auth_denied").is_some_and(truthy_json) { DENIED } else { UNAUTHORIZED });
    }
    if d.get("channel_not_ready").is_some_and(truthy_json) {
        return Err(NOT_READY);
    }
    Ok(d)
}

fn truthy_json(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false)) && v != &json!(0) && v != &json!("")
}

/// The server's answer; with none, the real build prints `[Empty]\r\n`, and with -v
/// `[Empty]\r\thdc\n` (observed, tests/fakes/README.md "Where the real tools differed").
fn list_targets(devices: &[Map<String, Value>], verbose: bool) {
    let lines: Vec<String> = if verbose {
        let line = |d| {
            format!("{}\t\t{}\t{}\t{}\thdc", field(d, "key"), field(d, "conn"), field(d, "status"), field(d, "name"))
        };
        devices.iter().map(line).collect()
    } else {
        devices
            .iter()
            .filter_map(|d| match field(d, "status") {
                "Connected" => Some(field(d, "key").to_string()),
                "Unauthorized" => Some(format!("{}\tUnauthorized", field(d, "key"))),
                _ => None,
            })
            .collect()
    };
    if !lines.is_empty() {
        outln(&lines.join("\n"));
    } else {
        out(if verbose { "[Empty]\r\thdc\n" } else { "[Empty]\r\n" });
    }
}

fn tconn(state: &State, rest: &[String], mut devices: Vec<Map<String, Value>>) {
    let target = rest.first().map(String::as_str).unwrap_or("");
    if let Some((ip, _)) = target.split_once(':') {
        let parts: Vec<&str> = ip.split('.').collect();
        let valid = parts.len() == 4
            && parts.iter().all(|p| {
                !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u32>().is_ok_and(|n| n < 256)
            });
        if !valid {
            outln("[Fail][E001104]:IP address incorrect");
            return;
        }
    }
    let failed = state.scenario("hdc").get("tconn_fail").is_some_and(truthy_json);
    if devices.iter().any(|d| field(d, "key") == target && field(d, "status") == "Connected") {
        out("[Info]Target is connected, repeat operation\r\n");
        return;
    }
    devices.retain(|d| field(d, "key") != target);
    // The server keeps the key it could not reach, as an Offline target (observed).
    let (status, name) = if failed { ("Offline", "unknown...") } else { ("Connected", "localhost") };
    let entry = json!({"key": target, "status": status, "conn": "TCP", "name": name});
    devices.push(entry.as_object().cloned().unwrap_or_default());
    state.write_json("devices.json", &Value::Array(devices.into_iter().map(Value::Object).collect()));
    out(if failed { "[Fail]Connect failed\r\n" } else { "Connect OK\r\n" });
}

fn run(state: &State, argv: &[String], conf: &Conf) {
    let (options, command) = split_option_and_command(argv);
    let opts = parse_options(options);
    let version = format!("Ver: {}", conf_str(conf, "version").unwrap_or_else(|| "3.2.0f".into()));
    if opts.contains_key("h") {
        return err(USAGE);
    }
    if opts.contains_key("v") {
        return outln(&version);
    }
    let Some((name, rest)) = command.split_first() else {
        outln("Unknown operation command...");
        return err(USAGE);
    };
    let devices = list_devices(state);
    match name.as_str() {
        "version" => outln(&version),
        "help" => out(USAGE),
        "list targets" => list_targets(&devices, rest.iter().any(|a| a == "-v")),
        "checkserver" => outln(&format!("Client version:{version}, server version:{version}")),
        // client.cpp KillMethodByUv: `kill -r` restarts the server and says nothing.
        "kill" => hdc_server::kill(state, rest.iter().any(|a| a == "-r")),
        "start" => hdc_server::start(state, opts.get("s").and_then(Value::as_str)),
        // `wait` returns at once: a fake device never takes time to appear.
        "keygen" | "discover" | "any" => {}
        n if n.starts_with("wait") => {}
        "tconn" => tconn(state, rest, devices),
        "fport" if rest.first().is_some_and(|a| a == "ls") => out("[Empty]\r\n"),
        n if DEVICE_COMMANDS.contains(&n) || n == "fport" => {
            match select_device(opts.get("t").and_then(Value::as_str), &devices) {
                // The server's EchoClient ends a message with "\r\n" (server_for_client.cpp).
                Err(failure) => out(&format!("{failure}\r\n")),
                Ok(device) => run_on_device(state, n, rest, field(device, "key"), conf),
            }
        }
        _ => {
            outln("Unknown operation command...");
            err(USAGE);
        }
    }
}

fn run_on_device(state: &State, name: &str, rest: &[String], key: &str, conf: &Conf) {
    match name {
        "install" => hdc_app::install(state, rest, key, conf),
        "uninstall" => hdc_app::uninstall(state, rest, key, conf),
        "file send" => hdc_file::send(state, rest, key, conf),
        "file recv" => hdc_file::recv(state, rest, key, conf),
        "shell" => shell(state, rest, key),
        "hilog" => {
            let words: Vec<String> =
                ["hilog", "-x"].iter().map(|s| s.to_string()).chain(rest.iter().cloned()).collect();
            out(&on_device(state, key, &words));
        }
        "fport" => out("Forwardport result:OK\r\n"),
        "target boot" => {
            on_device(state, key, &["reboot".to_string()]);
        }
        // target mount, smode, tmode, jpid, ...: accepted silently
        _ => {}
    }
}

fn shell(state: &State, rest: &[String], key: &str) {
    let rest = match rest.first().map(String::as_str) {
        Some("-b") => rest.get(2..).unwrap_or_default(),
        Some(option) if option.starts_with('-') => {
            // The client knows -b alone (observed: `hdc shell -x`).
            return outln(&format!("[Fail][E003003] Unsupport shell option: {option}"));
        }
        _ => rest,
    };
    // The client joins its arguments with spaces and wraps each one holding a space in double
    // quotes, escaping nothing (main.cpp SplitOptionAndCommand); the daemon strips one pair of
    // quotes enclosing the whole line and runs it with /bin/sh -c (observed on the real build,
    // shared/HARMONY.md). So `shell "aa start -a A -b B"` runs aa, and among several arguments
    // `-a "-p Faultlogger -l"` reaches the device as one word.
    let joined: Vec<String> =
        rest.iter().map(|a| if a.contains(' ') { format!("\"{a}\"") } else { a.clone() }).collect();
    let mut line = joined.join(" ");
    if line.len() >= 2 && line.starts_with('"') && line.ends_with('"') {
        line = line[1..line.len() - 1].to_string();
    }
    let words = super::shell_words::split(&line).unwrap_or_else(|| line.split_whitespace().map(String::from).collect());
    if !words.is_empty() {
        out(&on_device(state, key, &words));
    }
}

/// Runs the device command `words` on device `key`; what it printed. The fake hdc holds the
/// state lock for its whole run (the device is told so by `REIN_FAKE_LOCK_HELD`).
pub fn on_device(state: &State, key: &str, words: &[String]) -> String {
    crate::device_command(state, key, words)
}

/// The folder behind the device path `remote` (`device-<key>.fs/` in the state directory,
/// where rein-fake-device keeps the device's files), with `/data/local/tmp` made.
pub fn device_file(state: &State, key: &str, remote: &str) -> std::path::PathBuf {
    let root = state.path(&format!("device-{}.fs", safe_key(key)));
    let _ = std::fs::create_dir_all(root.join("data").join("local").join("tmp"));
    root.join(remote.trim_start_matches('/'))
}

pub fn main(state: &State, argv: &[String]) -> i32 {
    let conf = state.scenario("hdc");
    let _lock = state.lock();
    // The device commands this runs must neither take the lock again nor use a device root a
    // caller's environment names (the rig sets one for the real hdcd).
    std::env::set_var("REIN_FAKE_LOCK_HELD", "1");
    std::env::remove_var("REIN_FAKE_DEVICE_ROOT");
    run(state, argv, &conf);
    0
}
