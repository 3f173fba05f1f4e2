//! rein's integration tests: one test binary (linking the vendored Lua once), a module per
//! area, each named for the behaviour it checks.
//!
//! They run on Linux. Modules marked `#[cfg(unix)]` use Unix-only calls (symlinks, modes,
//! signals, FIFOs, `/proc`) and are left out on Windows; the rest compile there too (CI
//! type-checks them, README "Platforms") though they drive POSIX shell scripts and `#!` Python
//! fakes, so nothing here runs on Windows. The Windows rules that can be checked anywhere are
//! unit tables in the library (`kernel::scope::windows_paths`, `process::discovery`).

#[cfg(unix)]
mod approvals;
mod authoring;
mod cli_contract;
mod common;
mod concurrent_edits;
#[cfg(unix)]
mod confinement;
#[cfg(unix)]
mod edit_refusals;
#[cfg(unix)]
mod edit_round_trips;
mod events;
mod examples;
mod harmony_launch;
mod harmony_matrix;
mod harmony_parsers;
mod harmony_preflight;
mod harmony_signing;
mod harmony_tools;
#[cfg(unix)]
mod host_cancel;
mod hot_reload;
mod human_output;
#[cfg(unix)]
mod journal;
mod lua_api;
#[cfg(unix)]
mod mcp_cancel;
#[cfg(unix)]
mod mcp_server;
#[cfg(unix)]
mod mcp_sessions;
#[cfg(unix)]
mod native_modules;
#[cfg(unix)]
mod packs;
#[cfg(unix)]
mod packs_from_lock;
#[cfg(unix)]
mod path_escapes;
#[cfg(unix)]
mod per_call;
#[cfg(unix)]
mod policy_attacks;
mod portable;
#[cfg(unix)]
mod proc_api;
mod read_before_edit;
#[cfg(unix)]
mod real_clients;
mod recipe_failure_details;
#[cfg(unix)]
mod recipes;
mod sandbox_escapes;
mod sandbox_limits;
#[cfg(unix)]
mod spawn_process;
mod spawn_stdio;
#[cfg(unix)]
mod swap_race;
mod tool_checks;
#[cfg(unix)]
mod write_crash_safety;
