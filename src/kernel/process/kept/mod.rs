//! Kept programs: the one class of spawn allowed to outlive the call that starts it (an
//! emulator's supervisor, which must run for as long as the emulator does). Everything else
//! keeps "nothing outlives a spawn" (`spawn`).
//!
//! - Only a command line the toolchain profile names (`ToolchainProfile::may_keep`) is kept, and
//!   only with a person's yes or a rule a person made in home approvals.toml — never `--yes`,
//!   never the project's rein.toml (`start`).
//! - A holder (`rein hold`, `holder`) in a session of its own keeps the program as its child
//!   for the program's whole life, so the program never sees its launcher go. The holder runs
//!   inside the program's own confinement (Landlock and the system-call filter are applied to
//!   the holder before it executes, and the program inherits them): the holder can reach no
//!   more than the program may.
//! - Its output goes to `.rein/kept/<id>.log` (capped), its record `.rein/kept/<id>.json`
//!   (written atomically; `.rein/` is protected from the agent's writes as the journal is).
//! - `rein ps` lists them (`Kernel::kept`), `rein stop` ends one (`stop`): the program's own
//!   stop first, then its process group after a bounded wait. A call ending never ends one.
//! - Windows has no sessions: the holder is started detached from rein's console and process
//!   group and broken away from any Job Object rein runs in (`platform::token_windows::
//!   start_detached`; where rein's job forbids breakaway the start is refused,
//!   `KEEP_IMPOSSIBLE`), under the write-restricted token every Windows spawn gets, its ACL
//!   entries handed to the holder's pid so they live as long as it does. The holder puts itself
//!   in a Job Object of its own (kill-on-close) before it starts the program, and `rein stop`
//!   ends the holder, which ends that job. A pid is trusted only with the creation time the
//!   record holds.

mod holder;
mod log_cap;
mod start;
mod stop;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use holder::{hold, HoldRefused};
pub use stop::Stopped;

use crate::kernel::policy::DecidedBy;
use crate::kernel::{Kernel, KernelError};

/// Where the records and logs are, relative to the workspace.
pub const KEPT_DIR: &str = ".rein/kept";
/// The most of a kept program's output its log holds: the first and the last half.
pub const LOG_LIMIT: usize = 1024 * 1024;
/// The word the holder's command line starts with (`rein hold --id <id> -- program args…`).
pub const HOLD_COMMAND: &str = "hold";
/// The variable the holder gives the program (and so everything it starts): its kept id. What
/// is left of a kept program after its holder went is known by it (`left_running`).
pub const KEPT_MARK: &str = "REIN_KEPT_ID";

/// What rein knows of one kept program (`.rein/kept/<id>.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// `<program>-<unix seconds>-<hex>`: what `rein stop` takes.
    pub id: String,
    /// The program's name, as the toolchain profile knows it.
    pub program: String,
    /// Its arguments (secret values hidden).
    pub args: Vec<String>,
    /// The command line as the question showed it.
    pub command: String,
    /// The holder: its process, also the process group the program runs in.
    pub holder_pid: u32,
    /// Windows: when the holder was created (100 ns since 1601), which tells it apart from a
    /// later process given the same id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder_created: Option<u64>,
    /// Windows: the capability SID its ACL entries name (`process::windows_acl`), removed once
    /// it has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_sid: Option<String>,
    /// When it was started (RFC 3339).
    pub started_at: String,
    /// The workspace it was started for.
    pub workspace: String,
    /// Who said yes: a person (the approver) or their rule.
    pub approved_by: DecidedBy,
    /// What it runs under (as the journal says it: `landlock-abi6`, `seatbelt`, `none: why`).
    pub confinement: String,
    /// The log, relative to the workspace.
    pub log: String,
    /// Its own temp folder (removed once it is stopped).
    pub tmp: String,
    /// Set by `rein stop`: when and how it was ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
}

/// A kept program as `rein ps` and `rein.proc.kept` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kept {
    #[serde(flatten)]
    /// What rein recorded when it started it.
    pub record: Record,
    /// `running` while its holder runs, else `ended`.
    pub state: &'static str,
    /// The last lines of its log.
    pub log_tail: Vec<String>,
}

/// How many lines of the log a listing shows.
const TAIL_LINES: usize = 20;

impl Kernel {
    /// Every kept program of this workspace, running or ended, oldest first.
    pub fn kept(&self) -> Result<Vec<Kept>, KernelError> {
        let mut names = self.rein_dir_names(Path::new(KEPT_DIR))?;
        names.sort();
        let mut all = Vec::new();
        for name in names.iter().filter_map(|n| n.strip_suffix(".json")) {
            if let Some(record) = self.kept_record(name)? {
                all.push(self.shown(record));
            }
        }
        all.sort_by(|a, b| a.record.started_at.cmp(&b.record.started_at).then(a.record.id.cmp(&b.record.id)));
        Ok(all)
    }

