//! rein: a small kernel that owns every side effect, hosting Lua tools and recipes that drive
//! the HarmonyOS/OpenHarmony toolchain — as the `rein` command, as an MCP server, or inside
//! another program.
//!
//! # Embedding
//!
//! A [`Host`] serves one workspace: rein's built-in tools and recipes, those of the packs the
//! project pinned, and the project's own. Every side effect a tool makes goes through rein's
//! kernel, which checks it against the workspace scope and the approval policy and journals
//! it; an [`Approver`] of yours answers where the policy asks.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let workspace = tempfile::tempdir()?;
//! # let home = tempfile::tempdir()?;
//! let host = rein::Host::builder().workspace(workspace.path())
//! #   .home(home.path())
//!     .build()?;
//! for tool in host.tools() {
//!     println!("{} ({}): {}", tool.name, tool.origin, tool.description);
//! }
//! let written = host.call("write_file", serde_json::json!({"path": "notes.txt", "content": "hi\n"}))?;
//! assert_eq!(written["bytes"], 3);
//! # Ok(())
//! # }
//! ```
//!
//! What the crate exports:
//! - the host: [`Host`], [`HostBuilder`], [`Limits`], [`Call`] (its [`Listener`]s, and the
//!   [`CancellationToken`] that stops it)
//! - events: [`Event`] ([`EventKind`], [`CallId`]) from [`Host::subscribe`], [`Host::listen`]
//!   (a [`Subscription`]) or a call's own [`Listener`]
//! - native modules: [`NativeModule`], [`NativeFunction`], acting through a [`NativeCall`]
//! - approvals: [`Approver`], [`ApprovalRequest`], [`Answer`], [`Asked`], [`Rule`],
//!   [`Access`]; the approvers [`Headless`] (the default) and [`AssumeYes`]
//! - failures: [`Failure`] and its stable [`Code`]
//! - tools and recipes: [`ToolInfo`] (its [`Annotations`]), [`Origin`], [`LoadProblem`];
//!   running a recipe with [`RecipeOptions`] gives a [`Report`] ([`StepReport`], [`Attachment`],
//!   [`AttachmentKind`], [`Attempt`], [`FailureSummary`], [`CommandRecord`], [`ApprovalRecord`],
//!   [`FileChange`], [`RunStatus`], [`StepStatus`], [`AttemptStatus`], [`Action`], [`Outcome`]);
//!   [`Host::run_report_page`] renders one as report.html
//! - hot reload: [`Host::reload`] and [`Host::watch`] give a [`ReloadOutcome`] ([`KeptFile`],
//!   [`Serving`]) and a [`Watcher`]
//! - tools' own checks: [`Host::run_checks`] gives each [`CheckOutcome`]
//! - the toolchain: [`Host::doctor`] gives a [`Diagnosis`] ([`ProgramReport`], [`ConfigFile`])
//! - past runs: [`Host::runs`] ([`RunSummary`]), [`Host::run_report`], [`Host::prune_runs`]
//!   ([`Retention`], [`Collected`]), [`Host::undo`] ([`Undone`], [`Restored`], [`RestoreAction`])
//! - what only a person may do, in two steps so that a yes applies exactly what was shown:
//!   [`Host::packs`] ([`Packs`] prepares a [`PackChange`] and applies it: [`PackApplied`],
//!   [`PackCheck`], [`LockedPack`]), [`Host::policy_review`] and [`Host::approve_policy`]
//!   ([`PolicyReview`], [`ReviewedFile`]), [`ApprovalRules`] in [`default_home`]
//! - for a program's own front end: [`stop_requested`], [`Event::step_line`],
//!   [`closest_names`], [`did_you_mean`]; [`visible`] (text a person can trust: what a screen
//!   would act on or hide, shown escaped); [`authoring`] for tool authors' tooling
//!
//! The `rein` command is a client of exactly this API (`tests/cli_public` compiles it against
//! rein without access to anything else).
//!
//! # Features
//!
//! - `cli` (default): the `rein` command, [`cli::main`] (clap, the terminal UI, logging to
//!   stderr); needs `mcp`
//! - `mcp` (default): the MCP server, [`mcp::serve`] on any rmcp transport and
//!   [`mcp::serve_stdio`] (rmcp)
//! - `internals`: makes the `kernel` and `packs` layers public for rein's own integration
//!   tests and benchmarks; no promise of stability
//!
//! With `default-features = false`, rein is the kernel, the Lua host and recipes, without
//! clap, rmcp, the terminal UI crates or tracing-subscriber.
//!
//! # Inside
//!
//! The layers, each using only the ones above it (docs/src/layout.md is the full map):
//!
//! ```text
//! error      Code and Failure: the failure every layer reports
//! kernel/    room one, generic: every side effect, each taking the per-call Call; names no
//!            toolchain and no Lua (.ci/kernel-words)
//!   call, events, scope/, files/, edit/, journal/, secrets/, platform/
//!   policy/    the engine's words, below the call: shapes, file table, rules, pack
//!              permissions, controls, approvers, annotations, who decided
//!   gate/      above the call: bounds, then the decision, asking the approver; approvals.toml
//!   process/   running a program: spawn, env, grants, confinement — and what it asks
//!              about programs: the ToolchainProfile (process/toolchain.rs)
//! harmony/   room two, HarmonyOS: the ToolchainProfile the kernel spawns with (Harmony)
//!   programs, grammar/ (hdc + shell, hvigorw, ohpm, hap-sign-tool, git), confinement,
//!   toolchain + discovery (DevEco/SDK/Java), signing + material + keystore_pins, hdc_server(s),
//!   lease, stage, received, error
//! lua/       the sandboxed scripting host and the `rein` API (prelude/harmony/: the Lua
//!            parsers and verdicts tools share)
//! recipe/    specs, the engine, reports
//! packs/     installing and verifying shared packs
//! host/      the Host: generations, reload, sources, checks; configures both rooms
//! mcp/, cli/ the front ends
//! ```

