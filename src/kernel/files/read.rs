//! Reading files as numbered lines, with the checks every reader needs: regular file,
//! text not binary, size within bounds.

use std::fs::{File, Metadata};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::dir::Place;
use super::numbered::NumberedLines;
pub use super::numbered::ReadOutput;
use crate::kernel::digest::sha256_hex;
use crate::kernel::error::KernelError;

pub const DEFAULT_LIMIT: usize = 2000;
/// A read without offset/limit refuses files above this size, so nobody pulls a huge file
/// into a context by accident.
pub const WHOLE_READ_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Reads with an explicit range still stop here.
pub const RANGED_READ_MAX_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// How much of the start of a file decides whether it is binary.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// Which lines to read (default: from the first, up to 2000).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// 1-based first line.
    pub offset: Option<usize>,
    /// How many lines at most.
    pub limit: Option<usize>,
}

/// Opens `real` for reading and checks it is a regular file.
pub fn open_regular(place: &Place, display: &str) -> Result<(File, Metadata), KernelError> {
    let file = place.dir.open_read(&place.name).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KernelError::FileNotFound { path: display.to_string() },
        _ => KernelError::io("open", display, e),
    })?;
    let meta = file.metadata().map_err(|e| KernelError::io("inspect", display, e))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "directory" } else { "special file" };
        return Err(KernelError::NotAFile { path: display.to_string(), kind });
    }
    Ok((file, meta))
}

/// Why the start of a file says it is not UTF-8 text, if it does.
pub fn binary_reason(head: &[u8]) -> Option<String> {
    if let Some(at) = memchr::memchr(0, head) {
        return Some(format!("NUL byte at offset {at}"));
    }
    match std::str::from_utf8(head) {
        Ok(_) => None,
        // A character cut by the end of the sniffed window is not evidence of binary data.
        Err(e) if e.error_len().is_none() && head.len() == SNIFF_BYTES => None,
        Err(e) => Some(format!("invalid UTF-8 at offset {}", e.valid_up_to())),
    }
}

pub fn check_text(head: &[u8], display: &str) -> Result<(), KernelError> {
    match binary_reason(&head[..head.len().min(SNIFF_BYTES)]) {
        Some(reason) => Err(KernelError::BinaryFile { path: display.to_string(), reason }),
        None => Ok(()),
    }
}

pub fn read_numbered(place: &Place, display: &str, opts: ReadOptions) -> Result<ReadOutput, KernelError> {
    let offset = opts.offset.unwrap_or(1);
    let limit = opts.limit.unwrap_or(DEFAULT_LIMIT);
    if offset == 0 || limit == 0 {
        return Err(KernelError::invalid("offset and limit start at 1 (offset is the first line to show)"));
    }
    let (file, meta) = open_regular(place, display)?;
    let ranged = opts.offset.is_some() || opts.limit.is_some();
    let max = if ranged { RANGED_READ_MAX_BYTES } else { WHOLE_READ_MAX_BYTES };
    if meta.len() > max {
        return Err(KernelError::TooLarge {
            path: display.to_string(),
            size: meta.len(),
            limit: max,
            hint: READ_IN_PIECES,
        });
    }
    number_lines(file, display, offset, limit, max)
}

const READ_IN_PIECES: &str = "Read it in pieces with offset and limit (for example offset=1, limit=2000).";
const GREW_WHILE_READ: &str = "It grew past the limit while it was read (is a program still writing it?): read it \
     in pieces with offset and limit, or once it is written.";

/// The reader's next bytes (empty at the end), reading again when a signal interrupted the
/// read, as `read_until` did.
fn next_bytes<R: Read>(reader: &mut BufReader<R>) -> std::io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok([]) => return Ok(&[]),
            Ok(_) => break,
        }
    }
    // Buffered now: this returns it without reading.
    reader.fill_buf()
}

/// The numbered lines `offset..offset + limit` of `source`, read a buffer at a time, and the
/// sha256 of all of it. A file that grows past `max` while it is read (its size was checked
/// when it was opened) is TOO_LARGE: no more than `max` bytes are read, nor held for a line.
fn number_lines(
    source: impl Read,
    display: &str,
    offset: usize,
    limit: usize,
    max: u64,
) -> Result<ReadOutput, KernelError> {
    let mut reader = BufReader::with_capacity(64 * 1024, source.take(max.saturating_add(1)));
    check_text(next_bytes(&mut reader).map_err(|e| KernelError::io("read", display, e))?, display)?;
    let mut numbered = NumberedLines::new(offset, limit);
    let mut hasher = Sha256::new();
    // Lines are taken from the reader's buffer where they lie (hashed a buffer at a time); a
    // line the end of a buffer cuts goes in parts, never joined whole.
    let mut in_parts = false;
    loop {
        let buffer = next_bytes(&mut reader).map_err(|e| KernelError::io("read", display, e))?;
        if buffer.is_empty() {
            break;
        }
        hasher.update(buffer);
        let mut rest = buffer;
        while let Some(newline) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(newline + 1);
            if in_parts {
                numbered.push_last_part(line);
                in_parts = false;
            } else {
                numbered.push(line);
            }
            rest = after;
        }
        if !rest.is_empty() {
            numbered.push_part(rest);
            in_parts = true;
        }
        let used = buffer.len();
        reader.consume(used);
    }
    if reader.get_ref().limit() == 0 {
        // All of the allowance was read: at least one byte past the cap.
        let size = max.saturating_add(1);
        return Err(KernelError::TooLarge { path: display.to_string(), size, limit: max, hint: GREW_WHILE_READ });
    }
    if in_parts {
        numbered.push_last_part(&[]);
    }
    let total = numbered.seen();
    if offset > total.max(1) {
        return Err(KernelError::invalid(format!(
            "offset {offset} is past the end of {display}, which has {total} lines"
        )));
    }
    Ok(numbered.finish(display, format!("{:x}", hasher.finalize())))
}

