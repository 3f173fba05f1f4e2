//! Bounded capture of a child's output: the head and the tail are kept, the middle is counted.
//! A program printing 100 MiB costs rein no more than the limit.

use std::collections::VecDeque;

#[derive(Debug)]
pub struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    half: usize,
    dropped: u64,
}

impl Capture {
    /// Keeps at most `limit` bytes: the first half and the last half.
    pub fn new(limit: usize) -> Capture {
        let half = limit / 2;
        Capture { head: Vec::new(), tail: VecDeque::new(), half, dropped: 0 }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half.saturating_sub(self.head.len());
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.half {
            self.dropped += (self.tail.len() + bytes.len() - self.half) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.half..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.half);
        self.tail.drain(..overflow);
        self.dropped += overflow as u64;
        self.tail.extend(bytes);
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept text; where bytes were dropped, a marker line says how many.
    pub fn into_text(self) -> String {
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            out.push_str(&format!("\n… [{} bytes of output dropped] …\n", self.dropped));
        }
        let tail: Vec<u8> = self.tail.into_iter().collect();
        out.push_str(&String::from_utf8_lossy(&tail));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_under_the_limit() {
        let mut c = Capture::new(100);
        c.push(b"hello ");
        c.push(b"world");
        assert_eq!(c.dropped(), 0);
        assert_eq!(c.into_text(), "hello world");
    }

    #[test]
    fn keeps_head_and_tail_and_counts_the_rest() {
        let mut c = Capture::new(10);
        for chunk in [b"0123".as_slice(), b"456789", b"abcdef", b"XYZ"] {
            c.push(chunk);
        }
        assert_eq!(c.dropped(), 19 - 10);
        assert_eq!(c.into_text(), "01234\n… [9 bytes of output dropped] …\nefXYZ");
    }
}
