//! The host `rein serve` serves, as it becomes ready. Its configuration is read before the
//! client's `initialize` is answered (what is wrong with it goes into the instructions); its
//! tools load meanwhile on a thread of their own, so a client does not wait for Lua it does not
//! use yet. Whatever needs the tools waits for them.

use std::sync::Arc;

use tokio::sync::watch;

use crate::error::{Code, Failure};
use crate::host::{Host, Prepared};

type Ready = Option<Result<Arc<Host>, Failure>>;

#[derive(Clone)]
pub(crate) struct HostSlot(watch::Receiver<Ready>);

impl HostSlot {
    /// A host that is ready, or why there is none.
    pub(crate) fn ready(host: Result<Arc<Host>, Failure>) -> HostSlot {
        HostSlot(watch::channel(Some(host)).1)
    }

    /// The host `prepared` becomes once its tools are loaded, on a thread of its own.
    pub(crate) fn loading(prepared: Prepared) -> HostSlot {
        let (ready, slot) = watch::channel(None);
        let load = move || {
            let host = prepared.load().map(Arc::new);
            if let Err(failure) = &host {
                tracing::error!("{}: {}", failure.code, failure.message);
            }
            ready.send_replace(Some(host));
        };
        if let Err(e) = std::thread::Builder::new().name("rein-load".to_string()).spawn(load) {
            let failure =
                Failure::new(Code::InvalidConfig, format!("cannot start the thread that loads the tools: {e}"));
            return HostSlot::ready(Err(failure));
        }
        HostSlot(slot)
    }

    /// The host, or why there is none, if that is known yet.
    pub(crate) fn now(&self) -> Ready {
        self.0.borrow().clone()
    }

    /// The host, or why there is none, once its tools are loaded.
    pub(crate) async fn get(&self) -> Result<Arc<Host>, Failure> {
        let mut slot = self.0.clone();
        let ready = slot.wait_for(Option::is_some).await.map(|ready| ready.clone());
        match ready {
            Ok(Some(host)) => host,
            _ => Err(Failure::new(
                Code::LuaError,
                "the thread loading the tools stopped without a host (see the server's log); restart the server",
            )),
        }
    }
}
