//! Recipes: multi-step workflows with verification, rollback, stop-loss retries, budgets and a
//! reviewer's report.
//!
//! - `spec`: a recipe as its Lua file declares it (and the verify contract)
//! - `engine`: running it (attempts, rollback, budgets, cancellation)
//! - `context`, `activity`: a step's `ctx`, and what a step did read from its journal entries
//! - `report`, `runs`, `progress`: what a run leaves, past runs, progress as it goes
//! - `wording`: who approved and a run's arguments, in words for the report

mod activity;
mod context;
pub mod engine;
pub mod progress;
pub mod report;
pub mod runs;
pub mod spec;
mod wording;

pub use engine::{Engine, RecipeOptions};
pub use report::Report;
