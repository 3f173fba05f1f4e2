//! "Stop" from the person: on Unix SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed);
//! on Windows Ctrl-C, Ctrl-Break and the console window closing. Whoever waits here stops
//! cleanly (a recipe kills its programs' trees and writes its report) instead of dying with
//! children left running.

/// The stop signals, heard from the moment [`StopSignals::install`] returns: until then a
/// Ctrl-C ends the process as it would any program. Install them before the work starts, not
/// in a task that may first run after it (a loaded machine ran a whole tool before such a task
/// was polled, and Ctrl-C killed rein).
pub struct StopSignals {
    #[cfg(unix)]
    streams: [tokio::signal::unix::Signal; 3],
    #[cfg(windows)]
    streams: (tokio::signal::windows::CtrlC, tokio::signal::windows::CtrlBreak, tokio::signal::windows::CtrlClose),
}

impl StopSignals {
    /// Installs the handlers now. Must be called within a tokio runtime with IO enabled; an
    /// error when the handlers cannot be installed.
    pub fn install() -> std::io::Result<StopSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let streams =
                [signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?, signal(SignalKind::hangup())?];
            Ok(StopSignals { streams })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
            Ok(StopSignals { streams: (ctrl_c()?, ctrl_break()?, ctrl_close()?) })
        }
    }

    /// Completes when a stop is asked for.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        {
            let [interrupt, terminate, hangup] = &mut self.streams;
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
                _ = hangup.recv() => {}
            }
        }
        #[cfg(windows)]
        {
            let (interrupt, brk, close) = &mut self.streams;
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = brk.recv() => {}
                _ = close.recv() => {}
            }
        }
    }
}

/// Completes when a stop is asked for; an error when the handlers cannot be installed. The
/// handlers are installed when this is first polled: where the work must not start before
/// they are, use [`StopSignals::install`].
pub async fn stop_requested() -> std::io::Result<()> {
    StopSignals::install()?.recv().await;
    Ok(())
}
