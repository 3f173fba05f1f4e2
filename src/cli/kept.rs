//! `rein ps` and `rein stop`: the programs rein keeps running for this workspace (a started
//! emulator), listed and ended (`rein::Host::kept`, `rein::Host::stop_kept`).

use serde_json::json;

use super::output::Output;
use super::screen::say;
use rein::Host;

pub fn ps(host: &Host, out: &Output) -> u8 {
    let kept = match host.kept() {
        Ok(kept) => kept,
        Err(failure) => return out.failure(&failure),
    };
    if out.json {
        return out.success(&json!({ "kept": kept }));
    }
    if kept.is_empty() {
        say!("rein keeps no program running for this workspace");
        return 0;
    }
    for one in &kept {
        let record = &one.record;
        // Every field is the record's word (`.rein/kept/<id>.json`): shown as text, never as
        // terminal control.
        let line = |text: &str| rein::visible::line(text).into_owned();
        say!("{}  {}  {}  since {}", line(&record.id), one.state, line(&record.command), line(&record.started_at));
        say!("  log {}", line(&record.log));
        for line in one.log_tail.iter().rev().take(3).rev() {
            say!("  | {}", rein::visible::line(line));
        }
    }
    0
}

pub fn stop(host: &Host, out: &Output, id: &str) -> u8 {
    match host.stop_kept(id) {
        Ok((record, was_running)) => {
            if out.json {
                return out.success(&json!({ "id": record.id, "was_running": was_running, "stopped": record.stopped }));
            }
            match (was_running, &record.stopped) {
                (true, Some(stopped)) => {
                    say!("stopped {} ({})", rein::visible::line(&record.id), rein::visible::line(&stopped.how))
                }
                _ => say!("{} had ended already", rein::visible::line(&record.id)),
            }
            0
        }
        Err(failure) => out.failure(&failure),
    }
}
