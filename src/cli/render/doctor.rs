//! `rein doctor` for people: the config read, then a line per program.

use rein::host::doctor::Diagnosis;

use super::style::{paint, status, BAD, DIM};

pub fn print(diagnosis: &Diagnosis) {
    let config = &diagnosis.config;
    let read = if config.read { "read" } else { "none there: built-in defaults" };
    println!("{:<14} {} ({read})", "config", config.path);
    for r in &diagnosis.programs {
        if r.found {
            let version = r.version.as_deref().unwrap_or("version unknown");
            anstream::println!(
                "{:<14} {version}  {}  {}",
                r.program,
                r.path.as_deref().unwrap_or(""),
                paint(DIM, format!("(via {})", r.via.as_deref().unwrap_or("")))
            );
            if let Some(jar) = &r.jar {
                println!("{:<14} jar {jar}", "");
            }
            if let Some(script) = &r.script {
                println!("{:<14} script {script}", "");
            }
            if let Some(problem) = &r.problem {
                anstream::println!("{:<14} {}", "", paint(BAD, format!("problem: {problem}")));
            }
        } else {
            let needed = if r.needed { ", which built-in tools need" } else { "" };
            anstream::println!(
                "{:<14} {}{needed}: {}",
                r.program,
                status("MISSING"),
                r.problem.as_deref().unwrap_or("")
            );
            for place in &r.tried {
                println!("{:<14} looked at {place}", "");
            }
        }
    }
    for (program, places) in &diagnosis.candidates {
        for place in places {
            anstream::println!("{:<14} {}", "", paint(DIM, format!("{program} may be at {place}")));
        }
    }
    for suggestion in &diagnosis.from_local_properties {
        anstream::println!("{:<14} {}", "", paint(DIM, format!("local.properties names {suggestion}")));
    }
}
