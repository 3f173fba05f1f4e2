//! Which code served a step: every tool a step's attempt ran (nested ones too), with its layer
//! and file, heard from the call's `ToolStarted` events. A built-in recipe calls rein's own
//! tools unless a person's `[overrides]` says otherwise; a project recipe calls the project's
//! tools. Either way the report names whose code answered, so a step served by project code
//! (files an agent can write) never reads as rein's proof.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::kernel::{EventKind, Listener, Origin};

/// One tool a step ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedTool {
    /// As it was called (a pack tool serving another name by `[overrides]`: its own name).
    pub name: String,
    /// Whose code it is: `built-in`, `embedder`, `pack` or `project`.
    pub origin: Origin,
    /// The file that defines it: `tools/x.lua`, `<built-in>/tools/x.lua`, `kit/tools/x.lua`.
    pub file: String,
}

impl ServedTool {
    /// Code rein does not vouch for: the project's own (files an agent can write).
    pub fn is_project_code(&self) -> bool {
        self.origin == Origin::Project
    }
}

/// Collects the tools of one attempt, in the order they first ran, each once.
#[derive(Clone, Default)]
pub(crate) struct Served(Arc<Mutex<Vec<ServedTool>>>);

impl Served {
    /// The listener that records each tool as it starts.
    pub(crate) fn listener(&self) -> Listener {
        let served = self.0.clone();
        Arc::new(move |event| {
            if let EventKind::ToolStarted { tool, origin: Some(origin), file, .. } = &event.kind {
                let tool = ServedTool { name: tool.clone(), origin: *origin, file: file.clone().unwrap_or_default() };
                let mut served = served.lock().unwrap_or_else(|e| e.into_inner());
                if !served.contains(&tool) {
                    served.push(tool);
                }
            }
        })
    }

    /// What the attempt ran.
    pub(crate) fn take(&self) -> Vec<ServedTool> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
