//! The host's subscribers: listeners that hear every call the host starts (with the call's id
//! in each event) and what belongs to no call, like a reload.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock, Weak};

use crate::kernel::{Event, EventKind, Listener};

struct Subscriber {
    id: u64,
    listener: Listener,
    /// Set once it can hear nothing more (its channel's receiver is gone).
    gone: Arc<AtomicBool>,
}

#[derive(Default)]
pub(crate) struct Subscribers {
    list: RwLock<Vec<Subscriber>>,
    next: AtomicU64,
}

/// Keeps a listener subscribed (see [`crate::Host::listen`]); dropping it unsubscribes.
#[must_use = "the listener is unsubscribed when the Subscription is dropped"]
pub struct Subscription {
    subscribers: Weak<Subscribers>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(subscribers) = self.subscribers.upgrade() {
            subscribers.list.write().unwrap_or_else(|e| e.into_inner()).retain(|s| s.id != self.id);
        }
    }
}

impl Subscribers {
    /// Subscribes `listener` for as long as the host lives.
    pub fn add(&self, listener: Listener) -> u64 {
        self.add_with(listener, Arc::new(AtomicBool::new(false)))
    }

    fn add_with(&self, listener: Listener, gone: Arc<AtomicBool>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.list.write().unwrap_or_else(|e| e.into_inner()).push(Subscriber { id, listener, gone });
        id
    }

    /// Subscribes `listener` until the returned Subscription is dropped.
    pub fn listen(self: &Arc<Self>, listener: Listener) -> Subscription {
        let id = self.add(listener);
        Subscription { subscribers: Arc::downgrade(self), id }
    }

    /// A channel that receives every event from now on; once its receiver is dropped it is
    /// unsubscribed.
    pub fn channel(&self) -> mpsc::Receiver<Event> {
        let (tx, rx) = mpsc::channel();
        let gone = Arc::new(AtomicBool::new(false));
        let mark = gone.clone();
        self.add_with(
            Arc::new(move |event: &Event| {
                if tx.send(event.clone()).is_err() {
                    mark.store(true, Ordering::Relaxed);
                }
            }),
            gone,
        );
        rx
    }

    pub fn is_empty(&self) -> bool {
        self.list.read().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    pub fn tell(&self, event: &Event) {
        let mut any_gone = false;
        for subscriber in self.list.read().unwrap_or_else(|e| e.into_inner()).iter() {
            crate::kernel::events::hear(&subscriber.listener, event);
            any_gone |= subscriber.gone.load(Ordering::Relaxed);
        }
        if any_gone {
            self.list.write().unwrap_or_else(|e| e.into_inner()).retain(|s| !s.gone.load(Ordering::Relaxed));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reload() -> EventKind {
        EventKind::ReloadRejected { generation: 1, kept: vec![], problems: vec![] }
    }

    #[test]
    fn a_dropped_receiver_or_subscription_unsubscribes() {
        let subscribers = Arc::new(Subscribers::default());
        let rx = subscribers.channel();
        subscribers.tell_kind(reload());
        assert_eq!(rx.try_iter().count(), 1);
        drop(rx);
        subscribers.tell_kind(reload());
        assert!(subscribers.is_empty(), "the closed channel was dropped");
        let heard = Arc::new(AtomicU64::new(0));
        let counter = heard.clone();
        let subscription = subscribers.listen(Arc::new(move |_: &Event| {
            counter.fetch_add(1, Ordering::Relaxed);
        }));
        subscribers.tell_kind(reload());
        drop(subscription);
        subscribers.tell_kind(reload());
        assert_eq!(heard.load(Ordering::Relaxed), 1);
        assert!(subscribers.is_empty());
    }
}
