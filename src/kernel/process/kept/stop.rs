//! Ending a kept program (`rein stop`, and the tools that stop what they kept): the program's
//! own stop first where its profile names one (run as any program of the call is, so it is
//! asked about as that command is), then — after a bounded wait — its process group, the
//! holder's: TERM, then KILL. Windows has no TERM for a tree: the holder is terminated, and its
//! own Job Object (kill-on-close, `platform::join_own_job`) ends the program and all it
//! started. Then (Windows) the ACL entries its confinement added are removed.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{runs, Record};
use crate::kernel::policy::{ApprovalRequest, Asked, Decision, Rule, Subject};
use crate::kernel::process::RunOptions;
use crate::kernel::{Call, Kernel, KernelError};

/// How long the program has to end after its own stop before its group is ended.
const OWN_STOP_WAIT: Duration = Duration::from_secs(20);
/// Between TERM and KILL.
#[cfg(unix)]
const TERM_GRACE: Duration = Duration::from_secs(3);
/// How long the group (Windows: the holder) has to be gone after KILL.
const KILL_WAIT: Duration = Duration::from_secs(3);

/// How a kept program was ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// When (RFC 3339).
    pub at: String,
    /// `own_stop` (it ended after its own stop), `term` or `kill` (its group was ended), or
    /// `already_ended`.
    pub how: String,
}

impl Kernel {
    /// Ends kept program `id` (module docs); `was_running` false when it had ended already.
    pub async fn stop_kept(&self, call: &Call, id: &str) -> Result<(Record, bool), KernelError> {
        let mut record = self.kept_one(id)?.record;
        if !runs(&record) {
            self.release_entries(&record);
            return Ok((record, false));
        }
        let profile = self.spawn.profile.as_ref();
        let how = match profile.kept_stop(&record.program, &record.args) {
            Some(stop_args) => {
                // A refusal (nobody said yes to the stop) leaves it running.
                self.run(call, &record.program, stop_args, RunOptions::default(), &mut |_, _| Ok(())).await?;
                if ended_within(&record, OWN_STOP_WAIT).await {
                    "own_stop"
                } else {
                    end_group(&record).await
                }
            }
            None => {
                let args = record.args.clone();
                let subject = Subject::Spawn { program: &record.program, args: &args };
                let request = ApprovalRequest {
                    what: format!("stop the kept program {} ({})", record.id, record.command),
                    why: "it ends what a person started and may be using".to_string(),
                    context: Vec::new(),
                    who: Asked::Anyone,
                    rule: Some(Rule::for_command(&record.program, args.clone())),
                };
                self.gate
                    .settle(call, Decision::Ask, &subject, request)
                    .map_err(|refusal| refusal.into_spawn_error(format!("stop {}", record.command), String::new()))?;
                end_group(&record).await
            }
        };
        record.stopped = Some(Stopped {
            at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            how: how.to_string(),
        });
        self.release_entries(&record);
        self.write_kept_record(&record)?;
        if is_own_tmp(&record) {
            // Its own temp folder, made for it alone (`start`); what cannot be removed stays.
            let _ = std::fs::remove_dir_all(&record.tmp);
        }
        Ok((record, true))
    }
}

/// Whether the record's temp folder is one `start` made for this id (`rein-kept-<id>-…`, a
/// plain absolute path): a record is a file rein reads back, and removing whatever folder it
/// names would make it a way to delete any.
fn is_own_tmp(record: &Record) -> bool {
    let path = std::path::Path::new(&record.tmp);
    path.is_absolute()
        && path.components().all(|c| !matches!(c, std::path::Component::ParentDir))
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&super::start::tmp_prefix(&record.id)))
}

impl Kernel {
    /// Removes the ACL entries a kept program's confinement added (Windows), once it has
    /// ended; what cannot be removed stays recorded, and the next start tries again.
    fn release_entries(&self, record: &Record) {
        let Some(sid) = &record.capability_sid else { return };
        let records = crate::kernel::process::windows_acl::records_in(self.scope.home());
        if let Err(undone) = records.release(record.holder_pid, sid, crate::kernel::process::windows_acl::os_entries())
        {
            tracing::warn!(target: "rein::spawn", "kept {}: {undone} (recorded: the next start removes them)", record.id);
        }
    }
}

/// Whether the holder, and what outlived it, are gone within `wait`.
async fn ended_within(record: &Record, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if !runs(record) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    !runs(record)
}

/// TERM to the holder's process group, then KILL; which one ended it.
#[cfg(unix)]
async fn end_group(record: &Record) -> &'static str {
    let Ok(group) = i32::try_from(record.holder_pid) else { return "kill" };
    // SAFETY: signals the process group the holder leads (its own session, `start`).
    unsafe { libc::kill(-group, libc::SIGTERM) };
    if ended_within(record, TERM_GRACE).await && group_gone(group) {
        return "term";
    }
    // SAFETY: as above.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let until = Instant::now() + KILL_WAIT;
    while Instant::now() < until && !group_gone(group) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "kill"
}

/// Whether no process is left in process group `group`.
#[cfg(unix)]
fn group_gone(group: i32) -> bool {
    // SAFETY: signal 0 only asks whether the group has a process.
    let rc = unsafe { libc::kill(-group, 0) };
    rc != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Windows: terminates the holder (only the process created when the record says), which
/// closes its Job Object's one handle and so ends the program and what it started; waits for
/// the holder to be gone.
#[cfg(windows)]
async fn end_group(record: &Record) -> &'static str {
    if let Some(created) = record.holder_created {
        let pid = record.holder_pid;
        let _ =
            tokio::task::spawn_blocking(move || crate::kernel::platform::process_windows::end(pid, created, KILL_WAIT))
                .await;
    }
    "kill"
}
