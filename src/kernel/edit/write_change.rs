//! Writes an edit's new content into the new file. The bytes before the first change and
//! after the last one, where they are big, are copied from the old file inside the kernel
//! (`copy_file_range`): writing 64 MiB from rein's buffer cost ~120 ms of CPU on this machine's
//! ext4, the kernel's copy ~20 (docs/src/performance-growth.md). The copy holds the file's
//! bytes at the time of the copy, not the ones read, searched and hashed, so it is kept only if
//! the old file was held unchanged (`platform::held_read`: a read lease, taken before the read)
//! until the copy ended; otherwise all of the content is written again from the bytes read.
//! The disk write of each step of a big piece starts as soon as it is in the new file.

use std::fs::File;
use std::io::{Seek, Write};

use super::change::Change;
use crate::kernel::platform::held_read::{copy_range, HeldRead};
use crate::kernel::platform::writeback;

/// Pieces smaller than this are written from the buffer: a copy inside the kernel pays for
/// itself only on many pages, and a small file then needs no hold at all.
pub const COPY_FROM: usize = 1 << 20;

/// Big pieces are put into the new file this much at a time, each step's disk write started
/// once it is there (`platform::writeback`): the disk writes one step while the next is copied,
/// and the fsync waits only for the last.
const WRITEBACK_STEP: usize = 8 << 20;

/// Writes what `change` makes of `old` (the bytes read from `source`'s file) to `out`. The
/// caller lets go of `source`'s hold once nothing reads the file any more. `old_is_mapped`:
/// `old` is the file itself, mapped, not bytes of rein's own.
pub fn write_change(
    out: &mut File,
    old: &[u8],
    change: &Change,
    source: &HeldRead,
    old_is_mapped: bool,
) -> Result<(), WriteRefused> {
    if write_pieces(out, old, change, source)? {
        keep_if_unchanged(out, old, change, source, old_is_mapped)?;
    }
    Ok(())
}

/// Why the new content was not written.
#[derive(Debug)]
pub enum WriteRefused {
    /// A program asked to write the old file while it was copied from its mapping: once the
    /// kernel's lease-break-time passes it goes on, and the mapping then holds its bytes (or,
    /// truncated, faults), so nothing is written from it.
    WrittenMeanwhile,
    Io(std::io::Error),
}

impl From<std::io::Error> for WriteRefused {
    fn from(e: std::io::Error) -> WriteRefused {
        WriteRefused::Io(e)
    }
}

/// Writes the prefix, the changed middle and the suffix; whether any of them was copied.
fn write_pieces(out: &mut File, old: &[u8], change: &Change, source: &HeldRead) -> std::io::Result<bool> {
    let suffix_at = old.len() - change.suffix;
    let prefix_copied = put(out, source, &old[..change.prefix], 0)?;
    write_steps(out, &change.middle)?;
    let suffix_copied = put(out, source, &old[suffix_at..], suffix_at as u64)?;
    Ok(prefix_copied || suffix_copied)
}

/// Keeps what was copied only if the hold shows the old file unchanged until now; otherwise
/// (someone asked to write it, and waits) writes all of it again from the bytes read.
fn keep_if_unchanged(
    out: &mut File,
    old: &[u8],
    change: &Change,
    source: &HeldRead,
    old_is_mapped: bool,
) -> Result<(), WriteRefused> {
    if source.unchanged() {
        return Ok(());
    }
    if old_is_mapped {
        return Err(WriteRefused::WrittenMeanwhile);
    }
    out.set_len(0)?;
    out.rewind()?;
    let suffix_at = old.len() - change.suffix;
    for piece in [&old[..change.prefix], &change.middle, &old[suffix_at..]] {
        out.write_all(piece)?;
    }
    Ok(())
}

