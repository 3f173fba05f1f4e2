//! What a person is told about a program before their yes: the command line alone does not
//! say what will happen. The question names the program as rein found it (the file that will
//! be executed, and what it resolves to), the working directory, every path of the command
//! line that lies outside the workspace — absolute, as it resolves — and what the program may
//! write outside the workspace once a person said yes (confinement grants those paths, and an
//! unconfined program may write anything the user may).

use std::path::{Path, PathBuf};

use super::confine::Plan;
use super::toolchain::Found;
use crate::visible;

/// What a spawn's question is made of.
pub struct Facts<'a> {
    pub located: &'a Found,
    pub cwd: &'a Path,
    /// Each argument the policy read as a path outside the workspace, and where it resolves.
    pub outside: Vec<(String, PathBuf)>,
    /// The outside paths a yes lets the program write (when it is confined).
    pub writes: Vec<PathBuf>,
    pub plan: &'a Plan,
    /// The variables the script sets for it, `NAME=value` (secrets scrubbed).
    pub env: Vec<String>,
    /// What the script writes to its input (secrets scrubbed), when it writes anything.
    pub input: Option<String>,
}

/// How much of a program's input a question shows.
const INPUT_SHOWN: usize = 80;

/// The lines of [`ApprovalRequest::context`](crate::kernel::policy::ApprovalRequest::context).
pub fn context(facts: &Facts) -> Vec<String> {
    let shown = |path: &Path| visible::path(path);
    let mut program = resolved(facts.located.path.as_path());
    for extra in &facts.located.runs_first {
        program.push_str(&format!(" {}", resolved(extra)));
    }
    let mut lines = vec![format!("runs {program}"), format!("in {}", shown(facts.cwd))];
    if !facts.env.is_empty() {
        lines.push(format!("with {} set by the script", visible::line(&facts.env.join(" "))));
    }
    if let Some(input) = &facts.input {
        let start: String = input.chars().take(INPUT_SHOWN).collect();
        let more = if start.len() < input.len() { " …" } else { "" };
        lines.push(format!("its input, from the script ({} bytes): {}{more}", input.len(), visible::line(&start)));
    }
    for (i, (arg, real)) in facts.outside.iter().enumerate() {
        if facts.outside[..i].contains(&(arg.clone(), real.clone())) {
            continue;
        }
        let real = shown(real);
        let arg = visible::line(arg);
        if *arg == *real {
            lines.push(format!("outside the workspace: {real}"));
        } else {
            lines.push(format!("outside the workspace: {arg} is {real}"));
        }
    }
    lines.push(match facts.plan {
        Plan::Landlock { .. } | Plan::Seatbelt | Plan::RestrictedToken if facts.writes.is_empty() => {
            "a yes lets it write nothing outside the workspace beyond its caches and temp folders".to_string()
        }
        Plan::Landlock { .. } | Plan::Seatbelt | Plan::RestrictedToken => {
            let writes: Vec<String> = facts.writes.iter().map(|p| shown(p)).collect();
            format!("a yes lets it write, outside the workspace: {}", writes.join(", "))
        }
        Plan::Unconfined(why) | Plan::Refuse(why) => {
            format!("it runs unconfined ({}): a yes lets it write anything you may", visible::line(why))
        }
    });
    lines
}

/// `path`, and what it resolves to when that differs (a link, `..`).
fn resolved(path: &Path) -> String {
    let shown = visible::path(path);
    // Compared as shown: on Windows the real path has the verbatim prefix the given one lacks.
    match std::fs::canonicalize(path).map(visible::path) {
        Ok(real) if real != shown => format!("{shown} (which is {real})"),
        _ => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn located(path: &str) -> Found {
        Found { path: PathBuf::from(path), runs_first: vec![PathBuf::from("/sdk/lib/x.jar")] }
    }

    #[test]
    fn the_question_says_what_runs_where_and_what_it_may_write() {
        let located = located("/no/such/java");
        let plan = Plan::Landlock { abi: 6 };
        let facts = Facts {
            located: &located,
            cwd: Path::new("/w/app/entry"),
            outside: vec![("../../../home/me/.bashrc".into(), PathBuf::from("/home/me/.bashrc"))],
            writes: vec![PathBuf::from("/home/me/.bashrc")],
            plan: &plan,
            env: Vec::new(),
            input: None,
        };
        let lines = context(&facts);
        assert_eq!(lines[0], "runs /no/such/java /sdk/lib/x.jar");
        assert_eq!(lines[1], "in /w/app/entry");
        assert_eq!(lines[2], "outside the workspace: ../../../home/me/.bashrc is /home/me/.bashrc");
        assert_eq!(lines[3], "a yes lets it write, outside the workspace: /home/me/.bashrc");
        let fed = context(&Facts {
            located: &located,
            cwd: Path::new("/w/app"),
            outside: Vec::new(),
            writes: Vec::new(),
            plan: &plan,
            env: vec!["LANG=C\u{1b}[2J".into()],
            input: Some(format!("y\n{}", "x".repeat(100))),
        });
        assert_eq!(fed[2], "with LANG=C\\u{1b}[2J set by the script");
        assert_eq!(fed[3], format!("its input, from the script (102 bytes): y\\n{} …", "x".repeat(78)));
        let unconfined = Plan::Unconfined("no Landlock".into());
        let lines = context(&Facts { plan: &unconfined, writes: vec![], ..facts });
        assert!(lines[3].contains("unconfined (no Landlock)"), "{lines:?}");
    }

    #[test]
    #[cfg(unix)]
    fn a_link_is_shown_with_what_it_resolves_to() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "").unwrap();
        let link = dir.path().join("innocent");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(resolved(&link).ends_with(&format!("(which is {})", target.canonicalize().unwrap().display())));
    }
}
