//! A custom approver: rein asks the embedding program's own UI when its policy wants a yes.
//!
//! ```text
//! cargo run --example approver
//! ```
//!
//! The example makes a scratch workspace and asks rein to write a file outside it. Writing
//! outside the workspace is something rein's policy asks about; the approver below puts the
//! question to the user through the program's own UI (here a line on stdin, in an IDE a
//! dialog) and answers with what the user said. Answer `y` and the file is written; anything
//! else and the call fails with `APPROVAL_DENIED`, nothing written.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use rein::{Answer, ApprovalRequest, Approver, Asked, Code, Failure};
use serde_json::json;

/// Asks through a callback the host program provides: its UI, whatever that is.
struct AskTheUser<F> {
    ask: F,
}

impl<F: Fn(&str) -> bool + Send + Sync> Approver for AskTheUser<F> {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        // Changing rein's own home (its approval rules) is for a person at rein's terminal
        // only: an embedder's UI is not that, so it must not say yes here.
        if request.who == Asked::PersonAtTerminal {
            return Answer::No;
        }
        // The whole question: what a yes means is in `context` (the program as found, where it
        // runs, outside paths as they resolve, what it may then write). rein's texts are safe
        // to show as they are; `rein::visible` escapes any other text the same way.
        let mut question = format!("rein wants to {} ({})", request.what, request.why);
        for line in &request.context {
            question.push_str(&format!("\n  {line}"));
        }
        question.push_str("\nAllow it once?");
        if (self.ask)(&question) {
            Answer::Once
        } else {
            Answer::Refused
        }
    }

    /// How the journal and run reports name who decided.
    fn name(&self) -> &'static str {
        "example UI"
    }
}

/// The program's "UI": the question on stderr, the answer a line on stdin.
fn ask_on_stdin(question: &str) -> bool {
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim(), "y" | "yes")
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{failure}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::new(Code::IoError, e.to_string());
    let scratch = tempfile::tempdir().map_err(io)?;
    let (workspace, home, outside) =
        (scratch.path().join("app"), scratch.path().join("home"), scratch.path().join("elsewhere"));
    for dir in [&workspace, &home, &outside] {
        std::fs::create_dir(dir).map_err(io)?;
    }

    let host = rein::Host::builder()
        .workspace(&workspace)
        .home(&home)
        .approver(Arc::new(AskTheUser { ask: ask_on_stdin }))
        .build()?;

    let target = outside.join("notes.txt");
    let args = json!({"path": target, "content": "written with the user's yes\n"});
    match host.call("write_file", args) {
        Ok(result) => {
            println!("wrote {} bytes to {}", result["bytes"], target.display());
            Ok(())
        }
        Err(failure) if failure.code == Code::ApprovalDenied => {
            println!("refused: {} (exists: {})", failure.code, target.exists());
            Ok(())
        }
        Err(failure) => Err(failure),
    }
}
