//! rein against a baseline on the same input, measured in one run: `cargo bench --bench file_ops`.
//!
//! Rein and baseline runs are interleaved (and their order alternated) so machine noise hits
//! both alike; every figure is a median of that run. A missed target is printed, not raised:
//! the numbers are the result.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

const REIN: &str = env!("CARGO_BIN_EXE_rein");

const BIG_FILE_BYTES: usize = 64 * 1024 * 1024;
const EDIT_RUNS: usize = 11;
const MARKER_A: &str = "REIN_BENCH_END_MARKER_A";
const MARKER_B: &str = "REIN_BENCH_END_MARKER_B";

const CALL_WARMUP: usize = 2_000;
const CALL_RUNS: usize = 20_000;

const SMALL_FILE_BYTES: usize = 2 * 1024;
const READ_RUNS: usize = 61;
/// `rein call read_file` as a whole process, start to exit (issue 23: as fast as before sealed
/// environments, when it took 4.8 ms).
const READ_TARGET_MS: f64 = 5.0;

const NOOP_TOOL: &str = r#"return { name = "noop", description = "does nothing", run = function() return {} end }"#;
const THREE_PARAMS_TOOL: &str = r#"return {
  name = "three_params",
  description = "does nothing, with three declared parameters",
  params = {
    path = { type = "string", description = "a path" },
    count = { type = "integer", description = "a count" },
    verbose = { type = "boolean", default = false, description = "a flag" },
  },
  run = function() return {} end,
}
"#;

enum Target {
    RatioAtMost(f64),
    /// rein's median, in the row's unit.
    MedianAtMost(f64),
}

struct Row {
    name: &'static str,
    runs: usize,
    unit: &'static str,
    rein: Vec<f64>,
    baseline: Vec<f64>,
    target: Target,
}

impl Row {
    fn ratio(&self) -> f64 {
        median(&self.rein) / median(&self.baseline)
    }

    fn target_text(&self) -> String {
        match self.target {
            Target::RatioAtMost(max) => format!("ratio <= {max:.2}"),
            Target::MedianAtMost(max) => format!("rein <= {max} {}", self.unit),
        }
    }

    fn passed(&self) -> bool {
        match self.target {
            Target::RatioAtMost(max) => self.ratio() <= max,
            Target::MedianAtMost(max) => median(&self.rein) <= max,
        }
    }
}

fn main() {
    let nproc = Command::new("nproc").output().ok().and_then(|o| String::from_utf8(o.stdout).ok());
    let nproc = nproc.map(|s| s.trim().to_string()).unwrap_or_else(|| "?".into());
    println!("rein file_ops benchmark — reproduce with: cargo bench --bench file_ops");
    println!("nproc: {nproc}   rein binary: {REIN}   temp dir: {}", std::env::temp_dir().display());
    println!("rein and baseline runs interleaved in one process; every figure is a median of this run\n");
    let rows = [bench_edit_big_file(), bench_noop_call(), bench_read_small_file()];
    print_table(&rows);
}

// ---- 1. edit_file at the end of a 64 MiB file, whole process vs read + durable rewrite ----

fn bench_edit_big_file() -> Row {
    let root = tempfile::tempdir().expect("temp dir");
    let (ws, home, base_dir) = (root.path().join("ws"), root.path().join("home"), root.path().join("baseline"));
    for dir in [&ws, &home, &base_dir] {
        std::fs::create_dir(dir).expect("create bench dir");
    }
    let content = big_text(MARKER_A);
    std::fs::write(ws.join("big.txt"), &content).expect("write rein's file");
    std::fs::write(base_dir.join("big.txt"), &content).expect("write baseline's file");
    // The floor copies the edited bytes from a file that already holds them: `cat` reads as
    // much as rein reads and writes as much as rein writes.
    std::fs::write(base_dir.join(MARKER_A), &content).expect("write the floor's source A");
    std::fs::write(base_dir.join(MARKER_B), big_text(MARKER_B)).expect("write the floor's source B");
    drop(content);
    let (mut rein, mut baseline) = (Vec::new(), Vec::new());
    // Run 0 of each is a warm-up; every run swaps the marker, so every run changes the file.
    for run in 0..=EDIT_RUNS {
        let (old, new) = if run % 2 == 0 { (MARKER_A, MARKER_B) } else { (MARKER_B, MARKER_A) };
        let (r, b) = timed_pair(run, || rein_edit(&ws, &home, old, new), || floor_edit(&base_dir, new));
        assert_tail(&ws.join("big.txt"), new);
        assert_tail(&base_dir.join("big.txt"), new);
        if run > 0 {
            rein.push(r * 1e3);
            baseline.push(b * 1e3);
        }
    }
    Row {
        name: "edit_file, end of 64 MiB",
        runs: EDIT_RUNS,
        unit: "ms",
        rein,
        baseline,
        target: Target::RatioAtMost(1.2),
    }
}

