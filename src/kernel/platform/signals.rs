//! "Stop" from the person: on Unix SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed);
//! on Windows Ctrl-C, Ctrl-Break and the console window closing. Whoever waits here stops
//! cleanly (a recipe kills its programs' trees and writes its report) instead of dying with
//! children left running.

/// Completes when a stop is asked for; an error when the handlers cannot be installed.
pub async fn stop_requested() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        let mut hangup = signal(SignalKind::hangup())?;
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
            _ = hangup.recv() => {}
        }
        Ok(())
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
        let mut interrupt = ctrl_c()?;
        let mut brk = ctrl_break()?;
        let mut close = ctrl_close()?;
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = brk.recv() => {}
            _ = close.recv() => {}
        }
        Ok(())
    }
}
