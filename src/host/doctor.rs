//! `rein doctor`: which toolchain programs were found, where and how, and their versions; for
//! each missing one, every place looked at and what to do.

use serde::Serialize;

use crate::kernel::{Call, Kernel, RunOptions};

#[derive(Debug, Clone, Serialize)]
pub struct ProgramReport {
    pub program: String,
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jar: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The first line the program printed when asked for its version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the version could not be read, or what to do about a missing program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tried: Vec<String>,
}

/// The version argument each program understands.
fn version_args(program: &str) -> Vec<String> {
    let arg = match program {
        "hdc" => "version",
        "hvigorw" => "--version",
        _ => "-v",
    };
    vec![arg.to_string()]
}

pub async fn examine(kernel: &Kernel, call: &Call) -> Vec<ProgramReport> {
    let mut reports = Vec::new();
    for (name, entry) in &kernel.toolchain().programs {
        let report = match entry {
            Err(missing) => ProgramReport {
                program: name.clone(),
                found: false,
                path: None,
                jar: None,
                via: None,
                version: None,
                problem: Some(missing.fix.clone()),
                tried: missing.tried.clone(),
            },
            Ok(located) => {
                let (version, problem) = version_of(kernel, call, name).await;
                ProgramReport {
                    program: name.clone(),
                    found: true,
                    path: Some(located.path.display().to_string()),
                    jar: located.jar.as_ref().map(|j| j.display().to_string()),
                    via: Some(located.via.clone()),
                    version,
                    problem,
                    tried: Vec::new(),
                }
            }
        };
        reports.push(report);
    }
    reports
}

async fn version_of(kernel: &Kernel, call: &Call, program: &str) -> (Option<String>, Option<String>) {
    let opts = RunOptions { timeout_ms: Some(20_000), ..Default::default() };
    match kernel.run(call, program, version_args(program), opts, &mut |_, _| Ok(())).await {
        Ok(out) => {
            let line = out.stdout.lines().chain(out.stderr.lines()).map(str::trim).find(|l| !l.is_empty());
            match line {
                Some(line) => (Some(line.trim_start_matches("> hvigor ").to_string()), None),
                None => (None, Some(format!("printed nothing for {}", version_args(program).join(" ")))),
            }
        }
        Err(err) => (None, Some(err.to_string())),
    }
}