/// The floor any careful editor pays, as a shell does it (issue 41): `cat SOURCE > tmp; sync
/// tmp; mv tmp big.txt`, SOURCE holding the edited bytes. No search, no hashing, no diff, no
/// folder fsync, no journal.
fn floor_edit(dir: &Path, new_marker: &str) {
    let script = format!("cat {new_marker} > tmp && sync tmp && mv tmp big.txt");
    let status = Command::new("sh").arg("-c").arg(script).current_dir(dir).stdin(Stdio::null()).status();
    assert!(status.expect("spawn sh").success(), "the floor's shell failed");
}

/// Lines of plain text, exactly BIG_FILE_BYTES long, whose last line is the unique `marker`.
fn big_text(marker: &str) -> Vec<u8> {
    let line = b"    let value = compute(input, 42); // the quick brown fox jumps over the lazy dog\n";
    let tail = format!("{marker}\n");
    let body_len = BIG_FILE_BYTES - tail.len();
    let mut text: Vec<u8> = line.iter().copied().cycle().take(body_len).collect();
    *text.last_mut().expect("non-empty") = b'\n';
    text.extend_from_slice(tail.as_bytes());
    text
}

fn rein_edit(ws: &Path, home: &Path, old: &str, new: &str) {
    let args = json!({"path": "big.txt", "old_string": old, "new_string": new}).to_string();
    let out = rein_command(ws, home).args(["call", "edit_file", &args]).stdout(Stdio::null()).output();
    let out = out.expect("spawn rein");
    assert!(out.status.success(), "rein edit_file failed: {}", String::from_utf8_lossy(&out.stderr));
}

fn assert_tail(path: &Path, marker: &str) {
    let mut file = File::open(path).expect("open edited file");
    let mut tail = vec![0; marker.len() + 1];
    file.seek(SeekFrom::End(-(tail.len() as i64))).expect("seek");
    file.read_exact(&mut tail).expect("read tail");
    assert_eq!(tail, format!("{marker}\n").as_bytes(), "{} was not edited", path.display());
}

// ---- 2. a no-op Lua tool call inside one process ----

fn bench_noop_call() -> Row {
    let root = tempfile::tempdir().expect("temp dir");
    let (ws, home) = (root.path().join("ws"), root.path().join("home"));
    std::fs::create_dir_all(ws.join("tools")).expect("create tools dir");
    std::fs::create_dir(&home).expect("create home");
    std::fs::write(ws.join("tools/noop.lua"), NOOP_TOOL).expect("write noop.lua");
    std::fs::write(ws.join("tools/three_params.lua"), THREE_PARAMS_TOOL).expect("write three_params.lua");
    let host = rein::Host::builder().workspace(&ws).home(&home).build().expect("build the host");
    assert!(host.problems().is_empty(), "tool files failed to load: {:?}", host.problems());
    let three_args = json!({"path": "entry/src/main/ets/pages/Index.ets", "count": 3, "verbose": true});
    let call = |name: &str, args: Value| {
        let start = Instant::now();
        let result = host.call(name, args);
        let took = start.elapsed();
        result.unwrap_or_else(|f| panic!("{name} failed: {f:?}"));
        took.as_secs_f64() * 1e6
    };
    for _ in 0..CALL_WARMUP {
        call("noop", json!({}));
        call("three_params", three_args.clone());
    }
    let (mut rein, mut baseline) = (Vec::with_capacity(CALL_RUNS), Vec::with_capacity(CALL_RUNS));
    for _ in 0..CALL_RUNS {
        rein.push(call("noop", json!({})));
        baseline.push(call("three_params", three_args.clone()));
    }
    Row { name: "host.call noop", runs: CALL_RUNS, unit: "µs", rein, baseline, target: Target::MedianAtMost(50.0) }
}

// ---- 3. read_file of a small file, whole process vs /bin/cat ----

