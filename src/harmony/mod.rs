//! What rein knows about the HarmonyOS/OpenHarmony toolchain, in one room, trusted and below
//! Lua. The kernel (`crate::kernel`) is generic; this room uses it and plugs into it as its
//! toolchain profile ([`profile::Harmony`], a `kernel::process::toolchain::ToolchainProfile`).
//! A new HarmonyOS program or command lands here, in one place.
//!
//! - `profile`: [`profile::Harmony`], the kernel's answers, each one call into the modules below
//! - `programs`: the programs and the decision for a command line of each
//! - `grammar/`: each program's command grammar and allow-list (hdc and its shell, hvigorw,
//!   ohpm, hap-sign-tool, git for packs) and the typed values shapes hold (`values`)
//! - `table`: the approval table in docs/src/approvals.md, rendered from the grammars (tests)
//! - `confinement`: what each program may reach while it runs
//! - `toolchain`, `discovery`, `deveco_env`, `java_args`: where the programs are (each OS's
//!   layouts) and how they are started
//! - `signing`, `material`, `keystore_pins`: the signing passwords rein fills in, the keystore
//!   and alias they go with, the keystore bytes they first went with
//! - `hdc_servers`, `hdc_server`: which hdc servers are the person's own; a server must answer
//! - `lease`: device leases, held by a call tree
//! - `stage`: the packages of one install, staged; `received`: the transit folder for files hdc
//!   brings back
//! - `sdk/`: the SDK's declaration files, read for `api_lookup` and `api_check`
//! - `crash_frames`, `source_maps`: a crash stack's frames, mapped back to the workspace's
//!   `.ets` lines through the build's source map and name cache
//! - `ui_input`, `ui_screens`, `ui_question`, `installed`, `device_identity`: screen input and
//!   a test run go unasked only on an app rein installed on the device behind the key (its UDID),
//!   in front and under the input on the screen rein read; the question
//! - `json5_value`: a project's JSON5 file as a value, its nesting bounded
//! - `error`: what this room refuses with on its own (device busy, no hdc server, signing)

pub mod config_check;
pub mod confinement;
pub mod crash_frames;
pub mod deveco_env;
pub mod device_identity;
pub mod discovery;
pub mod error;
pub mod fallbacks;
pub mod grammar;
pub mod hdc_server;
pub mod hdc_servers;
pub mod installed;
pub mod java_args;
pub mod json5_value;
pub mod keystore_pins;
pub mod lease;
pub mod material;
pub mod profile;
pub mod programs;
pub mod project;
pub mod received;
pub mod scaffold;
pub mod sdk;
pub mod signing;
pub mod source_maps;
pub mod stage;
#[cfg(all(test, target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod syscall_filter_tests;
#[cfg(test)]
mod table;
pub mod toolchain;
pub mod ui_input;
pub mod ui_question;
pub mod ui_screens;
pub mod why_asked;
