//! Recipes: multi-step workflows with verification, rollback, stop-loss retries, budgets and a
//! reviewer's report.

mod activity;
mod context;
pub mod engine;
pub mod progress;
pub mod report;
pub mod runs;

pub use engine::{Engine, RecipeOptions};
pub use report::Report;
