//! One program at a time while a secret is live. A program whose command line holds a secret
//! (hap-sign-tool with the passwords the kernel filled in, a call's secret argument) runs alone:
//! it waits until the programs already running end, and a program started meanwhile waits until
//! it ends. A build running beside a signing could otherwise look for the passwords while they
//! exist (its output is not scrubbed of them: that would be an oracle, `secrets::redact`).
//! Nothing a program starts outlives it (`platform::keeper`), so its turn ends with it.
//!
//! Per rein process: a second rein on the same workspace is not held back (docs/src/signing-passwords.md).

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static TURNS: RwLock<()> = RwLock::const_new(());

/// A program's turn to run; it ends when dropped.
#[derive(Debug)]
pub enum Turn {
    /// Beside other programs that hold no secret.
    Shared(#[allow(dead_code)] RwLockReadGuard<'static, ()>),
    /// Alone: its command line holds a secret.
    Alone(#[allow(dead_code)] RwLockWriteGuard<'static, ()>),
}

/// Waits for a program's turn: alone when `holds_secret`, else beside the others.
pub async fn take(holds_secret: bool) -> Turn {
    if holds_secret {
        Turn::Alone(TURNS.write().await)
    } else {
        Turn::Shared(TURNS.read().await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_program_holding_a_secret_runs_alone() {
        let shared = take(false).await;
        let also_shared = take(false).await;
        let alone = tokio::time::timeout(std::time::Duration::from_millis(50), take(true)).await;
        assert!(alone.is_err(), "a secret's program waits while others run");
        drop((shared, also_shared));
        let alone = take(true).await;
        let beside = tokio::time::timeout(std::time::Duration::from_millis(50), take(false)).await;
        assert!(beside.is_err(), "no program runs beside it");
        drop(alone);
        let _after = take(false).await;
    }
}
