//! `rein serve` over stdio, measured in one run against a baseline on the same pipes:
//! `cargo bench --bench mcp`.
//!
//! The client here writes JSON-RPC lines by hand so that its own cost stays out of the
//! figures. The baseline is `cat` at the other end of the same kind of pipes: it echoes each
//! request line back, which is what any stdio server must at least pay (process start, two
//! pipe hops, a line read and written).
//!
//! - cold start: spawn `rein serve`, send `initialize`, until its response is read;
//! - server side: from the moment rmcp hands `tools/call` to rein until rein's result is
//!   ready (rein logs it at debug level; a separate server so the log line costs nothing in
//!   the round trips);
//! - round trip: one request at a time, write to response read;
//! - pipelined: PIPELINE requests in flight, calls/s and the send-to-response p50.
//!
//! A missed target is printed, not raised: the numbers are the result.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

const REIN: &str = env!("CARGO_BIN_EXE_rein");

const FILE_BYTES: usize = 2 * 1024;
const START_RUNS: usize = 31;
const WARMUP: usize = 1_000;
const SEQUENTIAL_CALLS: usize = 10_000;
const PIPELINED_CALLS: usize = 20_000;
const PIPELINE: usize = 16;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rein-bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"bench.txt"}}}}}}"#
    )
}

/// One process at the end of a pair of pipes that answers each line with one line.
struct Peer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    line: String,
}

impl Peer {
    fn spawn(mut command: Command) -> Peer {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("spawn");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Peer { child, input, output, line: String::new() }
    }

    fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).and_then(|_| self.input.write_all(b"\n")).expect("write a request");
        self.input.flush().expect("flush");
    }

    /// The id of the next response line (None for notifications).
    fn receive(&mut self) -> Option<usize> {
        self.line.clear();
        let read = self.output.read_line(&mut self.line).expect("read a response");
        assert!(read > 0, "the server closed its stdout");
        assert!(!self.line.contains("\"isError\":true"), "the call failed: {}", self.line);
        response_id(&self.line)
    }

    fn round_trip(&mut self, line: &str, id: usize) -> f64 {
        let started = Instant::now();
        self.send(line);
        while self.receive() != Some(id) {}
        started.elapsed().as_secs_f64() * 1e6
    }

    fn stop(mut self) {
        drop(self.input);
        let _ = self.child.wait();
    }
}

/// `"id":N` near the start of a JSON-RPC response (rmcp writes `jsonrpc` then `id`).
fn response_id(line: &str) -> Option<usize> {
    let head = &line[..line.len().min(64)];
    let start = head.find("\"id\":")? + 5;
    let digits: String = head[start..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn rein(root: &Path, log: Option<&Path>) -> Command {
    let mut command = Command::new(REIN);
    command.arg("--workspace").arg(root.join("ws")).arg("--home").arg(root.join("home")).arg("serve");
    command.env_remove("REIN_HOME");
    match log {
        Some(path) => {
            command.env("REIN_LOG", "warn,rein::mcp=debug");
            command.stderr(std::fs::File::create(path).expect("log file"));
        }
        None => {
            command.env_remove("REIN_LOG").stderr(Stdio::null());
        }
    }
    command
}

/// A started and initialized server, and how long it took from spawn to the initialize response.
fn start(command: Command) -> (Peer, f64) {
    let started = Instant::now();
    let mut peer = Peer::spawn(command);
    peer.send(INITIALIZE);
    while peer.receive() != Some(0) {}
    let elapsed = started.elapsed().as_secs_f64() * 1e3;
    peer.send(INITIALIZED);
    (peer, elapsed)
}

fn cat() -> Command {
    let mut command = Command::new("cat");
    command.stderr(Stdio::null());
    command
}

/// `count` calls with `window` in flight: (calls/s, send-to-response latencies in µs).
fn pipelined(peer: &mut Peer, count: usize, window: usize, first_id: usize) -> (f64, Vec<f64>) {
    let (permits, permit) = mpsc::channel::<()>();
    let (sent_tx, sent) = mpsc::channel::<Instant>();
    for _ in 0..window {
        permits.send(()).expect("permit");
    }
    let mut input = dup(&peer.input);
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        for i in 0..count {
            permit.recv().expect("a permit");
            let _ = sent_tx.send(Instant::now());
            input.write_all(format!("{}\n", call(first_id + i)).as_bytes()).expect("write");
            input.flush().expect("flush");
        }
    });
    let mut latencies = Vec::with_capacity(count);
    let mut sent_at = std::collections::HashMap::with_capacity(window * 2);
    let mut next_sent = 0;
    let mut received = 0;
    while received < count {
        let Some(id) = peer.receive() else { continue };
        while next_sent <= id - first_id {
            sent_at.insert(first_id + next_sent, sent.recv().expect("send time"));
            next_sent += 1;
        }
        let at = sent_at.remove(&id).expect("a request with that id");
        latencies.push(at.elapsed().as_secs_f64() * 1e6);
        received += 1;
        let _ = permits.send(());
    }
    let elapsed = started.elapsed().as_secs_f64();
    writer.join().expect("writer");
    (count as f64 / elapsed, latencies)
}

