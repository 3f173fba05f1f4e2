//! `rein doctor` for people: the config read, then a line per program.

use rein::Diagnosis;

use super::style::{paint, status, BAD, DIM};
use crate::cli::screen::say;

pub fn print(diagnosis: &Diagnosis) {
    let config = &diagnosis.config;
    let read = if config.read { "read" } else { "none there: built-in defaults" };
    say!("{:<14} {} ({read})", "config", config.path);
    for r in &diagnosis.programs {
        if r.found {
            let version = r.version.as_deref().unwrap_or("version unknown");
            say!(
                "{:<14} {version}  {}  {}",
                r.program,
                r.path.as_deref().unwrap_or(""),
                paint(DIM, format!("(via {})", r.via.as_deref().unwrap_or("")))
            );
            if let Some(jar) = &r.jar {
                say!("{:<14} jar {jar}", "");
            }
            if let Some(script) = &r.script {
                say!("{:<14} script {script}", "");
            }
            if let Some(problem) = &r.problem {
                say!("{:<14} {}", "", paint(BAD, format!("problem: {problem}")));
            }
        } else {
            let needed = if r.needed { ", which built-in tools need" } else { "" };
            say!("{:<14} {}{needed}: {}", r.program, status("MISSING"), r.problem.as_deref().unwrap_or(""));
            for place in &r.tried {
                say!("{:<14} looked at {place}", "");
            }
        }
    }
    // Every place this OS's layouts name, then what the project's local.properties names; the
    // first column says which list a line belongs to once.
    let places = diagnosis
        .candidates
        .iter()
        .flat_map(|(program, places)| places.iter().map(move |place| ("candidates", format!("{program}: {place}"))));
    let named = diagnosis.from_local_properties.iter().map(|named| ("local.props", named.clone()));
    let mut last = "";
    for (label, line) in places.chain(named) {
        let shown = if label == last { "" } else { label };
        last = label;
        say!("{shown:<14} {}", paint(DIM, line));
    }
}