fn bench_read_small_file() -> Row {
    let root = tempfile::tempdir().expect("temp dir");
    let (ws, home) = (root.path().join("ws"), root.path().join("home"));
    std::fs::create_dir(&ws).expect("create ws");
    std::fs::create_dir(&home).expect("create home");
    let text: String = (1..).map(|n| format!("line {n}: some ordinary source text\n")).take(60).collect();
    let text = &text[..text[..SMALL_FILE_BYTES].rfind('\n').expect("has lines") + 1];
    let file = ws.join("small.txt");
    std::fs::write(&file, text).expect("write small file");
    let args = json!({"path": "small.txt"}).to_string();
    let rein_read = || {
        let out = rein_command(&ws, &home).args(["call", "read_file", &args]).output().expect("spawn rein");
        assert!(out.status.success() && out.stdout.starts_with(b"{\"ok\":true"), "rein read_file failed");
    };
    let cat = || {
        let out = Command::new("/bin/cat").arg(&file).stdin(Stdio::null()).output().expect("spawn cat");
        assert!(out.status.success() && out.stdout == text.as_bytes(), "cat failed");
    };
    let (mut rein, mut baseline) = (Vec::new(), Vec::new());
    for run in 0..=READ_RUNS {
        let (r, b) = timed_pair(run, rein_read, cat);
        if run > 0 {
            rein.push(r * 1e3);
            baseline.push(b * 1e3);
        }
    }
    Row {
        name: "read_file, 2 KiB",
        runs: READ_RUNS,
        unit: "ms",
        rein,
        baseline,
        target: Target::MedianAtMost(READ_TARGET_MS),
    }
}

// ---- shared ----

fn rein_command(ws: &Path, home: &Path) -> Command {
    let mut command = Command::new(REIN);
    command.env_remove("REIN_LOG").stdin(Stdio::null());
    command.arg("--workspace").arg(ws).arg("--home").arg(home).arg("--json");
    command
}

/// Times rein and the baseline once each: rein first on even runs, the baseline first on odd.
fn timed_pair(run: usize, rein: impl FnOnce(), baseline: impl FnOnce()) -> (f64, f64) {
    if run.is_multiple_of(2) {
        let r = seconds(rein);
        (r, seconds(baseline))
    } else {
        let b = seconds(baseline);
        (seconds(rein), b)
    }
}

fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

fn median(samples: &[f64]) -> f64 {
    let s = sorted(samples);
    let mid = s.len() / 2;
    if s.len() % 2 == 1 {
        s[mid]
    } else {
        (s[mid - 1] + s[mid]) / 2.0
    }
}

/// Nearest-rank percentile.
fn percentile(samples: &[f64], p: f64) -> f64 {
    let s = sorted(samples);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<26} {:>6} {:>14} {:>16} {:>7}  {:<16} result",
        "benchmark", "runs", "rein median", "baseline median", "ratio", "target"
    );
    for row in rows {
        let rein = format!("{:.2} {}", median(&row.rein), row.unit);
        let baseline = format!("{:.2} {}", median(&row.baseline), row.unit);
        let verdict = if row.passed() { "PASS" } else { "FAIL" };
        println!(
            "{:<26} {:>6} {:>14} {:>16} {:>7.2}  {:<16} {verdict}",
            row.name,
            row.runs,
            rein,
            baseline,
            row.ratio(),
            row.target_text()
        );
    }
    println!("\nbaselines:");
    println!("  edit_file: `sh -c 'cat SOURCE > tmp && sync tmp && mv tmp big.txt'`, SOURCE holding the edited");
    println!("             bytes (the same bytes read and durably written); rein is a whole process");
    println!("  host.call: the same Host calling a tool with 3 declared params (string, integer, boolean) and args");
    println!("  read_file: spawning /bin/cat on the same file (2021 bytes, 58 lines), stdout read back;");
    println!("             rein is a whole process with --json, stdout read back");
    let call = &rows[1];
    println!(
        "\nhost.call p99: noop {:.2} µs, three_params {:.2} µs",
        percentile(&call.rein, 99.0),
        percentile(&call.baseline, 99.0)
    );
    let met = rows.iter().filter(|r| r.passed()).count();
    println!("\ntargets met: {met} of {}", rows.len());
    for row in rows {
        println!("  {}: {} ({})", if row.passed() { "PASS" } else { "FAIL" }, row.name, row.target_text());
    }
}