#![deny(missing_docs)]

// The `rein` command (src/cli) is built in this crate and names it `rein::…`, as any embedder
// does; tests/cli_public compiles the same files against the public API alone (.ci/run).
extern crate self as rein;

pub mod authoring;
#[cfg(feature = "cli")]
pub mod cli;
mod error;
#[cfg(feature = "internals")]
#[allow(missing_docs)]
pub mod harmony;
#[cfg(not(feature = "internals"))]
mod harmony;
mod host;
#[cfg(feature = "internals")]
#[allow(missing_docs)]
pub mod kernel;
#[cfg(not(feature = "internals"))]
mod kernel;
mod lua;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "internals")]
#[allow(missing_docs)]
pub mod packs;
#[cfg(not(feature = "internals"))]
mod packs;
mod recipe;
pub mod visible;

pub use error::{closest_names, did_you_mean, Code, Failure};
pub use host::checks::CheckOutcome;
pub use host::doctor::{ConfigFile, Diagnosis, ProgramReport};
pub use host::kept::{
    hold_kept_program, HoldRefused, Kept, Record as KeptRecord, Stopped as KeptStopped, HOLD_COMMAND,
};
pub use host::registry::{LoadProblem, ToolInfo};
pub use host::sources::Origin;
pub use host::{
    default_home, ApprovalRules, Host, HostBuilder, KeptFile, PackApplied, PackChange, PackChangeKind, PackCheck,
    Packs, PolicyReview, ReloadOutcome, ReviewedFile, Serving, Subscription, Undone, Watcher,
};
pub use kernel::call::CancellationToken;
pub use kernel::edit::{EditReport, Location};
pub use kernel::events::Ended;
pub use kernel::files::list::Entry as ListEntry;
pub use kernel::journal::restore::{RestoreAction, Restored};
pub use kernel::journal::{Action, Collected, Outcome};
pub use kernel::platform::signals::{stop_requested, StopSignals};
pub use kernel::policy::DecidedBy;
pub use kernel::policy::{Answer, ApprovalRequest, Approver, Asked, AssumeYes, Headless, Rule};
pub use kernel::process::spawn::SpawnOutput;
pub use kernel::{
    Access, Call, CallId, Edit, EditOptions, EditOutput, Event, EventKind, FileChange, ListOptions, ListOutput,
    Listener, ReadOptions, ReadOutput, RunOptions, TextFile, WriteOutput,
};
pub use lua::annotations::Annotations;
pub use lua::{Limits, NativeCall, NativeFunction, NativeModule, NativeParam};
pub use packs::lockfile::LockedPack;
pub use recipe::report::{
    ApprovalRecord, Attachment, AttachmentKind, Attempt, AttemptStatus, CommandEnd, CommandRecord, FailureSummary,
    RecipeSource, Replaced, Report, RunStatus, StepReport, StepStatus,
};
pub use recipe::retention::Retention;
pub use recipe::runs::RunSummary;
pub use recipe::RecipeOptions;
