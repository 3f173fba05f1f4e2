//! The threads rein runs Lua on: which one this is, and lowering one nobody waits for any
//! more. A Lua state stuck in a library or native function cannot be stopped from outside;
//! rein gives it up and serves from a fresh one, and the thread it leaves spinning should cost
//! the rest of the session as little as it can (until it returns and ends by itself).

/// The OS's id of the calling thread (0 where rein does not use it).
pub fn current_id() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid(2) has no arguments and cannot fail.
        (unsafe { libc::gettid() }) as u64
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Gives thread `id` (from [`current_id`]) the lowest CPU priority. Linux sets a nice value per
/// thread; elsewhere the thread keeps its priority.
pub fn lower_priority(id: u64) {
    #[cfg(target_os = "linux")]
    if id != 0 {
        // SAFETY: setpriority(2) on a thread id of this process; it only changes the
        // scheduling of that thread, and a failure changes nothing.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, id as libc::id_t, 19);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = id;
}
