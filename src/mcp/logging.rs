//! What rein tells the client outside of call results, as MCP log messages (`logging` is a
//! capability rein declares, so `logging/setLevel` filters them): a reload that kept files
//! back, a reload that went in (both from the host's reload events), and problems found at
//! start. A rejected file is told once per
//! change, never per tick. (MCP logging is deprecated upstream, but it is still how clients
//! show a server's messages.)
#![allow(deprecated)]

use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use serde_json::{json, Value};

use crate::kernel::EventKind;
use crate::visible;

/// The least severe level the client wants (by default: info and above).
pub struct ClientLog {
    min: AtomicU8,
}

impl Default for ClientLog {
    fn default() -> ClientLog {
        ClientLog { min: AtomicU8::new(rank(LoggingLevel::Info)) }
    }
}

impl ClientLog {
    pub fn set_level(&self, level: LoggingLevel) {
        self.min.store(rank(level), Ordering::Relaxed);
    }

    pub fn wants(&self, level: LoggingLevel) -> bool {
        rank(level) >= self.min.load(Ordering::Relaxed)
    }

    /// Sends `data` at `level` unless the client asked for less.
    pub async fn send(&self, peer: &rmcp::Peer<rmcp::RoleServer>, level: LoggingLevel, logger: &str, data: Value) {
        if !self.wants(level) {
            return;
        }
        let param = LoggingMessageNotificationParam::new(level, data).with_logger(logger.to_string());
        if let Err(e) = peer.notify_logging_message(param).await {
            tracing::debug!("log message not sent: {e}");
        }
    }
}

/// Severity order of the syslog levels MCP uses (RFC 5424), least severe first.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The one log message a reload event is worth, if any: an error naming each file kept back
/// (with file:line and what serves instead), or an info line naming what went in.
pub fn reload_message(kind: &EventKind) -> Option<(LoggingLevel, Value)> {
    match kind {
        EventKind::ReloadAccepted { generation, loaded, kept, problems, .. } if !kept.is_empty() => {
            let files: Vec<&str> = kept.iter().map(|k| k.file.as_str()).collect();
            let message = format!("reloaded, but kept back {}: {}", files.join(", "), problems.join("; "));
            let message = visible::line(&message);
            let data = json!({"message": message, "generation": generation, "loaded": loaded, "kept": kept, "problems": problems});
            Some((LoggingLevel::Error, data))
        }
        EventKind::ReloadAccepted { generation, loaded, added, removed, updated, .. } => {
            let mut said = Vec::new();
            if !loaded.is_empty() {
                said.push(format!("reloaded {}", loaded.join(", ")));
            }
            if !removed.is_empty() {
                said.push(format!("no longer serving {}", removed.join(", ")));
            }
            let data = json!({
                "message": visible::line(&said.join("; ")),
                "generation": generation,
                "loaded": loaded,
                "added": added,
                "removed": removed,
                "updated": updated,
            });
            Some((LoggingLevel::Info, data))
        }
        EventKind::ReloadRejected { generation, kept, problems } => {
            let message = format!("reload rejected, the old version keeps serving: {}", problems.join("; "));
            let message = visible::line(&message);
            let data =
                json!({"message": message, "generation": generation, "loaded": [], "kept": kept, "problems": problems});
            Some((LoggingLevel::Error, data))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_filter_by_severity() {
        let log = ClientLog::default();
        assert!(log.wants(LoggingLevel::Info) && !log.wants(LoggingLevel::Debug));
        log.set_level(LoggingLevel::Error);
        assert!(
            !log.wants(LoggingLevel::Warning) && log.wants(LoggingLevel::Error) && log.wants(LoggingLevel::Emergency)
        );
        log.set_level(LoggingLevel::Debug);
        assert!(log.wants(LoggingLevel::Debug));
    }
}
