//! A clock a lease can wait on whatever polls it: an embedder's `call_async` may run on a
//! runtime without timers, or on no tokio runtime at all. The sleeps belong to a runtime with
//! timers of its own, kept turning by one thread that does nothing else. The deadline is read
//! from that runtime's clock too: an embedder's test runtime may have paused tokio's clock and
//! moved it on an hour (`start_paused`, `advance`), and a deadline read there would be an hour
//! away on this one.

use std::sync::OnceLock;
use std::time::Duration;

use tokio::runtime::{Builder, Handle};
use tokio::time::Sleep;

static CLOCK: OnceLock<Option<Handle>> = OnceLock::new();

/// A sleep of `duration` from now; `None` if the clock's thread could not be started.
pub(super) fn sleep(duration: Duration) -> Option<Sleep> {
    let clock = CLOCK.get_or_init(start).as_ref()?;
    let _inside = clock.enter();
    Some(tokio::time::sleep(duration))
}

fn start() -> Option<Handle> {
    let started = Builder::new_current_thread().enable_time().build().and_then(|runtime| {
        let clock = runtime.handle().clone();
        std::thread::Builder::new()
            .name("rein-clock".to_string())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))?;
        Ok(clock)
    });
    started
        .map_err(|e| {
            tracing::warn!(
                "no clock for the Lua states' pool ({e}): calls that find every state busy get a new one at once"
            )
        })
        .ok()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::runtime::Builder;

    #[test]
    fn its_sleeps_end_under_any_executor() {
        let started = std::time::Instant::now();
        let sleep = super::sleep(Duration::from_millis(30)).expect("a clock");
        // Not a tokio runtime: the clock's own thread wakes it.
        futures::executor::block_on(sleep);
        assert!(started.elapsed() >= Duration::from_millis(30));
        // A tokio runtime without timers.
        let runtime = Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            super::sleep(Duration::from_millis(10)).unwrap().await;
        });
    }
}