/// All of `file`, whose metadata says it holds `len` bytes, but never more than `limit` (it may
/// grow while it is read).
pub fn read_all(file: impl Read, len: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = crate::kernel::platform::file_buffers::for_file(len.min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads a whole text file of at most `max` bytes; `hint` says what to do with a bigger one.
pub fn read_whole_text(place: &Place, display: &str, max: u64, hint: &'static str) -> Result<Vec<u8>, KernelError> {
    let (file, meta) = open_regular(place, display)?;
    read_opened_text(&file, &meta, display, max, hint)
}

/// [`read_whole_text`] of a file [`open_regular`] opened (`meta` is what it returned).
pub fn read_opened_text(
    file: &File,
    meta: &Metadata,
    display: &str,
    max: u64,
    hint: &'static str,
) -> Result<Vec<u8>, KernelError> {
    if meta.len() > max {
        return Err(KernelError::TooLarge { path: display.to_string(), size: meta.len(), limit: max, hint });
    }
    let bytes = read_all(file, meta.len(), max).map_err(|e| KernelError::io("read", display, e))?;
    check_text(&bytes, display)?;
    Ok(bytes)
}

/// The largest settings file rein reads (rein.toml, config.toml, approvals.toml …): a person's
/// are a few KB; the bound is the whole-read one, only so that a device is not read for ever.
const SETTINGS_LIMIT: u64 = WHOLE_READ_MAX_BYTES;

/// Whether a link at a settings file's name is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Home files: a person may link them to a dotfiles repository.
    Follow,
    /// The project's policy files (rein.toml, rein.lock): a cloned repository may hold one as a
    /// link to a file of the person's outside it, which rein would parse, and a parse error
    /// quotes the offending line to whoever called.
    Refuse,
}

/// The text of a settings file that may not exist (`None` then): a regular file (a FIFO is
/// refused, not waited on; a device is not read until memory runs out) of at most 16 MiB.
pub fn read_optional_text(path: &Path, links: Links) -> std::io::Result<Option<String>> {
    settings_text(open_unwaited(path, links))
}

/// [`read_optional_text`] of entry `place` (never through a link at its name).
pub fn read_optional_text_in(place: &Place) -> std::io::Result<Option<String>> {
    settings_text(place.dir.open_read(&place.name))
}

/// The text of a settings file just opened (`None`: it does not exist).
fn settings_text(opened: std::io::Result<File>) -> std::io::Result<Option<String>> {
    let not_plain = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {what}; rein reads it only as a plain file of at most 16 MiB: make it one"),
        )
    };
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if is_link_refused(&e) => return Err(not_plain("a link")),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if meta.file_type().is_symlink() {
        return Err(not_plain("a link"));
    }
    if !meta.is_file() {
        return Err(not_plain("not a regular file"));
    }
    if meta.len() > SETTINGS_LIMIT {
        return Err(not_plain("larger than 16 MiB"));
    }
    let bytes = read_all(file, meta.len(), SETTINGS_LIMIT)?;
    String::from_utf8(bytes).map(Some).map_err(|_| not_plain("not UTF-8 text"))
}

/// Opens `path` for reading without waiting on a FIFO (the caller refuses one by its type);
/// with [`Links::Refuse`], a link at its name is not followed (Unix: the open fails, see
/// [`is_link_refused`]; Windows: the link itself is opened, its type says so).
pub fn open_unwaited(path: &Path, links: Links) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if links == Links::Refuse { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    #[cfg(windows)]
    if links == Links::Refuse {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
        options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
    }
    options.open(path)
}

/// Whether opening with `O_NOFOLLOW` failed because the name is a link (ELOOP; EMLINK on the
/// BSDs).
fn is_link_refused(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    return matches!(err.raw_os_error(), Some(libc::ELOOP) | Some(libc::EMLINK));
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

/// Reads a whole text file into a string (for scripts that parse files themselves).
pub fn read_text(place: &Place, display: &str) -> Result<(String, String), KernelError> {
    let hint = "Read it in pieces with rein.fs.read and offset/limit.";
    let bytes = read_whole_text(place, display, WHOLE_READ_MAX_BYTES, hint)?;
    let sha = sha256_hex(&bytes);
    Ok((String::from_utf8_lossy(&bytes).into_owned(), sha))
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
