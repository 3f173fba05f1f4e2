//! Progress as people read it, from the event stream: `[n/m] step started` and
//! `[n/m] step verified in 1.2 s` for a recipe's steps, `running hvigorw …` and
//! `hvigorw ended: exit 0 in 3.1 s` for programs. The CLI's display and the MCP server's
//! notifications both word their lines here.

use crate::kernel::{Event, EventKind};

impl Event {
    /// A recipe step's progress line, as `rein recipe` and MCP progress notifications word
    /// it: `[2/5] sign started`, `[2/5] sign verified in 1.2 s`; None for an event that is
    /// not about a step.
    pub fn step_line(&self) -> Option<String> {
        step_line(self)
    }

    /// A program's progress line: `running hdc install …`, `hdc ended: exit 0 in 1.3 s`;
    /// None for an event that is not about a program.
    pub fn program_line(&self) -> Option<String> {
        program_line(self)
    }
}

/// A step's line when it starts (`[2/5] sign started`), when it ends (`[2/5] sign verified in
/// 1.2 s`), or None for an event that is not about a step.
pub fn step_line(event: &Event) -> Option<String> {
    match &event.kind {
        EventKind::StepStarted { step, number, total, .. } => {
            Some(format!("[{number}/{total}] {} started", crate::visible::line(step)))
        }
        EventKind::StepEnded { step, number, total, status, duration_ms, .. } => {
            // A step's name is the recipe's text: one line, so it cannot draw a line of its own.
            Some(format!("[{number}/{total}] {} {status} in {}", crate::visible::line(step), seconds(*duration_ms)))
        }
        _ => None,
    }
}

/// A program's line when it starts (`running hdc install …`) and when it ends (`hdc ended:
/// exit 0 in 1.3 s`), or None for an event that is not about a program.
pub fn program_line(event: &Event) -> Option<String> {
    match &event.kind {
        EventKind::ProgramSpawned { command, .. } => Some(format!("running {command}")),
        EventKind::ProgramExited { program, code, stopped, duration_ms, .. } => {
            let how = match (code, stopped) {
                (_, Some(why)) => format!("stopped ({why})"),
                (Some(code), None) => format!("exit {code}"),
                (None, None) => "exit by signal".to_string(),
            };
            Some(format!("{program} ended: {how} in {}", seconds(*duration_ms)))
        }
        _ => None,
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::events::StepStatus;

    fn event(kind: EventKind) -> Event {
        Event { call: None, actor: None, kind }
    }

    #[test]
    fn steps_and_programs_read_as_before() {
        let started = event(EventKind::StepStarted { recipe: "r".into(), step: "build".into(), number: 1, total: 2 });
        assert_eq!(step_line(&started).unwrap(), "[1/2] build started");
        let ended = event(EventKind::StepEnded {
            recipe: "r".into(),
            step: "build".into(),
            number: 1,
            total: 2,
            status: StepStatus::Verified,
            duration_ms: 1240,
        });
        assert_eq!(step_line(&ended).unwrap(), "[1/2] build verified in 1.2 s");
        let exited = event(EventKind::ProgramExited {
            program: "hdc".into(),
            code: Some(0),
            signal: None,
            timed_out: false,
            stopped: None,
            duration_ms: 300,
        });
        assert_eq!(program_line(&exited).unwrap(), "hdc ended: exit 0 in 0.3 s");
        assert!(step_line(&exited).is_none() && program_line(&started).is_none());
    }
}