/// A second handle on the server's stdin, for the pipelined writer thread.
fn dup(input: &ChildStdin) -> std::fs::File {
    #[cfg(unix)]
    let handle = std::os::fd::AsFd::as_fd(input).try_clone_to_owned();
    #[cfg(windows)]
    let handle = std::os::windows::io::AsHandle::as_handle(input).try_clone_to_owned();
    std::fs::File::from(handle.expect("dup stdin"))
}

fn server_side(root: &Path) -> Vec<f64> {
    let log = root.join("server.log");
    let (mut server, _) = start(rein(root, Some(&log)));
    for i in 0..WARMUP + SEQUENTIAL_CALLS / 2 {
        server.round_trip(&call(1 + i), 1 + i);
    }
    server.stop();
    let text = std::fs::read_to_string(&log).expect("server log");
    let mut micros: Vec<f64> = text
        .lines()
        .filter(|l| l.contains("tools/call"))
        .filter_map(|l| l.split("micros=").nth(1))
        .filter_map(|v| v.split_whitespace().next()?.parse().ok())
        .collect();
    assert!(micros.len() >= SEQUENTIAL_CALLS / 2, "the server logged {} calls", micros.len());
    micros.drain(..WARMUP);
    micros
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("ws")).expect("workspace");
    std::fs::create_dir_all(root.join("home")).expect("home");
    let line = format!("{}\n", "x".repeat(63));
    std::fs::write(root.join("ws/bench.txt"), line.repeat(FILE_BYTES / 64)).expect("bench file");

    let (mut start_rein, mut start_cat) = (Vec::new(), Vec::new());
    for i in 0..START_RUNS {
        let once = |out: &mut Vec<f64>, command: Command| {
            let (peer, ms) = start(command);
            out.push(ms);
            peer.stop();
        };
        if i % 2 == 0 {
            once(&mut start_rein, rein(root, None));
            once(&mut start_cat, cat());
        } else {
            once(&mut start_cat, cat());
            once(&mut start_rein, rein(root, None));
        }
    }

    let mut server_us = server_side(root);

    let (mut server, _) = start(rein(root, None));
    let (mut echo, _) = start(cat());
    for i in 0..WARMUP {
        server.round_trip(&call(1 + i), 1 + i);
        echo.round_trip(&call(1 + i), 1 + i);
    }
    let (mut trip_rein, mut trip_cat) = (Vec::new(), Vec::new());
    for i in WARMUP..WARMUP + SEQUENTIAL_CALLS {
        trip_rein.push(server.round_trip(&call(1 + i), 1 + i));
        trip_cat.push(echo.round_trip(&call(1 + i), 1 + i));
    }
    let first = 1 + WARMUP + SEQUENTIAL_CALLS;
    let (rate_rein, mut piped_rein) = pipelined(&mut server, PIPELINED_CALLS, PIPELINE, first);
    let (rate_cat, mut piped_cat) = pipelined(&mut echo, PIPELINED_CALLS, PIPELINE, first);
    server.stop();
    echo.stop();

    println!("rein MCP benchmark — reproduce with: cargo bench --bench mcp");
    println!(
        "nproc: {}   tools/call read_file on a {} KiB file; baseline: cat echoing the same lines",
        nproc(),
        FILE_BYTES / 1024
    );
    println!();
    println!("{:<46} {:>16} {:>16} {:>7}  {:<12} result", "benchmark", "rein", "baseline", "ratio", "target");
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    let (s, c) = (median(&mut start_rein), median(&mut start_cat));
    println!(
        "{:<46} {:>13.2} ms {:>13.2} ms {:>7.2}  {:<12} {}",
        format!("cold start to initialize response ({START_RUNS} runs)"),
        s,
        c,
        s / c,
        "<= 30 ms",
        verdict(s <= 30.0)
    );
    let (p50, p99) = (percentile(&mut server_us, 0.5), percentile(&mut server_us, 0.99));
    println!(
        "{:<46} {:>13.1} µs {:>16} {:>7}  {:<12} {}",
        "server side p50, one call at a time",
        p50,
        "—",
        "—",
        "<= 200 µs",
        verdict(p50 <= 200.0)
    );
    println!("{:<46} {:>13.1} µs", "server side p99", p99);
    let (r, c) = (percentile(&mut trip_rein, 0.5), percentile(&mut trip_cat, 0.5));
    println!("{:<46} {:>13.1} µs {:>13.1} µs {:>7.2}", "round trip p50, one call at a time", r, c, r / c);
    let (r, c) = (percentile(&mut trip_rein, 0.99), percentile(&mut trip_cat, 0.99));
    println!("{:<46} {:>13.1} µs {:>13.1} µs {:>7.2}", "round trip p99", r, c, r / c);
    println!(
        "{:<46} {:>11.0} /s {:>13.0} /s {:>7.2}",
        format!("pipelined ({PIPELINE} in flight) calls/s"),
        rate_rein,
        rate_cat,
        rate_rein / rate_cat
    );
    let (r, c) = (percentile(&mut piped_rein, 0.5), percentile(&mut piped_cat, 0.5));
    println!("{:<46} {:>13.1} µs {:>13.1} µs {:>7.2}", "pipelined send-to-response p50", r, c, r / c);
}

fn median(values: &mut [f64]) -> f64 {
    percentile(values, 0.5)
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * p).round() as usize]
}

fn nproc() -> usize {
    std::thread::available_parallelism().map(usize::from).unwrap_or(1)
}
