//! Which request a `notifications/cancelled` stops, when rmcp cannot be the one to hear it.
//!
//! rmcp cancels a request's token when its serve loop reads the notification, but that loop
//! runs on the server's one worker thread, and a Lua script spinning in the VM holds that
//! thread: the notification would wait behind the very call it cancels. So stdin is read on a
//! thread of its own ([`super::transport`]), which spots cancel notifications as they arrive
//! and cancels the token registered here for that request id; the script sees it at its next
//! budget check (see `lua::limits`).
//!
//! A cancel may arrive before its request is registered (the request is still queued behind a
//! running call): it is remembered, and the registration finds its token already cancelled.
//! Responses to cancelled requests are not sent (MCP, basic/utilities/cancellation, revisions
//! 2025-06-18 and 2025-11-25: receivers "SHOULD ... Not send a response for the cancelled
//! request"; rmcp itself drops the response of a request whose cancel its loop has read), so a
//! client sees the same thing whether rmcp or this registry heard the cancel first.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::RequestId;
use tokio_util::sync::CancellationToken;

/// How many cancelled ids are remembered (for a request not registered yet, or a response not
/// sent yet). A cancel of a request that already finished is remembered too, and never
/// consumed; the oldest are forgotten first. MCP forbids reusing an id within a session.
const REMEMBERED: usize = 4096;

#[derive(Default)]
pub struct Cancels {
    state: Mutex<State>,
    /// Whether any id was ever cancelled: sending a response skips the lock until one is.
    any: AtomicBool,
}

#[derive(Default)]
struct State {
    running: HashMap<RequestId, CancellationToken>,
    cancelled: HashSet<RequestId>,
    order: VecDeque<RequestId>,
}

impl Cancels {
    /// Registers the token of request `id` until the returned guard is dropped; a cancel that
    /// already arrived cancels it at once.
    pub fn register(self: &Arc<Self>, id: &RequestId, token: CancellationToken) -> Registration {
        let mut state = self.lock();
        if state.cancelled.contains(id) {
            token.cancel();
        }
        state.running.insert(id.clone(), token);
        Registration { cancels: self.clone(), id: id.clone() }
    }

    /// The client cancelled request `id`: stop it if it runs, remember it either way.
    pub fn cancel(&self, id: &RequestId) {
        let mut state = self.lock();
        if let Some(token) = state.running.get(id) {
            token.cancel();
        }
        if state.cancelled.insert(id.clone()) {
            state.order.push_back(id.clone());
            while state.order.len() > REMEMBERED {
                if let Some(oldest) = state.order.pop_front() {
                    state.cancelled.remove(&oldest);
                }
            }
        }
        self.any.store(true, Ordering::Release);
    }

    /// Cancels every call in flight (the server is stopping).
    pub fn cancel_all(&self) {
        for token in self.lock().running.values() {
            token.cancel();
        }
    }

    /// Whether the response to `id` must be dropped because the client cancelled the request.
    pub fn was_cancelled(&self, id: &RequestId) -> bool {
        self.any.load(Ordering::Acquire) && self.lock().cancelled.contains(id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Keeps a request's token registered while its call runs.
pub struct Registration {
    cancels: Arc<Cancels>,
    id: RequestId,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.cancels.lock().running.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n)
    }

    #[test]
    fn a_cancel_stops_the_registered_request_and_only_that_one() {
        let cancels = Arc::new(Cancels::default());
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        let _ra = cancels.register(&id(1), a.clone());
        let _rb = cancels.register(&id(2), b.clone());
        assert!(!cancels.was_cancelled(&id(1)));
        cancels.cancel(&id(1));
        assert!(a.is_cancelled() && !b.is_cancelled());
        assert!(cancels.was_cancelled(&id(1)) && !cancels.was_cancelled(&id(2)));
        cancels.cancel_all();
        assert!(b.is_cancelled());
    }

    #[test]
    fn a_cancel_before_the_registration_is_not_lost() {
        let cancels = Arc::new(Cancels::default());
        cancels.cancel(&RequestId::String("late".into()));
        let token = CancellationToken::new();
        let _registered = cancels.register(&RequestId::String("late".into()), token.clone());
        assert!(token.is_cancelled());
    }

    #[test]
    fn a_finished_request_is_unregistered_and_old_cancels_are_forgotten() {
        let cancels = Arc::new(Cancels::default());
        let token = CancellationToken::new();
        drop(cancels.register(&id(7), token.clone()));
        assert!(cancels.lock().running.is_empty());
        for n in 0..(REMEMBERED as i64 + 10) {
            cancels.cancel(&id(1000 + n));
        }
        assert!(!token.is_cancelled());
        let state = cancels.lock();
        assert_eq!((state.cancelled.len(), state.order.len()), (REMEMBERED, REMEMBERED));
        assert!(!state.cancelled.contains(&id(1000)), "the oldest cancel is forgotten first");
    }
}
