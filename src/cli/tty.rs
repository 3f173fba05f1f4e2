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

/// Whether this process has a terminal to ask.
pub fn available() -> bool {
    open().is_ok()
}
