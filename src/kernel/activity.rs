//! Who wants to hear about programs as they start and end (an MCP request turning them into
//! progress notifications). Scoped to the caller's task, so concurrent callers never mix.

use std::sync::Arc;

pub type Sink = Arc<dyn Fn(&str) + Send + Sync>;

tokio::task_local! {
    static SINK: Sink;
}

/// Runs `future` with `sink` hearing about every program it runs.
pub async fn with_sink<F: std::future::Future>(sink: Sink, future: F) -> F::Output {
    SINK.scope(sink, future).await
}

pub(crate) fn announce(text: &str) {
    let _ = SINK.try_with(|sink| sink(text));
}
