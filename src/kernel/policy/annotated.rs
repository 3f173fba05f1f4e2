//! What a tool's annotations bind it to. Clients run a tool that says `readOnlyHint` without
//! asking anyone (and may treat `destructiveHint: false` as safe to retry), so a claim must be a
//! fact: a call made for such a tool carries the restriction, every call it makes inherits it
//! (a read-only tool cannot write through a tool it calls), and the kernel checks it where it
//! authorizes each file access (`Kernel::authorize`) and each program (`authorize_spawn`, by the
//! effect the command shape declares: `shapes::Effect`).

use super::shapes::Effect;

/// What a tool said it does not do, strictest last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Restriction {
    /// `destructive = false` (`destructiveHint: false`): it only adds — it may create a file,
    /// never overwrite, edit or remove one, nor run a command that replaces or removes anything.
    NotDestructive,
    /// `read_only = true` (`readOnlyHint: true`): it changes nothing — no write, no edit, no
    /// program that changes anything, no device command beyond reads.
    ReadOnly,
}

/// A restriction and the tool (or recipe) that declared it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub restriction: Restriction,
    /// As it is called: `read_file`, `team-kit.peek`.
    pub tool: String,
}

impl Restriction {
    /// The annotation as a tool file writes it, and as MCP clients see it.
    pub fn annotation(self) -> &'static str {
        match self {
            Restriction::ReadOnly => "read_only = true (readOnlyHint)",
            Restriction::NotDestructive => "destructive = false (destructiveHint: false)",
        }
    }

    /// Whether a tool so bound may write a file that exists already (`exists`) or a new one.
    pub fn allows_write(self, exists: bool) -> bool {
        match self {
            Restriction::ReadOnly => false,
            Restriction::NotDestructive => !exists,
        }
    }

    /// Whether a tool so bound may run a command with this effect.
    pub fn allows(self, effect: Effect) -> bool {
        match self {
            Restriction::ReadOnly => matches!(effect, Effect::Reads | Effect::Scratch),
            Restriction::NotDestructive => effect != Effect::Replaces,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_reads_and_not_destructive_adds() {
        use Effect::*;
        let read_only = Restriction::ReadOnly;
        assert!(read_only.allows(Reads) && read_only.allows(Scratch));
        assert!(!read_only.allows(Adds) && !read_only.allows(Replaces));
        assert!(!read_only.allows_write(false) && !read_only.allows_write(true));
        let adds = Restriction::NotDestructive;
        assert!(adds.allows(Reads) && adds.allows(Scratch) && adds.allows(Adds) && !adds.allows(Replaces));
        assert!(adds.allows_write(false) && !adds.allows_write(true));
        assert!(Restriction::ReadOnly > Restriction::NotDestructive, "read-only is the stricter");
    }
}
