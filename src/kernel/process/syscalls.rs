//! The system calls a spawned program may not make (Linux, x86-64 and AArch64): a seccomp
//! filter (seccomp(2), `SECCOMP_SET_MODE_FILTER`) that refuses
//!
//! - `socket(AF_UNIX, …)` with `EACCES`: Landlock before ABI 9 cannot stop `connect()` to a
//!   pathname unix socket anywhere on the machine (the session bus `/run/user/<uid>/bus`, whose
//!   systemd runs any command asked of it, `/var/run/docker.sock`, an ssh agent), and no path
//!   grant is needed to reach one. Without a socket of its own a program reaches none of them.
//!   `socketpair()` stays allowed: it makes an already-connected pair (node and libuv use it for
//!   their children's pipes) that can reach nothing else.
//! - `io_uring_setup` with `ENOSYS`: io_uring can open sockets without the `socket` system call
//!   (`IORING_OP_SOCKET`), which the filter would not see; programs fall back to plain calls.
//! - every system call of another ABI (32-bit x86 `int 0x80`, x32, 32-bit ARM) kills the
//!   program: their `socketcall` would otherwise reach `socket` around the filter.
//!
//! Our own code: twelve BPF instructions, installed between `fork` and `exec` (one `prctl`),
//! where nothing may allocate. Numbers from linux/seccomp.h, linux/filter.h, linux/audit.h and
//! the architecture's syscall table (the `libc` crate's `SYS_*`).

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod filter {
    /// `struct sock_filter`.
    #[repr(C)]
    #[derive(Debug, Clone, Copy)]
    pub struct Instruction {
        code: u16,
        jt: u8,
        jf: u8,
        k: u32,
    }

    const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JUMP_EQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JUMP_GE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    const ALLOW: u32 = 0x7fff_0000; // SECCOMP_RET_ALLOW
    const ERRNO: u32 = 0x0005_0000; // SECCOMP_RET_ERRNO | errno
    const KILL: u32 = 0x8000_0000; // SECCOMP_RET_KILL_PROCESS
    /// `struct seccomp_data`: nr at 0, arch at 4, args[0] at 16 (its low half on little-endian).
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    const FIRST_ARG: u32 = 16;
    /// x32 system calls carry this bit (`__X32_SYSCALL_BIT`); AArch64 numbers never reach it.
    const FOREIGN_NR: u32 = 0x4000_0000;
    #[cfg(target_arch = "x86_64")]
    const NATIVE: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
    #[cfg(target_arch = "aarch64")]
    const NATIVE: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64

    const fn op(code: u16, jt: u8, jf: u8, k: u32) -> Instruction {
        Instruction { code, jt, jf, k }
    }

    /// The program; jumps count instructions after the next one.
    pub const PROGRAM: [Instruction; 12] = [
        op(LOAD_WORD, 0, 0, ARCH),                          // 0
        op(JUMP_EQ, 0, 9, NATIVE),                          // 1: foreign ABI → 11
        op(LOAD_WORD, 0, 0, NR),                            // 2
        op(JUMP_GE, 6, 0, FOREIGN_NR),                      // 3: x32 → 10
        op(JUMP_EQ, 5, 0, libc::SYS_io_uring_setup as u32), // 4: → 10
        op(JUMP_EQ, 0, 2, libc::SYS_socket as u32),         // 5: other calls → 8
        op(LOAD_WORD, 0, 0, FIRST_ARG),                     // 6: the domain
        op(JUMP_EQ, 1, 0, libc::AF_UNIX as u32),            // 7: AF_UNIX → 9
        op(RETURN, 0, 0, ALLOW),                            // 8
        op(RETURN, 0, 0, ERRNO | libc::EACCES as u32),      // 9
        op(RETURN, 0, 0, ERRNO | libc::ENOSYS as u32),      // 10
        op(RETURN, 0, 0, KILL),                             // 11
    ];
}

/// Installs the filter in the calling process (the child, after `no_new_privs`).
///
/// # Safety
/// Only between `fork` and `exec`; `no_new_privs` must be set.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub unsafe fn install() -> std::io::Result<()> {
    #[repr(C)]
    struct Program {
        len: libc::c_ushort,
        filter: *const filter::Instruction,
    }
    let program = Program { len: filter::PROGRAM.len() as libc::c_ushort, filter: filter::PROGRAM.as_ptr() };
    if libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &program as *const Program, 0, 0) < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Whether this build can filter system calls (it names what `rein doctor` reports).
pub const AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// Other architectures: no filter (README "Confinement" says unix sockets stay reachable).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub unsafe fn install() -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;

    /// Runs python in a child that installed the filter; what it printed.
    fn filtered(code: &str) -> String {
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-c", code]);
        // SAFETY: prctl and the filter's installation are system calls only.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                super::install()
            });
        }
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    #[test]
    fn unix_sockets_are_refused_and_everything_else_works() {
        let out = filtered(
            "import socket\n\
             for family, kind in [(socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_UNIX, socket.SOCK_DGRAM), (socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET6, socket.SOCK_DGRAM)]:\n\
             \ttry:\n\t\tsocket.socket(family, kind); print(family.name, kind.name, 'ok')\n\
             \texcept OSError as e: print(family.name, kind.name, 'refused', e.errno)\n\
             a, b = socket.socketpair(); a.send(b'x'); print('pair', b.recv(1))\n",
        );
        assert!(out.contains("AF_UNIX SOCK_STREAM refused 13"), "{out}");
        assert!(out.contains("AF_UNIX SOCK_DGRAM refused 13"), "{out}");
        assert!(out.contains("AF_INET SOCK_STREAM ok") && out.contains("AF_INET6 SOCK_DGRAM ok"), "{out}");
        assert!(out.contains("pair b'x'"), "{out}");
    }
}
