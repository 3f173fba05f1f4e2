//! Pipelined `tools/call` throughput of `rein serve` against the reference filesystem MCP
//! server (npm `@modelcontextprotocol/server-filesystem`), measured side by side in one run,
//! by two clients: this program, and a plain Python client writing JSON lines without an SDK
//! (`benches/mcp_pipeline_client.py`, as an agent's client might). `cargo bench --bench
//! mcp_pipeline`.
//!
//! Each round starts a fresh server, initializes it, writes CALLS requests to read the same
//! 2 KiB file without waiting (as a client with many requests in flight would), and reads
//! every response; the rate is CALLS over the time from the first request written to the last
//! response read. Rounds alternate between the servers and the clients; medians are reported,
//! and the ratio of the medians for each client. The reference server is looked for in
//! `.ci/tools/clients` (where `.ci/clients` installs it) or at `$REIN_BENCH_REFERENCE`.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const REIN: &str = env!("CARGO_BIN_EXE_rein");
const CALLS: usize = 3000;
const ROUNDS: usize = 9;
const FILE_BYTES: usize = 2 * 1024;
const TARGET_RATE: f64 = 15_000.0;
const TARGET_RATIO: f64 = 4.0;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rein-bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

struct Server {
    name: &'static str,
    /// The program and its arguments.
    argv: Vec<OsString>,
    /// The tool that reads a file, and the path it is given.
    tool: &'static str,
    path: String,
}

impl Server {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.argv[0]);
        command.args(&self.argv[1..]).env_remove("REIN_HOME").env_remove("REIN_LOG").stderr(Stdio::null());
        command
    }
}

/// Calls per second for one round, with this program as the client.
fn round(server: &Server) -> f64 {
    let mut child = server.command().stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("spawn");
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
    let requests: String = (1..=CALLS).map(|id| call(id, server.tool, &server.path) + "\n").collect();
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

/// Calls per second for one round, with the plain Python client.
fn python_round(server: &Server) -> f64 {
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/mcp_pipeline_client.py");
    let out = Command::new("python3")
        .arg(client)
        .arg(CALLS.to_string())
        .arg(server.tool)
        .arg(&server.path)
        .arg("--")
        .args(&server.argv)
        .env_remove("REIN_HOME")
        .env_remove("REIN_LOG")
        .output()
        .expect("run python3 benches/mcp_pipeline_client.py");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Python client failed on {}: {}",
        server.name,
        String::from_utf8_lossy(&out.stderr)
    );
    text.trim().parse().unwrap_or_else(|_| panic!("the Python client printed {text:?}"))
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

/// Rates of each round, for one client and one server.
#[derive(Default)]
struct Rates(Vec<f64>);

impl Rates {
    fn median(&self) -> f64 {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    }

    fn rounds(&self) -> String {
        self.0.iter().map(|r| format!("{r:.0}")).collect::<Vec<_>>().join(" ")
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).expect("workspace");
    std::fs::create_dir_all(root.join("home")).expect("home");
    let line = format!("{}\n", "x".repeat(63));
    std::fs::write(ws.join("bench.txt"), line.repeat(FILE_BYTES / 64)).expect("bench file");

    let rein = Server {
        name: "rein serve",
        argv: vec![
            REIN.into(),
            "--workspace".into(),
            ws.clone().into(),
            "--home".into(),
            root.join("home").into(),
            "serve".into(),
        ],
        tool: "read_file",
        path: "bench.txt".into(),
    };
    let Some(reference_bin) = reference_server() else {
        eprintln!(
            "the reference server is not installed: run `bash .ci/clients` (it installs it into .ci/tools/clients), or set REIN_BENCH_REFERENCE"
        );
        std::process::exit(2);
    };
    let reference = Server {
        name: "server-filesystem",
        argv: vec![reference_bin.clone().into(), ws.clone().into()],
        tool: "read_text_file",
        path: ws.join("bench.txt").display().to_string(),
    };

    let (mut rust_rein, mut rust_reference) = (Rates::default(), Rates::default());
    let (mut python_rein, mut python_reference) = (Rates::default(), Rates::default());
    round(&rein);
    round(&reference);
    for _ in 0..ROUNDS {
        rust_rein.0.push(round(&rein));
        rust_reference.0.push(round(&reference));
        python_rein.0.push(python_round(&rein));
        python_reference.0.push(python_round(&reference));
    }
    println!("rein pipelined tools/call — reproduce with: cargo bench --bench mcp_pipeline");
    println!(
        "nproc: {}   {CALLS} read_file calls on a {} KiB file written at once, {ROUNDS} rounds each (median)",
        std::thread::available_parallelism().map(usize::from).unwrap_or(1),
        FILE_BYTES / 1024
    );
    println!("reference: {} (@modelcontextprotocol/server-filesystem, read_text_file)", reference_bin.display());
    println!();
    println!("{:<12} {:<20} {:>10}   rounds", "client", "server", "calls/s");
    let rows = [
        ("rust", "rein serve", &rust_rein),
        ("rust", "server-filesystem", &rust_reference),
        ("python", "rein serve", &python_rein),
        ("python", "server-filesystem", &python_reference),
    ];
    for (client, server, rates) in rows {
        println!("{client:<12} {server:<20} {:>10.0}   {}", rates.median(), rates.rounds());
    }
    println!();
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    let rate = rust_rein.median();
    println!("rate          {rate:>8.0} calls/s   target >= {TARGET_RATE:.0}   {}", verdict(rate >= TARGET_RATE));
    for (client, rein, reference) in
        [("rust", &rust_rein, &rust_reference), ("python", &python_rein, &python_reference)]
    {
        let ratio = rein.median() / reference.median();
        println!(
            "ratio {client:<7} {ratio:>8.2}x          target >= {TARGET_RATIO:.1}x    {}",
            verdict(ratio >= TARGET_RATIO)
        );
    }
}
