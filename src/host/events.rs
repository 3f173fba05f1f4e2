//! The host's subscribers: listeners that hear every call the host starts (with the call's id
//! in each event) and what belongs to no call, like a reload.

use std::sync::mpsc;
use std::sync::{Arc, RwLock};

use crate::kernel::{Event, EventKind, Listener};

#[derive(Default)]
pub(crate) struct Subscribers {
    list: RwLock<Vec<Listener>>,
}

impl Subscribers {
    pub fn add(&self, listener: Listener) {
        self.list.write().unwrap_or_else(|e| e.into_inner()).push(listener);
    }

    /// A channel that receives every event from now on; dropping the receiver ends it.
    pub fn channel(&self) -> mpsc::Receiver<Event> {
        let (tx, rx) = mpsc::channel();
        // A sender whose receiver is gone fails quietly: the listener stays, costing a clone.
        self.add(Arc::new(move |event: &Event| {
            let _ = tx.send(event.clone());
        }));
        rx
    }

    pub fn is_empty(&self) -> bool {
        self.list.read().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    pub fn tell(&self, event: &Event) {
        for listener in self.list.read().unwrap_or_else(|e| e.into_inner()).iter() {
            listener(event);
        }
    }

    /// One listener for a call that tells every subscriber (those added later too).
    pub fn listener(self: &Arc<Self>) -> Listener {
        let subscribers = self.clone();
        Arc::new(move |event: &Event| subscribers.tell(event))
    }

    /// An event of no call (a reload).
    pub fn tell_kind(&self, kind: EventKind) {
        if !self.is_empty() {
            self.tell(&Event { call: None, actor: None, kind });
        }
    }
}
