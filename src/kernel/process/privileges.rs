//! What a spawned program may not inherit from rein (Linux): capabilities. When rein runs as
//! root (CI, containers) every program it starts would otherwise hold all of them, and some
//! reach around Landlock: `CAP_SYS_ADMIN` allows `TIOCSTI` on any terminal, `CAP_SYS_PTRACE`
//! reads another process's memory and environment, `CAP_DAC_READ_SEARCH` opens files by handle,
//! `CAP_MKNOD` makes a device node for a disk. None is needed by the toolchain.
//!
//! So the child, just before `exec`, empties its bounding set (an exec'd root program can gain
//! back nothing: capabilities(7), "Transformation of capabilities during execve()"), its ambient
//! set and its effective, permitted and inheritable sets (`capset`). `no_new_privs` (set too)
//! keeps set-user-ID programs from raising them again. Our own code, because the work runs
//! between `fork` and `exec`: plain `prctl`/`capset` system calls on values read before the fork.

/// What the child must drop, decided in rein before the fork.
#[derive(Debug, Clone, Copy)]
pub struct CapabilityDrop {
    /// The highest capability number this kernel knows (`/proc/sys/kernel/cap_last_cap`).
    last_cap: u32,
    /// rein is root or holds a capability: everything must go, and failing to is an error.
    privileged: bool,
}

impl CapabilityDrop {
    /// What this process holds, read before the fork.
    pub fn probe() -> CapabilityDrop {
        let last_cap = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(63);
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let holds = |field: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(field))
                .is_none_or(|hex| u64::from_str_radix(hex.trim(), 16) != Ok(0))
        };
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        CapabilityDrop { last_cap, privileged: root || holds("CapPrm:") || holds("CapAmb:") }
    }

    /// In the child, after `fork`: sets `no_new_privs` and drops every capability.
    ///
    /// # Safety
    /// Only between `fork` and `exec`; makes system calls only.
    pub unsafe fn apply(self) -> std::io::Result<()> {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if !self.privileged {
            // Nothing held, and no_new_privs keeps it so across exec.
            return Ok(());
        }
        for cap in 0..=self.last_cap {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) < 0
                && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        if libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0) < 0
            && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
        {
            return Err(std::io::Error::last_os_error());
        }
        // struct __user_cap_header_struct { version, pid } and two all-zero data structs
        // (_LINUX_CAPABILITY_VERSION_3 covers 64 capabilities).
        const VERSION_3: u32 = 0x2008_0522;
        let header = [VERSION_3, 0u32];
        let data = [0u32; 6];
        if libc::syscall(libc::SYS_capset, header.as_ptr(), data.as_ptr()) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_holds_no_capability_after_the_drop() {
        let drop = CapabilityDrop::probe();
        let mut cmd = std::process::Command::new("grep");
        cmd.args(["^Cap", "/proc/self/status"]);
        // SAFETY: `apply` only makes system calls.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || drop.apply());
        }
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        for field in ["CapInh:", "CapPrm:", "CapEff:", "CapAmb:"] {
            let line = out.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("{field} in {out}"));
            assert!(line.ends_with("0000000000000000"), "{line}");
        }
        if drop.privileged {
            assert!(out.lines().any(|l| l == "CapBnd:\t0000000000000000"), "{out}");
        }
    }
}
