//! Embedding rein: build a host on a HarmonyOS project, list what it serves, and call a tool.
//!
//! ```text
//! cargo run --example embed -- examples/hello-app
//! ```
//!
//! It calls the project's own `bump_version` tool (examples/hello-app/tools/bump_version.lua)
//! as a dry run, so nothing in the project changes; rein journals the call under the
//! project's `.rein/`.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

fn main() -> ExitCode {
    let Some(project) = std::env::args_os().nth(1) else {
        eprintln!("usage: embed PROJECT_DIR   (try examples/hello-app)");
        return ExitCode::from(2);
    };
    match run(Path::new(&project)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // The code is stable (match on it); the message says what to do next.
            eprintln!("{failure}");
            ExitCode::FAILURE
        }
    }
}

fn run(project: &Path) -> Result<(), rein::Failure> {
    // rein's home holds the approval rules and settings a person made. This example uses an
    // empty one so that it reads nothing of yours; a real host leaves `.home(..)` out to use
    // REIN_HOME or ~/.rein.
    let home = tempfile::tempdir().map_err(|e| rein::Failure::new(rein::Code::IoError, e.to_string()))?;
    let host = rein::Host::builder().workspace(project).home(home.path()).build()?;

    for tool in host.tools() {
        let summary = tool.description.split(". ").next().unwrap_or_default();
        println!("tool {} ({}): {summary}", tool.name, tool.origin);
    }
    for recipe in host.recipes() {
        println!("recipe {}", recipe.name);
    }

    let result = host.call("bump_version", json!({"by": 1, "dry_run": true}))?;
    let code = &result["version_code"];
    println!("versionCode would go from {} to {}", code["old"], code["new"]);
    print!("{}", result["diff"].as_str().unwrap_or_default());
    Ok(())
}