/// Appends `bytes`, which lie at `at` in `source`'s file as read: copied from the file where
/// they are big and the file is still held unchanged, else written. Whether they were copied.
fn put(out: &mut File, source: &HeldRead, bytes: &[u8], at: u64) -> std::io::Result<bool> {
    if bytes.len() < COPY_FROM {
        out.write_all(bytes)?;
        return Ok(false);
    }
    let mut copying = source.unchanged();
    let mut copied = false;
    let mut out_at = out.stream_position()?;
    for (step, from) in bytes.chunks(WRITEBACK_STEP).zip((at..).step_by(WRITEBACK_STEP)) {
        if copying {
            match copy_range(source.file(), from, step.len() as u64, out) {
                Ok(_) => copied = true,
                // Nothing of this step copied: it and the rest are written from the bytes read.
                Err(e) if e.kind() == std::io::ErrorKind::Unsupported => copying = false,
                Err(e) => return Err(e),
            }
        }
        if !copying {
            out.write_all(step)?;
        }
        writeback::start(out, out_at, step.len() as u64);
        out_at += step.len() as u64;
    }
    Ok(copied)
}

/// Appends `bytes`, starting their disk write a step at a time where they are big (a
/// `replace_all` across the whole file makes its changed middle that big).
fn write_steps(out: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    if bytes.len() < COPY_FROM {
        return out.write_all(bytes);
    }
    let mut out_at = out.stream_position()?;
    for step in bytes.chunks(WRITEBACK_STEP) {
        out.write_all(step)?;
        writeback::start(out, out_at, step.len() as u64);
        out_at += step.len() as u64;
    }
    Ok(())
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use super::*;
    use crate::kernel::digest::sha256_hex;
    use crate::kernel::edit::replace::{apply_edits, Edit};
    use std::io::Read;
    use std::os::unix::fs::FileExt;
    use std::time::{Duration, Instant};

    const OLD_LEN: usize = 3 * COPY_FROM;

    /// A file of 3 MiB of lines whose next-to-last line is `MARK`, and the change an edit of
    /// `MARK` to `mark` makes of it: 3 MiB of prefix, 1 MiB and more of suffix.
    fn setup() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let line = b"the quick brown fox jumps over the lazy dog\n";
        let mut old: Vec<u8> = line.iter().copied().cycle().take(OLD_LEN - COPY_FROM - 11).collect();
        old.extend_from_slice(b"MARK\n");
        old.extend(line.iter().copied().cycle().take(COPY_FROM + 6));
        let path = dir.path().join("big.txt");
        std::fs::write(&path, &old).unwrap();
        (dir, path, old)
    }

    fn edit_of(old: &[u8]) -> (Change, Vec<u8>) {
        let edit = Edit { old_string: "MARK".into(), new_string: "mark".into(), replace_all: false };
        let applied = apply_edits("big.txt", old, &[edit]).unwrap();
        (Change::of(old, &applied.result), applied.result.to_vec())
    }

    /// Reads `path` as an edit does: held first, then read.
    fn read_held(path: &std::path::Path) -> (HeldRead, Vec<u8>) {
        let held = HeldRead::lease(File::open(path).unwrap());
        let mut bytes = Vec::new();
        held.file().read_to_end(&mut bytes).unwrap();
        (held, bytes)
    }

    fn written(out: &mut File) -> Vec<u8> {
        let mut bytes = Vec::new();
        out.rewind().unwrap();
        out.read_to_end(&mut bytes).unwrap();
        bytes
    }

    /// Waits (bounded) until a program's open for writing has broken `held`.
    fn broken(held: &HeldRead) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while held.unchanged() {
            assert!(Instant::now() < deadline, "the writer's open never broke the hold");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A thread opening `path` for writing (it waits while the file is held).
    fn opens_for_writing(path: &std::path::Path) -> std::thread::JoinHandle<()> {
        let path = path.to_path_buf();
        std::thread::spawn(move || drop(File::options().write(true).open(&path).unwrap()))
    }

    fn temp_out(dir: &tempfile::TempDir) -> File {
        File::options().read(true).write(true).create_new(true).open(dir.path().join("new")).unwrap()
    }

    #[test]
    fn a_held_file_s_unchanged_bytes_are_copied_and_the_result_is_the_edit() {
        let (dir, path, _) = setup();
        let (held, old) = read_held(&path);
        assert!(held.unchanged(), "this test runs as the file's owner, who may lease it");
        let (change, expected) = edit_of(&old);
        let mut out = temp_out(&dir);
        write_change(&mut out, &old, &change, &held, false).unwrap();
        assert_eq!(sha256_hex(&written(&mut out)), sha256_hex(&expected));
    }

    /// The race: a program that had the file open for writing before the edit read it changes
    /// the prefix between the read and the copy. The file got no hold, so nothing is copied:
    /// the new file is the edit of the bytes read, whose hash the edit reports.
    #[test]
    fn a_writer_that_held_the_file_open_changes_the_prefix_after_the_read_and_the_edit_is_of_the_bytes_read() {
        let (dir, path, _) = setup();
        let writer = File::options().write(true).open(&path).unwrap();
        let (held, old) = read_held(&path);
        assert!(!held.unchanged());
        writer.write_all_at(b"CHANGED BY ANOTHER PROGRAM", 10).unwrap();
        let (change, expected) = edit_of(&old);
        let mut out = temp_out(&dir);
        write_change(&mut out, &old, &change, &held, false).unwrap();
        assert_eq!(sha256_hex(&written(&mut out)), sha256_hex(&expected));
    }

    /// The race the other way: a program opens the held file for writing after the read and
    /// before the copy. It waits for the hold's release, the broken hold means nothing copied
    /// is trusted, the new file is the edit of the bytes read, and the program's write lands
    /// in the old file after.
    #[test]
    fn a_writer_that_opens_the_file_after_the_read_waits_and_the_edit_is_of_the_bytes_read() {
        let (dir, path, _) = setup();
        let (held, old) = read_held(&path);
        assert!(held.unchanged());
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            let file = File::options().write(true).open(&writer_path).unwrap();
            file.write_all_at(b"CHANGED BY ANOTHER PROGRAM", 10).unwrap();
        });
        broken(&held);
        let (change, expected) = edit_of(&old);
        let mut out = temp_out(&dir);
        write_change(&mut out, &old, &change, &held, false).unwrap();
        held.release();
        writer.join().unwrap();
        assert_eq!(sha256_hex(&written(&mut out)), sha256_hex(&expected));
        assert_ne!(std::fs::read(&path).unwrap(), old, "the writer wrote the old file once let go");
    }

    /// A hold that breaks after the copy, before the check: the copy is not trusted, and the
    /// content is written again from the bytes read.
    #[test]
    fn a_hold_broken_after_the_copy_has_the_content_written_again_from_the_bytes_read() {
        let (dir, path, _) = setup();
        let (held, old) = read_held(&path);
        let (change, expected) = edit_of(&old);
        let mut out = temp_out(&dir);
        assert!(write_pieces(&mut out, &old, &change, &held).unwrap(), "the prefix and suffix are copied");
        // What a copy of a file changed under it would hold.
        out.write_all_at(b"NOT WHAT WAS READ", 0).unwrap();
        let writer = opens_for_writing(&path);
        broken(&held);
        keep_if_unchanged(&mut out, &old, &change, &held, false).unwrap();
        held.release();
        writer.join().unwrap();
        assert_eq!(sha256_hex(&written(&mut out)), sha256_hex(&expected));
    }

    /// The same break when the bytes read are the file's own mapping: past the kernel's
    /// lease-break-time the waiting program writes (or truncates) what the mapping shows, so
    /// nothing is written from it again — the edit is refused instead.
    #[test]
    fn a_hold_broken_while_the_old_bytes_are_the_files_mapping_refuses_the_edit() {
        let (dir, path, _) = setup();
        let (held, old) = read_held(&path);
        let (change, _) = edit_of(&old);
        let mut out = temp_out(&dir);
        assert!(write_pieces(&mut out, &old, &change, &held).unwrap());
        let writer = opens_for_writing(&path);
        broken(&held);
        let refused = keep_if_unchanged(&mut out, &old, &change, &held, true);
        assert!(matches!(refused, Err(WriteRefused::WrittenMeanwhile)), "{refused:?}");
        held.release();
        writer.join().unwrap();
    }
}
