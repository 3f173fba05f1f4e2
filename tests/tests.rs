//! rein's integration tests: one test binary (linking the vendored Lua once), a module per
//! area, each named for the behaviour it checks.
//!
//! Unix only: they drive rein against POSIX shell scripts and `#!` Python fakes, read
//! `/proc`, send signals and set file modes. On Windows this binary is empty (CI type-checks
//! it there, README "Platforms"); the Windows rules that can be checked anywhere are unit
//! tables in the library (`kernel::platform::windows_paths`, `process::discovery`).
#![cfg(unix)]

mod approvals;
mod authoring;
mod cli_contract;
mod common;
mod concurrent_edits;
mod confinement;
mod edit_refusals;
mod edit_round_trips;
mod harmony_launch;
mod harmony_matrix;
mod harmony_parsers;
mod harmony_preflight;
mod harmony_signing;
mod harmony_tools;
mod hot_reload;
mod human_output;
mod journal;
mod lua_api;
mod mcp_server;
mod mcp_sessions;
mod packs;
mod packs_from_lock;
mod path_escapes;
mod per_call;
mod policy_attacks;
mod portable;
mod proc_api;
mod read_before_edit;
mod real_clients;
mod recipe_failure_details;
mod recipes;
mod sandbox_escapes;
mod sandbox_limits;
mod spawn_process;
mod swap_race;
mod tool_checks;
mod write_crash_safety;
