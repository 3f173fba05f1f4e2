//! The command grammars of the HarmonyOS programs (and git, for packs): pure functions from a
//! command line to a decision, each tested as a table of cases.

pub mod codelinter;
pub mod emulator;
pub mod git;
pub mod hdc;
mod hdc_shell;
pub mod hstack;
pub mod hvigor;
mod hypium;
pub mod ohpm;
mod shell_words;
pub mod sign;
#[cfg(test)]
mod table_cases;
pub mod values;
