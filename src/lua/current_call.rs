//! The call a piece of Lua runs for. Every top-level call, nested `rein.tool` call and recipe
//! step runs its Lua as part of its own [`Call`]; the natives read it from here. The current
//! call follows the future that polls the Lua (a task-local), so concurrent
//! `rein.parallel` branches and nested calls each see their own call, whatever order they
//! run and end in.

use std::future::Future;

use crate::error::{Code, Failure};
use crate::kernel::Call;

tokio::task_local! {
    static CALL: Call;
}

/// Runs `future` (which drives Lua) as part of `call`.
pub async fn within<F: Future>(call: Call, future: F) -> F::Output {
    CALL.scope(call, future).await
}

/// Runs `f` (which runs Lua without yielding, e.g. loading a file) as part of `call`.
pub fn within_sync<R>(call: Call, f: impl FnOnce() -> R) -> R {
    CALL.sync_scope(call, f)
}

/// The call the running Lua belongs to, for a native about to act: once the call is cancelled
/// nothing more is done for it (CANCELLED; the budget stops the script at its next check).
pub fn get() -> Result<Call, Failure> {
    let call = get_even_if_cancelled()?;
    if call.is_cancelled() {
        return Err(Failure::new(Code::Cancelled, "the call was cancelled by its caller; nothing more is done for it"));
    }
    Ok(call)
}

/// The call the running Lua belongs to, cancelled or not (to scrub what a script logs).
pub fn get_even_if_cancelled() -> Result<Call, Failure> {
    CALL.try_with(Call::clone).map_err(|_| {
        Failure::new(
            Code::LuaError,
            "rein.* was used outside a tool or recipe call (from a finalizer or a stored callback?)",
        )
    })
}
