//! The files a generation could not load because the state loading them never came back: a
//! native function a file's top-level code called ran past the load budget's wall clock (a
//! `rein.fs.stage_packages` of gigabytes, say), and the watchdog gave that state up. Without
//! this the whole host failed to start — `rein serve` served nothing, for one file. Each state
//! notes the file it is loading; when the watchdog gives a state up, that file is set aside and
//! a fresh state loads the others, the file reported as a load problem of its own.

use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::error::Failure;

#[derive(Debug, Default)]
pub struct Loading {
    /// The file (its label) a state is loading now.
    now: Mutex<Option<String>>,
    /// Files whose load a state never came back from.
    set_aside: Mutex<BTreeSet<String>>,
}

impl Loading {
    /// A state starts loading `label` (None: it finished).
    pub fn at(&self, label: Option<&str>) {
        *self.now.lock().unwrap_or_else(|e| e.into_inner()) = label.map(str::to_string);
    }

    /// Whether `label` is set aside.
    pub fn set_aside(&self, label: &str) -> bool {
        self.set_aside.lock().unwrap_or_else(|e| e.into_inner()).contains(label)
    }

    /// After a state failed to build with `failure`: sets aside the file it was loading when the
    /// watchdog gave it up, and says whether there was one (then a fresh state can try again).
    pub fn give_up(&self, failure: &Failure) -> bool {
        if failure.details.get("state_given_up") != Some(&serde_json::Value::Bool(true)) {
            return false;
        }
        let Some(label) = self.now.lock().unwrap_or_else(|e| e.into_inner()).take() else { return false };
        self.set_aside.lock().unwrap_or_else(|e| e.into_inner()).insert(label)
    }
}
