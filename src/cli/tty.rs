//! The person's terminal, opened directly (`/dev/tty`; Windows `CONIN$` and `CONOUT$`), so a
//! question reaches a person even when stdin and stdout are pipes an agent reads.

use std::fs::{File, OpenOptions};

/// The terminal: where the question is written and the answer read.
#[derive(Debug)]
pub struct Terminal {
    pub input: File,
    pub output: File,
}

/// Opens this process's terminal; an error when it has none (a daemon, CI, an agent's pipes).
pub fn open() -> std::io::Result<Terminal> {
    #[cfg(unix)]
    {
        let input = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
        let output = input.try_clone()?;
        Ok(Terminal { input, output })
    }
    #[cfg(windows)]
    {
        // The console's input and screen buffers; both need read and write access to be opened.
        let input = OpenOptions::new().read(true).write(true).open("CONIN$")?;
        let output = OpenOptions::new().read(true).write(true).open("CONOUT$")?;
        Ok(Terminal { input, output })
    }
}

impl Terminal {
    /// Discards whatever was typed but not yet read — by a person before the question, or by
    /// anything else that put input in the terminal's queue — so only an answer typed after the
    /// question appears is read. Call it before writing the question.
    pub fn discard_typed_ahead(&self) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: tcflush on the terminal descriptor this Terminal owns.
            if unsafe { libc::tcflush(self.input.as_raw_fd(), libc::TCIFLUSH) } < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        }
        #[cfg(windows)]
        {
            use std::os::windows::io::AsRawHandle;
            use windows_sys::Win32::System::Console::FlushConsoleInputBuffer;
            // SAFETY: the console input handle this Terminal owns.
            if unsafe { FlushConsoleInputBuffer(self.input.as_raw_handle() as _) } == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        }
    }
}

/// Whether this process has a terminal to ask.
pub fn available() -> bool {
    open().is_ok()
}
