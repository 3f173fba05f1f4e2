//! Pipelined `tools/call` throughput of `rein serve` against the reference filesystem MCP
//! server (npm `@modelcontextprotocol/server-filesystem`), measured side by side in one run:
//! `cargo bench --bench mcp_pipeline`.
//!
//! Each round starts a fresh server, initializes it, writes CALLS requests to read the same
//! 2 KiB file without waiting (as a client with many requests in flight would), and reads
//! every response; the rate is CALLS over the time from the first request written to the last
//! response read. Rounds alternate between the two servers; medians are reported, and the
//! ratio of the medians. The reference server is looked for in `.ci/tools/clients` (where
//! `.ci/clients` installs it) or at `$REIN_BENCH_REFERENCE`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const REIN: &str = env!("CARGO_BIN_EXE_rein");
const CALLS: usize = 3000;
const ROUNDS: usize = 5;
const FILE_BYTES: usize = 2 * 1024;
const TARGET_RATE: f64 = 15_000.0;
const TARGET_RATIO: f64 = 3.0;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rein-bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

struct Server {
    name: &'static str,
    command: Box<dyn Fn() -> Command>,
    /// The `tools/call` params for request `id`.
    call: Box<dyn Fn(usize) -> String>,
}

/// Calls per second for one round.
fn round(server: &Server) -> f64 {
    let mut child = (server.command)().stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    writeln!(input, "{INITIALIZE}").expect("initialize");
    loop {
        line.clear();
        assert!(output.read_line(&mut line).expect("read") > 0, "{} closed before initializing", server.name);
        if line.contains("\"id\":0") {
            break;
        }
    }
    writeln!(input, "{INITIALIZED}").expect("initialized");
    let requests: String = (1..=CALLS).map(|id| (server.call)(id) + "\n").collect();
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        input.write_all(requests.as_bytes()).expect("write the requests");
        input
    });
    let mut answered = 0;
    while answered < CALLS {
        line.clear();
        assert!(output.read_line(&mut line).expect("read") > 0, "{} closed its stdout", server.name);
        if line.contains("\"result\"") || line.contains("\"error\"") {
            assert!(!line.contains("\"isError\":true") && !line.contains("\"error\""), "{}: {line}", server.name);
            answered += 1;
        }
    }
    let rate = CALLS as f64 / started.elapsed().as_secs_f64();
    drop(writer.join().expect("writer"));
    let _ = child.wait();
    rate
}

fn call(id: usize, tool: &str, path: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"path":"{path}"}}}}}}"#
    )
}

fn reference_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("REIN_BENCH_REFERENCE") {
        return Some(PathBuf::from(path));
    }
    let installed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/tools/clients/node_modules/.bin/mcp-server-filesystem");
    installed.exists().then_some(installed)
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).expect("workspace");
    std::fs::create_dir_all(root.join("home")).expect("home");
    let line = format!("{}\n", "x".repeat(63));
    std::fs::write(ws.join("bench.txt"), line.repeat(FILE_BYTES / 64)).expect("bench file");

    let rein = {
        let (ws, home) = (ws.clone(), root.join("home"));
        Server {
            name: "rein serve",
            command: Box::new(move || {
                let mut command = Command::new(REIN);
                command.arg("--workspace").arg(&ws).arg("--home").arg(&home).arg("serve");
                command.env_remove("REIN_HOME").env_remove("REIN_LOG").stderr(Stdio::null());
                command
            }),
            call: Box::new(|id| call(id, "read_file", "bench.txt")),
        }
    };
    let Some(reference_bin) = reference_server() else {
        eprintln!(
            "the reference server is not installed: run `bash .ci/clients` (it installs it into .ci/tools/clients), or set REIN_BENCH_REFERENCE"
        );
        std::process::exit(2);
    };
    let reference = {
        let (ws, bin) = (ws.clone(), reference_bin.clone());
        let file = ws.join("bench.txt").display().to_string();
        Server {
            name: "server-filesystem",
            command: Box::new(move || {
                let mut command = Command::new(&bin);
                command.arg(&ws).stderr(Stdio::null());
                command
            }),
            call: Box::new(move |id| call(id, "read_text_file", &file)),
        }
    };

    let (mut rates_rein, mut rates_reference) = (Vec::new(), Vec::new());
    round(&rein);
    round(&reference);
    for _ in 0..ROUNDS {
        rates_rein.push(round(&rein));
        rates_reference.push(round(&reference));
    }
    let (r, f) = (median(&mut rates_rein), median(&mut rates_reference));
    println!("rein pipelined tools/call — reproduce with: cargo bench --bench mcp_pipeline");
    println!(
        "nproc: {}   {CALLS} read_file calls on a {} KiB file written at once, {ROUNDS} rounds each (median)",
        std::thread::available_parallelism().map(usize::from).unwrap_or(1),
        FILE_BYTES / 1024
    );
    println!("reference: {} (@modelcontextprotocol/server-filesystem, read_text_file)", reference_bin.display());
    println!();
    println!("{:<28} {:>12} {:>12}", "server", "calls/s", "rounds");
    let show = |v: &[f64]| v.iter().map(|r| format!("{r:.0}")).collect::<Vec<_>>().join(" ");
    println!("{:<28} {:>12.0}   {}", "rein serve", r, show(&rates_rein));
    println!("{:<28} {:>12.0}   {}", "server-filesystem", f, show(&rates_reference));
    println!();
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    println!("rate  {r:>8.0} calls/s   target >= {TARGET_RATE:.0}   {}", verdict(r >= TARGET_RATE));
    println!("ratio {:>8.2}x          target >= {TARGET_RATIO:.1}x    {}", r / f, verdict(r / f >= TARGET_RATIO));
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
