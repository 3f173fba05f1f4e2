//! What every platform's process tree shares: the work a child does just before it executes
//! the program, and what was left running when the program ended.

/// Work done in the program's own process just before `exec` (Linux: Landlock, capabilities,
/// the system-call filter). It runs after `fork` in a multi-threaded process, so it may only make
/// system calls on values prepared before the fork. Windows has no such moment (a program is
/// created suspended in its job); there it is never given.
pub type BeforeExec = Box<dyn FnMut() -> std::io::Result<()> + Send + Sync>;

/// Processes the program left running that were killed when it ended (or was stopped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stragglers {
    pub count: usize,
    /// The names of the first few (`/proc/<pid>/comm` on Linux); may be empty where the
    /// platform cannot name them.
    pub names: Vec<String>,
}
