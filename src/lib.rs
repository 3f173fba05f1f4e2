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
//! - tools and recipes: [`ToolInfo`], [`Origin`], [`LoadProblem`]; running a recipe with
//!   [`RecipeOptions`] gives a [`Report`] ([`StepReport`],
//!   [`Attempt`], [`FailureSummary`], [`CommandRecord`], [`ApprovalRecord`], [`FileChange`],
//!   [`RunStatus`], [`StepStatus`], [`AttemptStatus`], [`Action`], [`Outcome`])
//! - hot reload: [`Host::reload`] and [`Host::watch`] give a [`ReloadOutcome`] ([`KeptFile`],
//!   [`Serving`]) and a [`Watcher`]
//! - tools' own checks: [`Host::run_checks`] gives each [`CheckOutcome`]
//! - the toolchain: [`Host::doctor`] gives a [`Diagnosis`] ([`ProgramReport`], [`ConfigFile`])
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
//! The layers, each using only the ones above it: `error` (the failure every layer reports);
//! `kernel` (every side effect, each taking the per-call [`Call`]; no Lua here); `lua` (the
//! sandboxed scripting host and the `rein` API); `recipe` (specs, the engine, reports);
//! `packs` (installing and verifying shared packs); `host` (the [`Host`]: generations,
//! reload, sources, checks); `mcp`; `cli`.

#![deny(missing_docs)]
// Some of the library serves only the `rein` command (editor stubs, installing packs, past
// runs, approving policy files). Without the feature `cli` that code is compiled but unused;
// dead code is checked in the default build.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

// The `rein` command (src/cli) lives in this crate and names it `rein::…`, as it did when it
// was part of the binary.
extern crate self as rein;

#[cfg(feature = "cli")]
pub mod cli;
mod error;
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

pub use error::{Code, Failure};
pub use host::checks::CheckOutcome;
pub use host::doctor::{ConfigFile, Diagnosis, ProgramReport};
pub use host::registry::{LoadProblem, ToolInfo};
pub use host::sources::Origin;
pub use host::{Host, HostBuilder, KeptFile, ReloadOutcome, Serving, Subscription, Watcher};
pub use kernel::call::CancellationToken;
pub use kernel::journal::{Action, Outcome};
pub use kernel::policy::{Answer, ApprovalRequest, Approver, Asked, AssumeYes, Headless, Rule};
pub use kernel::{Access, Call, CallId, Event, EventKind, FileChange, Listener};
pub use lua::{Limits, NativeCall, NativeFunction, NativeModule};
pub use recipe::report::{
    ApprovalRecord, Attempt, AttemptStatus, CommandEnd, CommandRecord, FailureSummary, Report, RunStatus, StepReport,
    StepStatus,
};
pub use recipe::RecipeOptions;
