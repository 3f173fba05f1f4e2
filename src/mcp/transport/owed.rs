//! Back-pressure: the answers rein owes the client. A request is taken from the client only
//! while fewer than [`MAX_OWED`] answers are owed; an answer stops being owed once it is
//! written to the client (not when it is made), or when the request is cancelled. A client that
//! does not read its answers fills its pipe, the writer waits, no answer is settled, the
//! transport stops taking requests, the reader's queue fills and rein stops reading: what rein
//! holds is bounded by [`MAX_OWED`] answers, whatever the client writes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::RequestId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Answers rein may owe at once: requests being handled plus answers not yet written. The
/// server's one worker handles a call at a time, so a few already keep it busy while earlier
/// answers are written.
pub const MAX_OWED: usize = 32;

/// The answers owed, each holding one unit of room.
pub(super) struct Owed {
    room: Arc<Semaphore>,
    owed: Mutex<HashMap<RequestId, OwnedSemaphorePermit>>,
}

impl Owed {
    pub(super) fn new() -> Arc<Owed> {
        Arc::new(Owed { room: Arc::new(Semaphore::new(MAX_OWED)), owed: Mutex::new(HashMap::new()) })
    }

    /// One unit of room, waiting until an owed answer is settled. Cancel-safe: dropped while
    /// waiting, it takes nothing.
    pub(super) async fn room(&self) -> OwnedSemaphorePermit {
        match self.room.clone().acquire_owned().await {
            Ok(permit) => permit,
            Err(_) => unreachable!("the semaphore is never closed"),
        }
    }

    /// Whether an answer to `id` is owed already (a request repeating it is refused: rmcp
    /// keeps one request per id and would drop the other's answer).
    pub(super) fn is_owed(&self, id: &RequestId) -> bool {
        self.map().contains_key(id)
    }

    /// An answer to `id` is owed, holding `room`.
    pub(super) fn owe(&self, id: RequestId, room: OwnedSemaphorePermit) {
        self.map().insert(id, room);
    }

    /// The answer to `id` was written, or will never be (the request was cancelled).
    pub(super) fn settle(&self, id: &RequestId) {
        self.map().remove(id);
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, OwnedSemaphorePermit>> {
        // The map stays whole whatever panicked while it was held: each call is one insert or remove.
        self.owed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
