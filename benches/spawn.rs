//! An approval-checked spawn against a plain `std::process` spawn of the same trivial
//! program, measured in one run: `cargo bench --bench spawn`.
//!
//! rein's path: program lookup, working-directory scope check, the approval policy, the
//! environment allow-list, its own process group, bounded capture, and a journal entry.

use std::process::{Command, Stdio};
use std::time::Instant;

use rein::harmony::profile::Harmony;
use rein::harmony::toolchain::{Located, Toolchain};
use rein::kernel::{Call, Kernel, RunOptions, SpawnSettings};

const RUNS: usize = 301;
const WARMUP: usize = 20;
const TRIVIAL: &str = "/bin/true";

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).expect("workspace");
    let mut toolchain = Toolchain::default();
    let located = Located { path: TRIVIAL.into(), jar: None, script: None, via: "bench".into() };
    toolchain.programs.insert("hdc".into(), Ok(located));
    let kernel = Kernel::new(&ws, &dir.path().join("home")).expect("kernel").with_spawn(SpawnSettings {
        profile: std::sync::Arc::new(Harmony { toolchain, ..Default::default() }),
        ..Default::default()
    });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let rein_once = || {
        let started = Instant::now();
        let out = runtime
            .block_on(kernel.run(
                &Call::new(),
                "hdc",
                vec!["version".into()],
                RunOptions::default(),
                &mut |_, _| Ok(()),
            ))
            .expect("approval-checked spawn");
        assert_eq!(out.code, Some(0));
        started.elapsed().as_secs_f64() * 1e3
    };
    let plain_once = || {
        let started = Instant::now();
        let out = Command::new(TRIVIAL).arg("version").stdin(Stdio::null()).output().expect("plain spawn");
        assert!(out.status.success());
        started.elapsed().as_secs_f64() * 1e3
    };
    for _ in 0..WARMUP {
        rein_once();
        plain_once();
    }
    let (mut rein, mut plain) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
    for i in 0..RUNS {
        if i.is_multiple_of(2) {
            rein.push(rein_once());
            plain.push(plain_once());
        } else {
            plain.push(plain_once());
            rein.push(rein_once());
        }
    }
    let (r, p) = (median(&mut rein), median(&mut plain));
    let ratio = r / p;
    println!("rein spawn benchmark — reproduce with: cargo bench --bench spawn");
    println!("nproc: {}   program: {TRIVIAL} version   runs: {RUNS} each, interleaved", nproc());
    println!();
    println!(
        "{:<34} {:>12} {:>12} {:>7}  {:<14} result",
        "benchmark", "rein median", "plain median", "ratio", "target"
    );
    let verdict = if ratio <= 1.3 { "PASS" } else { "FAIL" };
    println!(
        "{:<34} {:>9.3} ms {:>9.3} ms {:>7.2}  {:<14} {verdict}",
        "approval-checked spawn", r, p, ratio, "ratio <= 1.30"
    );
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn nproc() -> usize {
    std::thread::available_parallelism().map(usize::from).unwrap_or(1)
}