    /// One kept program, or `KEPT_NOT_FOUND`.
    pub fn kept_one(&self, id: &str) -> Result<Kept, KernelError> {
        match self.kept_record(id)? {
            Some(record) => Ok(self.shown(record)),
            None => Err(KernelError::KeptNotFound { id: id.to_string() }),
        }
    }

    fn shown(&self, record: Record) -> Kept {
        let state = if runs(&record) { "running" } else { "ended" };
        let log = self.read_rein_file(Path::new(&record.log)).ok().flatten().unwrap_or_default();
        let text = String::from_utf8_lossy(&log);
        let lines: Vec<&str> = text.lines().collect();
        let log_tail = lines[lines.len().saturating_sub(TAIL_LINES)..].iter().map(|l| l.to_string()).collect();
        Kept { record, state, log_tail }
    }

    fn kept_record(&self, id: &str) -> Result<Option<Record>, KernelError> {
        if !valid_id(id) {
            return Ok(None);
        }
        let Some(bytes) = self.read_rein_file(&record_path(id))? else { return Ok(None) };
        let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
            KernelError::invalid(format!("{KEPT_DIR}/{id}.json is not a record rein wrote ({e}); remove it"))
        })?;
        // A record copied under another name names another program's holder.
        Ok((record.id == id).then_some(record))
    }

    fn write_kept_record(&self, record: &Record) -> Result<(), KernelError> {
        let text = serde_json::to_vec_pretty(record).expect("a record serializes");
        self.write_rein_file(&record_path(&record.id), &text)
    }
}

fn record_path(id: &str) -> PathBuf {
    Path::new(KEPT_DIR).join(format!("{id}.json"))
}

/// An id rein makes: `<program>-<digits>-<hex>`, nothing that walks folders.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 80 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Whether anything of the kept program runs: its holder, or what it started that outlived it.
fn runs(record: &Record) -> bool {
    holder_runs(record) || left_running(record)
}

/// Whether a process of the holder's process group outlived the holder (a program that no
/// longer noticed its launcher go): `rein ps` must not say `ended` of it, `rein stop` must still
/// end it. A group's number is the holder's pid, free for reuse once the group is empty, so a
/// member counts only when it carries this id in [`KEPT_MARK`] (which only the holder sets).
#[cfg(target_os = "linux")]
fn left_running(record: &Record) -> bool {
    if record.stopped.is_some() {
        return false;
    }
    let mark = format!("{KEPT_MARK}={}", record.id);
    let Ok(entries) = std::fs::read_dir("/proc") else { return false };
    entries.flatten().any(|entry| {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { return false };
        in_group(pid, record.holder_pid)
            && std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == mark.as_bytes()))
    })
}

#[cfg(not(target_os = "linux"))]
fn left_running(_record: &Record) -> bool {
    false
}

/// Whether process `pid` (not a zombie) is in process group `group` (`/proc/<pid>/stat`: the
/// state is the first field after the name, the group the third).
#[cfg(target_os = "linux")]
fn in_group(pid: u32, group: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    let Some((_, rest)) = stat.rsplit_once(") ") else { return false };
    let fields: Vec<&str> = rest.split(' ').collect();
    fields.first().is_some_and(|state| *state != "Z") && fields.get(2).and_then(|g| g.parse().ok()) == Some(group)
}

/// Whether the record's holder still runs: the process is there and (where the system says
/// what a process runs) it is `rein hold` for this id, not a later process given the same pid.
fn holder_runs(record: &Record) -> bool {
    if record.stopped.is_some() || !crate::kernel::platform::alive::process_alive(record.holder_pid) {
        return false;
    }
    is_holder(record)
}

/// Linux: the process's command line is `rein hold --id <this id> …`.
#[cfg(target_os = "linux")]
fn is_holder(record: &Record) -> bool {
    let (pid, id) = (record.holder_pid, &record.id);
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    // A zombie (ended, not yet waited for) has an empty command line.
    let words: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    words.contains(&HOLD_COMMAND.as_bytes()) && words.contains(&id.as_bytes())
}

/// Windows: the process was created when the holder was; a record without that time (not
/// written on Windows) names no holder rein can tell apart, so none.
#[cfg(windows)]
fn is_holder(record: &Record) -> bool {
    record
        .holder_created
        .is_some_and(|created| crate::kernel::platform::process_windows::runs(record.holder_pid, created))
}

/// macOS: not checked yet; the pid is taken at its word.
#[cfg(all(unix, not(target_os = "linux")))]
fn is_holder(_record: &Record) -> bool {
    true
}
