//! The system calls a spawned program may make (Linux, x86-64 and AArch64): a seccomp filter
//! (seccomp(2), `SECCOMP_SET_MODE_FILTER`) that refuses
//!
//! - every `socket()` but the kinds on the program's list (`sockets::SocketKind`, per program
//!   in `harmony::confinement`: TCP for all, UDP for the programs that look names up), with
//!   `EACCES`. Landlock judges TCP only (`IPPROTO_TCP`): an MPTCP socket (`IPPROTO_MPTCP`,
//!   262) connects to any port and listens on any; SCTP, raw, packet, vsock, netlink, bluetooth, crypto sockets and UDP
//!   reach what no rule of Landlock names. Landlock before ABI 9 cannot stop `connect()` to a
//!   pathname unix socket (the session bus, whose systemd runs any command asked of it, the
//!   docker socket, an ssh agent): `AF_UNIX` is on no list. The type's `SOCK_NONBLOCK` and
//!   `SOCK_CLOEXEC` are masked before the comparison (the kernel takes them off too, and
//!   refuses any other flag); the protocol is compared whole (262 is not 6). The kernel reads
//!   the three arguments as `int`, so only their low halves are compared. `socketpair()` stays
//!   allowed for `AF_UNIX`: it makes an already-connected pair (node and libuv use it for their
//!   children's pipes) that can reach nothing else. Any other family's `socketpair` gets
//!   `EACCES`: the kernel makes (and may load the module of) a socket of that family before it
//!   finds the family has no pairs, and TIPC's pair is a socket that can still send elsewhere.
//! - System V IPC and POSIX message queues (`shm*`, `msg*`, `sem*`, `mq_*`; neither
//!   architecture has `ipc()`), with `EPERM`: the person's shared-memory segments (X11 MIT-SHM
//!   buffers), queues and semaphores are reached by number, not by a path Landlock sees. Where
//!   rein may (as root), the program also gets an IPC namespace of its own
//!   ([`own_ipc_namespace`]), which dies with its last process: nothing made in it outlives the
//!   spawn.
//! - the kernel keyrings (`keyctl`, `add_key`, `request_key`), with `EPERM`: the user, session
//!   and persistent keyrings hold the person's credentials (Kerberos tickets on Fedora/RHEL).
//! - user namespaces, with `EPERM` (`unshare` or `clone` with `CLONE_NEWUSER`; the kernel reads
//!   the low half of their flags, which is what the filter reads): a user namespace opens a
//!   large part of the kernel to an unprivileged program. `clone3` passes its flags in memory
//!   the filter cannot read, so it is refused whole with `ENOSYS`, on which glibc, libuv and the
//!   JVM fall back to `clone`. `setns` (joining a namespace) is refused with `EPERM`.
//! - `io_uring_setup` (and `_enter`, `_register`) with `ENOSYS`: io_uring can open sockets
//!   without the `socket` system call (`IORING_OP_SOCKET`); programs fall back to plain calls.
//! - `bpf` and `userfaultfd` with `EPERM`, `perf_event_open` with `EACCES` (what each returns
//!   when its sysctl refuses an unprivileged caller): no build needs them, and they are the
//!   kernel's most used doors for privilege escalation (verifier bugs, races held open by a
//!   user fault, counters that read other processes) — the filter does not depend on the
//!   machine's `unprivileged_bpf_disabled`, `perf_event_paranoid` or
//!   `unprivileged_userfaultfd`.
//! - every system call of another ABI (32-bit x86 `int 0x80`, 32-bit ARM) kills the program:
//!   their `socketcall` and `ipc` would reach the same doors around the filter; x32 calls
//!   (`__X32_SYSCALL_BIT`) get `ENOSYS`.
//!
//! Why our own code rather than a crate such as `seccompiler`: the filter is installed between
//! `fork` and `exec`, where nothing may allocate, so it is built in rein before the fork and
//! the child makes one `prctl`; the program is a few dozen instructions read top to bottom
//! ([`Assembler`] resolves the jumps), and it must handle what a general crate leaves to its
//! user: the x32 bit, a foreign architecture, the type flags. Numbers from linux/seccomp.h,
//! linux/filter.h, linux/audit.h, linux/sched.h and the architecture's syscall table (the
//! `libc` crate's `SYS_*`).

use super::sockets::SocketKind;

/// `struct sock_filter`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction {
    pub(crate) code: u16,
    pub(crate) jt: u8,
    pub(crate) jf: u8,
    pub(crate) k: u32,
}

/// A filter built for one program (before the fork), installed by [`install`].
#[derive(Debug, Clone)]
pub struct Filter {
    program: Vec<Instruction>,
}

