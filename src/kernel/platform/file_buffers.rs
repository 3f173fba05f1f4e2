//! Buffers that hold a whole file. rein's allocator, mimalloc, is built without transparent
//! huge pages (`no_thp` in Cargo.toml): with them every short `rein call` had the kernel zero
//! 2 MiB pages for the few KiB it used (about 2 ms of a 6 ms process, docs/src/performance.md).
//! A file of many MiB is where huge pages pay — read into 4 KiB pages, a 64 MiB edit takes
//! 16 384 page faults — so a buffer that big, and only such a buffer, asks Linux for them.

/// The size of an x86-64 and arm64 transparent huge page (Linux's HPAGE_PMD_SIZE with 4 KiB
/// base pages).
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// Smaller buffers keep small pages: a huge page would be mostly zeroing for nothing.
#[cfg(target_os = "linux")]
const ASK_FROM: usize = 4 * HUGE_PAGE;

/// An empty buffer with room for `len` bytes.
pub fn for_file(len: usize) -> Vec<u8> {
    let buffer = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    if len >= ASK_FROM {
        advise_huge_pages(&buffer);
    }
    buffer
}

/// Reads from `file` into `room`, which may be uninitialized; how many bytes it read (0: the
/// end). Interrupted reads are retried.
pub fn read_into(file: &std::fs::File, room: &mut [std::mem::MaybeUninit<u8>]) -> std::io::Result<usize> {
    #[cfg(unix)]
    loop {
        match rustix::io::read(file, &mut *room) {
            Ok((read, _)) => return Ok(read.len()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    #[cfg(not(unix))]
    {
        use std::io::Read;
        room.fill(std::mem::MaybeUninit::new(0));
        // SAFETY: every byte of `room` was just initialized.
        let room = unsafe { &mut *(room as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
        loop {
            match (&*file).read(room) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
}

/// Whether `file` has no more bytes to read.
pub fn at_end(file: &std::fs::File) -> std::io::Result<bool> {
    let mut one = [std::mem::MaybeUninit::uninit()];
    Ok(read_into(file, &mut one)? == 0)
}

/// Asks for huge pages on the whole 2 MiB blocks inside the buffer's allocation.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buffer: &Vec<u8>) {
    let start = buffer.as_ptr() as usize;
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = (start + buffer.capacity()) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: the range lies inside the buffer's own allocation, which nothing else uses;
        // MADV_HUGEPAGE changes how the kernel backs those pages, never what they hold. Its
        // result is not an error to report: a kernel without transparent huge pages refuses,
        // and the buffer works the same in small pages.
        let _ = unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use super::*;

    /// Whether the kernel marked the mapping holding `address` for huge pages (`hg` in the
    /// VmFlags of /proc/self/smaps, proc(5)).
    fn advised(address: usize) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-') && !r.ends_with(':')) {
                let (from, to) = range.split_once('-').expect("a mapping's range");
                let (from, to) = (usize::from_str_radix(from, 16).unwrap(), usize::from_str_radix(to, 16).unwrap());
                inside = (from..to).contains(&address);
            } else if inside && line.starts_with("VmFlags:") {
                return line.split_whitespace().any(|flag| flag == "hg");
            }
        }
        false
    }

    #[test]
    fn a_buffer_for_a_big_file_asks_for_huge_pages_and_a_small_one_does_not() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            println!("SKIPPED: this kernel has no transparent huge pages");
            return;
        }
        let big = for_file(64 << 20);
        assert!(advised(big.as_ptr() as usize + (32 << 20)), "the middle of a 64 MiB buffer is advised");
        let small = for_file(64 << 10);
        assert!(small.capacity() >= 64 << 10);
        assert!(!advised(small.as_ptr() as usize), "a 64 KiB buffer keeps small pages");
    }
}
