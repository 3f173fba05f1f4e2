//! The host side of the fake toolchain: `hdc` (the client, and `hdc start`'s stand-in server),
//! `hvigorw` and `ohpm`, answered by this same program when it runs under one of those names (a
//! copy or link named `hdc`, `hdc.exe` …: [`install`]) or with the name as its first word.
//! Every fake logs its invocation to `calls.log`, then applies the common behaviours a test
//! scripts (spam, sleep, a child, ignoring SIGTERM: [`common`]) before its own work.

mod common;
mod emulator;
mod fake_state;
mod hap_write;
mod hdc;
mod hdc_app;
mod hdc_file;
mod hdc_server;
mod hstack;
mod hvigor;
mod hvigor_arkts;
mod hvigor_build;
mod hvigor_local_tests;
mod hvigor_modules;
mod hvigor_pages;
mod hvigor_sign;
pub mod hvigor_source_map;
mod hvigor_tests;
mod install;
mod json5;
mod ohpm;
mod shell_words;
mod signing_material;

/// The host programs, by the name they run under.
pub const PROGRAMS: [&str; 5] = ["hdc", "hvigorw", "ohpm", "Emulator", "hstack"];

/// Runs the host program `called` is (or `args[0]` names, when `called` is this program's own
/// name); `None` when neither is one. The exit status.
pub fn run_as(called: &str, args: &[String]) -> Option<i32> {
    if PROGRAMS.contains(&called) {
        return Some(run(called, args));
    }
    let first = args.first()?.as_str();
    match first {
        "hdc" | "hvigorw" | "ohpm" | "Emulator" | "hstack" => Some(run(first, &args[1..])),
        hdc_server::STAND_IN => Some(hdc_server::stand_in(&args[1..])),
        install::COMMAND => Some(install::install(&args[1..])),
        signing_material::COMMAND => Some(signing_material::main(&args[1..])),
        fake_state::COMMAND => Some(fake_state::main(&args[1..])),
        json5::COMMAND => Some(json5::print(&args[1..])),
        _ => None,
    }
}

fn run(program: &str, argv: &[String]) -> i32 {
    let state = crate::state::State::from_env();
    common::start(&state, program, argv);
    match program {
        "hdc" => hdc::main(&state, argv),
        "hvigorw" => hvigor::main(&state, argv),
        "Emulator" => emulator::main(&state, argv),
        "hstack" => hstack::main(argv),
        _ => ohpm::main(&state, argv),
    }
}
