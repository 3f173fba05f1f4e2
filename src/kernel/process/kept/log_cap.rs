//! A kept program's log, capped: the first half of the limit is written as it comes, then only
//! the latest half is kept, rewritten after the head (at most once a second, and at the end),
//! with a line saying how much was dropped — like a spawn's capture (`capture`), on disk.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::time::{Duration, Instant};

/// How often the tail is rewritten while output keeps coming.
const REWRITE_EVERY: Duration = Duration::from_secs(1);

pub struct LogCap {
    file: File,
    half: usize,
    head: usize,
    tail: VecDeque<u8>,
    dropped: u64,
    dirty: bool,
    written_at: Instant,
}

impl LogCap {
    pub fn new(file: File, limit: usize) -> LogCap {
        LogCap {
            file,
            half: limit / 2,
            head: 0,
            tail: VecDeque::new(),
            dropped: 0,
            dirty: false,
            written_at: Instant::now(),
        }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half.saturating_sub(self.head);
        if room > 0 && self.tail.is_empty() {
            let take = room.min(bytes.len());
            // The head is written in place as it comes; a write error leaves the log short.
            let _ = self.file.write_all(&bytes[..take]);
            self.head += take;
            bytes = &bytes[take..];
        }
        if bytes.is_empty() {
            return;
        }
        self.tail.extend(bytes);
        let over = self.tail.len().saturating_sub(self.half);
        self.tail.drain(..over);
        self.dropped += over as u64;
        self.dirty = true;
        if self.written_at.elapsed() >= REWRITE_EVERY {
            self.flush();
        }
    }

    /// Writes the kept tail after the head.
    pub fn flush(&mut self) {
        if !self.dirty {
            return;
        }
        let mut text = Vec::new();
        if self.dropped > 0 {
            text.extend_from_slice(format!("\n… [{} bytes of output dropped] …\n", self.dropped).as_bytes());
        }
        text.extend(self.tail.iter());
        let _ = self.file.set_len(self.head as u64);
        let _ = self.file.seek(SeekFrom::Start(self.head as u64));
        let _ = self.file.write_all(&text);
        self.dirty = false;
        self.written_at = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_and_the_latest_tail_and_says_what_it_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        let mut log = LogCap::new(File::create(&path).unwrap(), 10);
        for chunk in [b"0123".as_slice(), b"456789", b"abcdef", b"XYZ"] {
            log.push(chunk);
        }
        log.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "01234\n… [9 bytes of output dropped] …\nefXYZ");
        let mut small = LogCap::new(File::create(dir.path().join("y.log")).unwrap(), 100);
        small.push(b"hello\n");
        small.flush();
        assert_eq!(std::fs::read_to_string(dir.path().join("y.log")).unwrap(), "hello\n");
    }
}
