//! Recipes: multi-step workflows with verification, rollback, stop-loss retries, budgets and a
//! reviewer's report.
//!
//! - `spec`: a recipe as its Lua file declares it (and the verify contract)
//! - `engine`: running it (attempts, rollback, budgets, cancellation)
//! - `context`, `activity`: a step's `ctx`, and what a step did read from its journal entries
//! - `report`, `markdown`, `details_md`, `runs`, `progress`: what a run leaves (report.json,
//!   report.md, a failure's details in markdown), past runs, progress as it goes
//! - `html`, `junit`, `markup`: the same report as one self-contained page and as JUnit XML,
//!   with everything a run recorded escaped; `flow_section`: a UI flow's steps in both (a
//!   testcase each, a strip of screens with the tap drawn)
//! - `served`: which code served each step (every tool it ran, with its layer and file)
//! - `retention`: how long the saved copies an undo needs are kept
//! - `tests_section` (`_md`, `_html`, `_junit`), `tests_collect`: the project's own tests a run
//!   ran, per test, read from the steps and shown in each report format
//! - `wording`: who approved, how a command ended and a run's arguments, in words for the report

mod activity;
mod attach;
mod context;
mod details_md;
pub mod engine;
#[cfg(test)]
mod escaping_tests;
mod flow_section;
mod html;
mod junit;
mod markdown;
pub mod markdown_text;
pub mod markup;
pub mod progress;
pub mod report;
pub mod retention;
pub mod runs;
pub mod served;
pub mod spec;
mod tests_collect;
pub mod tests_section;
mod tests_section_html;
mod tests_section_junit;
mod tests_section_md;
mod wording;

pub use engine::{Engine, RecipeOptions};
pub use report::Report;
