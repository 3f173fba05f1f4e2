//! Which of the three OSes rein runs on, as a value: what differs between them is decided by
//! it where both sides are tested on every OS (tables of each OS's layouts and names).

/// An OS rein knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Macos,
    Windows,
}

impl Os {
    pub fn current() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Macos
        } else {
            Os::Linux
        }
    }
}
