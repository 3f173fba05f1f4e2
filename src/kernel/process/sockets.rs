//! The kinds of socket a program may open, in Linux's numbers: the system-call filter
//! (`syscalls`) refuses every other, whatever Landlock would allow. Which program gets which is
//! per-program data (`harmony::confinement::sockets`).

/// `socket(domain, kind, protocol)`; the kind without `SOCK_NONBLOCK` and `SOCK_CLOEXEC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketKind {
    pub domain: u32,
    pub kind: u32,
    pub protocol: u32,
}
