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
#[cfg(unix)]
mod cli_cancel;
mod cli_contract;
mod common;
mod concurrent_edits;
#[cfg(unix)]
mod confinement;
#[cfg(target_os = "linux")]
mod containment;
#[cfg(target_os = "linux")]
mod device_labs;
#[cfg(target_os = "linux")]
mod device_leases;
#[cfg(unix)]
mod edit_refusals;
#[cfg(unix)]
mod edit_round_trips;
mod events;
mod examples;
#[cfg(unix)]
mod harmony_devices;
mod harmony_foreground;
mod harmony_launch;
mod harmony_matrix;
#[cfg(target_os = "linux")]
mod harmony_packages;
mod harmony_parsers;
mod harmony_preflight;
mod harmony_ready;
mod harmony_signing;
mod harmony_tools;
mod harmony_ui;
#[cfg(target_os = "linux")]
mod hdc_quoting;
#[cfg(unix)]
mod host_cancel;
mod hot_reload;
mod human_output;
#[cfg(unix)]
mod journal;
mod lua_api;
#[cfg(unix)]
mod mcp_annotations;
#[cfg(unix)]
mod mcp_cancel;
#[cfg(unix)]
mod mcp_run_reports;
#[cfg(unix)]
mod mcp_server;
#[cfg(unix)]
mod mcp_sessions;
#[cfg(unix)]
mod native_modules;
#[cfg(unix)]
mod own_files_crash_safety;
#[cfg(unix)]
mod packs;
#[cfg(unix)]
mod packs_from_lock;
#[cfg(unix)]
mod path_escapes;
#[cfg(unix)]
mod per_call;
#[cfg(target_os = "linux")]
mod planted_git;
#[cfg(unix)]
mod policy_attacks;
mod portable;
#[cfg(unix)]
mod proc_api;
#[cfg(unix)]
mod project_code;
#[cfg(target_os = "linux")]
mod reach;
mod read_before_edit;
#[cfg(unix)]
mod real_clients;
mod recipe_failure_details;
#[cfg(unix)]
mod recipes;
#[cfg(unix)]
mod report_wording;
#[cfg(target_os = "linux")]
mod rig_fake_texts;
#[cfg(target_os = "linux")]
mod rig_real_hdc;
#[cfg(target_os = "linux")]
mod run_report_formats;
mod sandbox_c_work;
mod sandbox_escapes;
mod sandbox_limits;
#[cfg(unix)]
mod shown_to_people;
#[cfg(unix)]
mod side_by_side;
#[cfg(unix)]
mod spawn_process;
#[cfg(target_os = "linux")]
mod spawn_secrets;
#[cfg(unix)]
mod swap_race;
#[cfg(target_os = "linux")]
mod terminal_prompt;
mod tool_checks;
#[cfg(unix)]
mod watchdog;
#[cfg(unix)]
mod write_crash_safety;