impl Filter {
    /// The BPF program, for tests that read what it checks first.
    #[cfg(test)]
    pub(crate) fn instructions(&self) -> &[Instruction] {
        &self.program
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod rules {
    use libc::c_long;

    #[cfg(target_arch = "x86_64")]
    pub const NATIVE: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
    #[cfg(target_arch = "aarch64")]
    pub const NATIVE: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64
    /// x32 system calls carry this bit (`__X32_SYSCALL_BIT`); AArch64 numbers never reach it.
    pub const FOREIGN_NR: u32 = 0x4000_0000;
    /// linux/sched.h.
    pub const CLONE_NEWUSER: u32 = 0x1000_0000;
    /// `SOCK_NONBLOCK | SOCK_CLOEXEC` (linux/net.h), which `socket()` takes off the type.
    pub const SOCKET_TYPE_FLAGS: u32 = 0o4000 | 0o2000000;

    /// Refused whatever their arguments, with the errno the program sees.
    pub const REFUSED: [(c_long, i32); 28] = [
        (libc::SYS_io_uring_setup, libc::ENOSYS),
        (libc::SYS_io_uring_enter, libc::ENOSYS),
        (libc::SYS_io_uring_register, libc::ENOSYS),
        (libc::SYS_clone3, libc::ENOSYS),
        (libc::SYS_setns, libc::EPERM),
        (libc::SYS_keyctl, libc::EPERM),
        (libc::SYS_add_key, libc::EPERM),
        (libc::SYS_request_key, libc::EPERM),
        (libc::SYS_shmget, libc::EPERM),
        (libc::SYS_shmat, libc::EPERM),
        (libc::SYS_shmdt, libc::EPERM),
        (libc::SYS_shmctl, libc::EPERM),
        (libc::SYS_msgget, libc::EPERM),
        (libc::SYS_msgsnd, libc::EPERM),
        (libc::SYS_msgrcv, libc::EPERM),
        (libc::SYS_msgctl, libc::EPERM),
        (libc::SYS_semget, libc::EPERM),
        (libc::SYS_semop, libc::EPERM),
        (libc::SYS_semtimedop, libc::EPERM),
        (libc::SYS_semctl, libc::EPERM),
        (libc::SYS_mq_open, libc::EPERM),
        (libc::SYS_mq_unlink, libc::EPERM),
        (libc::SYS_mq_timedsend, libc::EPERM),
        (libc::SYS_mq_timedreceive, libc::EPERM),
        (libc::SYS_mq_notify, libc::EPERM),
        (libc::SYS_bpf, libc::EPERM),
        (libc::SYS_userfaultfd, libc::EPERM),
        (libc::SYS_perf_event_open, libc::EACCES),
    ];
    /// Refused when their first argument (the flags) holds `CLONE_NEWUSER`.
    pub const NEW_USER_NAMESPACE: [c_long; 2] = [libc::SYS_unshare, libc::SYS_clone];
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod bpf {
    use super::Instruction;

    pub const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    pub const AND: u16 = 0x54; // BPF_ALU | BPF_AND | BPF_K
    pub const JUMP_EQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    pub const JUMP_GE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    pub const JUMP_SET: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
    pub const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    pub const ALLOW: u32 = 0x7fff_0000; // SECCOMP_RET_ALLOW
    pub const ERRNO: u32 = 0x0005_0000; // SECCOMP_RET_ERRNO | errno
    pub const KILL: u32 = 0x8000_0000; // SECCOMP_RET_KILL_PROCESS
    /// `struct seccomp_data`: nr at 0, arch at 4, args[i] at 16 + 8i (its low half on these
    /// little-endian machines).
    pub const NR: u32 = 0;
    pub const ARCH: u32 = 4;
    pub const fn arg(i: u32) -> u32 {
        16 + 8 * i
    }

    /// Where a jump goes: the next instruction, a shared return, or a label.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum To {
        Next,
        Return(u32),
        Label(usize),
    }

    enum Step {
        Plain(u16, u32),
        Jump { code: u16, k: u32, then: To, otherwise: To },
        Return(u32),
        Label(usize),
    }

    /// A straight-line program with forward jumps to labels and to returns gathered at its end.
    #[derive(Default)]
    pub struct Assembler {
        steps: Vec<Step>,
        labels: usize,
    }

    impl Assembler {
        pub fn label(&mut self) -> usize {
            self.labels += 1;
            self.labels - 1
        }
        pub fn place(&mut self, label: usize) {
            self.steps.push(Step::Label(label));
        }
        pub fn load(&mut self, offset: u32) {
            self.steps.push(Step::Plain(LOAD_WORD, offset));
        }
        pub fn and(&mut self, mask: u32) {
            self.steps.push(Step::Plain(AND, mask));
        }
        pub fn jump(&mut self, code: u16, k: u32, then: To, otherwise: To) {
            self.steps.push(Step::Jump { code, k, then, otherwise });
        }
        pub fn ret(&mut self, action: u32) {
            self.steps.push(Step::Return(action));
        }

        /// The instructions. Panics if a jump is longer than BPF's 255 (a filter this module
        /// builds never is: its unit test builds the longest).
        pub fn finish(self) -> Vec<Instruction> {
            let mut at = vec![usize::MAX; self.labels];
            let mut returns: Vec<u32> = Vec::new();
            let mut count = 0;
            for step in &self.steps {
                match step {
                    Step::Label(label) => at[*label] = count,
                    Step::Jump { then, otherwise, .. } => {
                        count += 1;
                        for to in [then, otherwise] {
                            if let To::Return(action) = to {
                                if !returns.contains(action) {
                                    returns.push(*action);
                                }
                            }
                        }
                    }
                    _ => count += 1,
                }
            }
            let mut program = Vec::with_capacity(count + returns.len());
            for step in &self.steps {
                let here = program.len();
                let target = |to: &To| -> u8 {
                    let index = match to {
                        To::Next => here + 1,
                        To::Return(action) => count + returns.iter().position(|r| r == action).expect("gathered"),
                        To::Label(label) => at[*label],
                    };
                    u8::try_from(index - here - 1).expect("a jump of the filter fits in 255 instructions")
                };
                match step {
                    Step::Label(_) => {}
                    Step::Plain(code, k) => program.push(Instruction { code: *code, jt: 0, jf: 0, k: *k }),
                    Step::Jump { code, k, then, otherwise } => {
                        let (jt, jf) = (target(then), target(otherwise));
                        program.push(Instruction { code: *code, jt, jf, k: *k });
                    }
                    Step::Return(action) => program.push(Instruction { code: RETURN, jt: 0, jf: 0, k: *action }),
                }
            }
            program.extend(returns.iter().map(|k| Instruction { code: RETURN, jt: 0, jf: 0, k: *k }));
            program
        }
    }
}

/// The filter of a program that may open the `sockets` kinds (built in rein, before the fork).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn filter(sockets: &[SocketKind]) -> Filter {
    use bpf::{arg, To, ALLOW, ARCH, ERRNO, JUMP_EQ, JUMP_GE, JUMP_SET, KILL, NR};
    let refuse = |errno: i32| To::Return(ERRNO | errno as u32);
    let mut asm = bpf::Assembler::default();
    asm.load(ARCH);
    asm.jump(JUMP_EQ, rules::NATIVE, To::Next, To::Return(KILL));
    asm.load(NR);
    asm.jump(JUMP_GE, rules::FOREIGN_NR, refuse(libc::ENOSYS), To::Next);
    for (nr, errno) in rules::REFUSED {
        asm.jump(JUMP_EQ, nr as u32, refuse(errno), To::Next);
    }
    let (namespaces, pair, socket) = (asm.label(), asm.label(), asm.label());
    for nr in rules::NEW_USER_NAMESPACE {
        asm.jump(JUMP_EQ, nr as u32, To::Label(namespaces), To::Next);
    }
    asm.jump(JUMP_EQ, libc::SYS_socketpair as u32, To::Label(pair), To::Next);
    asm.jump(JUMP_EQ, libc::SYS_socket as u32, To::Label(socket), To::Return(ALLOW));
    asm.place(namespaces);
    asm.load(arg(0));
    asm.jump(JUMP_SET, rules::CLONE_NEWUSER, refuse(libc::EPERM), To::Return(ALLOW));
    asm.place(pair);
    asm.load(arg(0));
    asm.jump(JUMP_EQ, libc::AF_UNIX as u32, To::Return(ALLOW), refuse(libc::EACCES));
    asm.place(socket);
    for kind in sockets {
        let other = asm.label();
        asm.load(arg(0));
        asm.jump(JUMP_EQ, kind.domain, To::Next, To::Label(other));
        asm.load(arg(1));
        asm.and(!rules::SOCKET_TYPE_FLAGS);
        asm.jump(JUMP_EQ, kind.kind, To::Next, To::Label(other));
        asm.load(arg(2));
        asm.jump(JUMP_EQ, kind.protocol, To::Return(ALLOW), To::Label(other));
        asm.place(other);
    }
    asm.ret(ERRNO | libc::EACCES as u32);
    Filter { program: asm.finish() }
}

/// Other architectures: no filter (docs/src/confinement.md says what stays reachable).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn filter(_sockets: &[SocketKind]) -> Filter {
    Filter { program: Vec::new() }
}

/// Installs `filter` in the calling process (the child, after `no_new_privs`).
///
/// # Safety
/// Only between `fork` and `exec`; `no_new_privs` must be set.
pub unsafe fn install(filter: &Filter) -> std::io::Result<()> {
    #[repr(C)]
    struct Program {
        len: libc::c_ushort,
        filter: *const Instruction,
    }
    if filter.program.is_empty() {
        return Ok(());
    }
    let program = Program { len: filter.program.len() as libc::c_ushort, filter: filter.program.as_ptr() };
    if libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &program as *const Program, 0, 0) < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Moves the calling process into a new IPC namespace where it may (root, or `CAP_SYS_ADMIN`):
/// no System V object or POSIX message queue of the person is in it, and it dies with the
/// spawn's last process. Elsewhere the filter's refusal of every IPC call is the whole answer,
/// so a refusal here (`EPERM` without the capability) is not an error.
///
/// # Safety
/// Only between `fork` and `exec`, before the capabilities are dropped; one system call.
pub unsafe fn own_ipc_namespace() {
    libc::unshare(libc::CLONE_NEWIPC);
}

/// Whether this build can filter system calls (it names what `rein doctor` reports).
pub const AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));
