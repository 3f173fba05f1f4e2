//! Where the code acting in a call comes from: the call's actors carry it, and events name it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
/// Where a tool, recipe or module comes from; a later layer's definition of a name wins
/// (built-in, then packs, then the project). Ordered as the layers load.
pub enum Origin {
    /// Shipped in rein.
    BuiltIn,
    /// Given as text by the program embedding rein (`HostBuilder::tool_source`).
    Embedder,
    /// An installed pack (which one: the file's pack).
    Pack,
    /// The workspace's own tools/, recipes/ or prelude/.
    Project,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Origin::BuiltIn => "built-in",
            Origin::Embedder => "embedder",
            Origin::Pack => "pack",
            Origin::Project => "project",
        })
    }
}

impl Origin {
    /// rein's own code, or the program's that embeds it: neither is a file an agent can write.
    pub fn is_reins_own(self) -> bool {
        matches!(self, Origin::BuiltIn | Origin::Embedder)
    }
}
