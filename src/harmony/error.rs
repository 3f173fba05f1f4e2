//! What the HarmonyOS room refuses or fails with on its own: the kernel carries it as
//! `KernelError::Toolchain` and shows its stable code and details.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::signing::SecretsError;
use crate::error::Code;
use crate::kernel::error::ToolchainFailure;
use crate::kernel::KernelError;

#[derive(Debug, thiserror::Error)]
pub enum HarmonyError {
    #[error("no hdc server answers on 127.0.0.1:{port}, and rein never lets a program it runs start one (it would listen on the network and outlive the call). {fix}")]
    HdcServerNotRunning { port: u16, fix: String },

    /// Another run holds the device (see `lease`).
    #[error("device {device} is in use by another rein run{}; waited {} s for it. Wait until that run ends (or stop it), or let rein wait longer: [lease] wait_s in home config.toml", holder_text(holder), waited_ms / 1000)]
    DeviceBusy { device: String, holder: Option<Holder>, waited_ms: u64 },

    /// A signing request refused before anything started (see `signing`).
    #[error("{0}")]
    Signing(#[from] SecretsError),
}

/// Who holds a device (`lease`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    pub workspace: String,
    /// When the lease was taken (UTC, RFC 3339).
    pub since: String,
    pub device: String,
}

/// ` (pid P, workspace W, since T)` for a known holder.
fn holder_text(holder: &Option<Holder>) -> String {
    match holder {
        Some(h) => format!(" (pid {}, workspace {}, since {})", h.pid, h.workspace, h.since),
        None => String::new(),
    }
}

impl ToolchainFailure for HarmonyError {
    fn code(&self) -> Code {
        match self {
            HarmonyError::HdcServerNotRunning { .. } => Code::HdcServerNotRunning,
            HarmonyError::DeviceBusy { .. } => Code::DeviceBusy,
            HarmonyError::Signing(refused) => refused.code(),
        }
    }

    fn details(&self) -> Value {
        match self {
            HarmonyError::HdcServerNotRunning { port, fix } => json!({"port": port, "fix": fix}),
            HarmonyError::DeviceBusy { device, holder, waited_ms } => {
                json!({"device": device, "holder": holder, "waited_ms": waited_ms})
            }
            HarmonyError::Signing(refused) => refused.details(),
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl From<HarmonyError> for KernelError {
    fn from(err: HarmonyError) -> KernelError {
        KernelError::Toolchain(Box::new(err))
    }
}

impl From<SecretsError> for KernelError {
    fn from(err: SecretsError) -> KernelError {
        HarmonyError::Signing(err).into()
    }
}
