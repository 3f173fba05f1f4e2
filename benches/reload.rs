//! Hot reload as an agent sees it: the time from saving a tool file to the new behaviour
//! being served over MCP, `cargo bench --bench reload`.
//!
//! A `rein serve` session is started on a workspace with `tools/greet.lua`; then, SAVES times,
//! the file is rewritten with a new version and the clock runs until a `tools/call greet`
//! returns that version (the client waits for `notifications/tools/list_changed`, then
//! calls). The reload includes the 100 ms settle, loading a new generation and running the
//! tool's check in a scratch workspace. Median and worst are reported.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const REIN: &str = env!("CARGO_BIN_EXE_rein");
const SAVES: usize = 15;
const TARGET_MS: f64 = 150.0;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rein-bench","version":"0"}}}"#;

fn greet(version: usize) -> String {
    format!(
        r#"return {{ name = "greet", description = "greets",
  checks = {{ {{ args = {{}}, expect = {{ text = "v{version}" }} }} }},
  run = function() return {{ text = "v{version}" }} end }}
"#
    )
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("tools")).expect("tools");
    std::fs::create_dir_all(root.join("home")).expect("home");
    std::fs::write(ws.join("tools/greet.lua"), greet(0)).expect("tool");

    let mut child = Command::new(REIN)
        .arg("--workspace")
        .arg(&ws)
        .arg("--home")
        .arg(root.join("home"))
        .arg("serve")
        .env_remove("REIN_HOME")
        .env_remove("REIN_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn rein serve");
    let mut input = child.stdin.take().expect("stdin");
    let (tx, lines) = std::sync::mpsc::channel::<String>();
    let output = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = |what: &str| lines.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("no {what} in 30 s"));
    writeln!(input, "{INITIALIZE}").expect("initialize");
    while !next("initialize response").contains("\"id\":0") {}
    writeln!(input, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).expect("initialized");

    let mut times = Vec::new();
    for version in 1..=SAVES {
        // Let the previous reload's quiet time pass, as between two saves of a person.
        std::thread::sleep(Duration::from_millis(400));
        let saved = Instant::now();
        std::fs::write(ws.join("tools/greet.lua"), greet(version)).expect("save");
        while !next("list_changed").contains("notifications/tools/list_changed") {}
        let id = 1000 + version;
        writeln!(
            input,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet","arguments":{{}}}}}}"#
        )
        .expect("call");
        let answer = loop {
            let line = next("the call's response");
            if line.contains(&format!("\"id\":{id}")) {
                break line;
            }
        };
        let elapsed = saved.elapsed().as_secs_f64() * 1e3;
        assert!(answer.contains(&format!("v{version}")), "the new version is served: {answer}");
        times.push(elapsed);
    }
    drop(input);
    let _ = child.wait();

    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let worst = times[times.len() - 1];
    println!("rein hot reload — reproduce with: cargo bench --bench reload");
    println!(
        "nproc: {}   {SAVES} saves of tools/greet.lua (one check), save -> new behaviour served over MCP",
        std::thread::available_parallelism().map(usize::from).unwrap_or(1)
    );
    println!("median {median:.0} ms   worst {worst:.0} ms   best {:.0} ms   (includes the 100 ms settle)", times[0]);
    println!("target: median < {TARGET_MS:.0} ms   {}", if median < TARGET_MS { "PASS" } else { "FAIL" });
}
