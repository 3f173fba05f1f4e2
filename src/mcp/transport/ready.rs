//! stdin and stdout as the reader and writer threads use them: blocking, also when the parent
//! process left a descriptor non-blocking (a file description shared with it keeps its flags).
//! Then a read or write says "would block", and the thread waits for the descriptor with
//! poll(2) instead of taking it for the end of the session.

use std::io::{Read, Write};

/// Waits until `fd` can be read (or written, with `writable`).
#[cfg(unix)]
fn wait(fd: std::os::fd::BorrowedFd<'_>, writable: bool) {
    use std::os::fd::AsRawFd;
    let events = if writable { libc::POLLOUT } else { libc::POLLIN };
    let mut ready = libc::pollfd { fd: fd.as_raw_fd(), events, revents: 0 };
    // SAFETY: one valid pollfd, alive for the whole call; an error just means "try again".
    unsafe { libc::poll(&mut ready, 1, -1) };
}

/// The process's stdin for the reader thread.
pub(super) struct Input(std::io::StdinLock<'static>);

impl Input {
    pub(super) fn stdin() -> Input {
        Input(std::io::stdin().lock())
    }
}

impl Read for Input {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.0.read(buffer) {
                #[cfg(unix)]
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    use std::os::fd::AsFd;
                    wait(std::io::stdin().as_fd(), false);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

/// The process's stdout for the writer thread: plain writes (no line buffering in between).
pub(super) struct Output(std::fs::File);

impl Output {
    #[cfg(unix)]
    pub(super) fn stdout() -> std::io::Result<Output> {
        use std::os::fd::AsFd;
        Ok(Output(std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?)))
    }

    #[cfg(windows)]
    pub(super) fn stdout() -> std::io::Result<Output> {
        use std::os::windows::io::AsHandle;
        Ok(Output(std::fs::File::from(std::io::stdout().as_handle().try_clone_to_owned()?)))
    }

    /// Writes all of `bytes`.
    pub(super) fn write_all(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        while !bytes.is_empty() {
            match self.0.write(bytes) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => bytes = &bytes[n..],
                #[cfg(unix)]
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    use std::os::fd::AsFd;
                    wait(self.0.as_fd(), true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}
