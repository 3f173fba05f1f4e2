//! What the client writes, split into lines, never holding more than the limit of one.

/// How much of an oversized line is kept (to find its id).
pub(super) const SNIFFED: usize = 256;

/// One line from the client.
pub(super) enum Line {
    Whole(Vec<u8>),
    /// Over the limit: its first bytes (for its id); the rest was skipped.
    Oversized(Vec<u8>),
}

pub(super) struct Splitter {
    line: Vec<u8>,
    /// Dropping the rest of an oversized line, up to its newline.
    discarding: bool,
    limit: usize,
}

impl Splitter {
    pub(super) fn new(limit: usize) -> Splitter {
        Splitter { line: Vec::new(), discarding: false, limit }
    }

    /// Adds `chunk`; every line it completes goes to `out`.
    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Line>) {
        while !chunk.is_empty() {
            let newline = memchr::memchr(b'\n', chunk);
            let take = newline.map_or(chunk.len(), |i| i + 1);
            let (piece, rest) = chunk.split_at(take);
            chunk = rest;
            if self.discarding {
                self.discarding = newline.is_none();
                continue;
            }
            if self.line.len() + take > self.limit + 1 {
                // Only the head is kept: it names the request's id.
                let mut head = std::mem::take(&mut self.line);
                let room = SNIFFED.saturating_sub(head.len()).min(piece.len());
                head.extend_from_slice(&piece[..room]);
                out.push(Line::Oversized(head));
                self.discarding = newline.is_none();
                continue;
            }
            if newline.is_none() {
                self.line.extend_from_slice(piece);
            } else if self.line.is_empty() {
                out.push(Line::Whole(piece.to_vec()));
            } else {
                self.line.extend_from_slice(piece);
                out.push(Line::Whole(std::mem::take(&mut self.line)));
            }
        }
    }

    /// At the end of input: a last line without its newline.
    fn finish(&mut self, out: &mut Vec<Line>) {
        if !self.discarding && !self.line.is_empty() {
            out.push(Line::Whole(std::mem::take(&mut self.line)));
        }
    }
}

/// What one read gave: the lines it completed, and whether input ended.
pub(super) fn split(read: std::io::Result<usize>, buffer: &[u8], splitter: &mut Splitter) -> Option<(Vec<Line>, bool)> {
    let mut lines = Vec::new();
    let done = match read {
        Ok(0) => {
            splitter.finish(&mut lines);
            true
        }
        Ok(n) => {
            splitter.feed(&buffer[..n], &mut lines);
            false
        }
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return None,
        Err(e) => {
            tracing::error!("cannot read from the client: {e}");
            true
        }
    };
    Some((lines, done))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| match l {
                Line::Whole(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                Line::Oversized(head) => format!("OVERSIZED {}", String::from_utf8_lossy(head)),
            })
            .collect()
    }

    #[test]
    fn lines_split_across_reads_are_joined_and_oversized_ones_skipped() {
        let mut splitter = Splitter::new(10);
        let mut out = Vec::new();
        splitter.feed(b"ab", &mut out);
        splitter.feed(b"c\nd", &mut out);
        splitter.feed(b"0123456789abc", &mut out);
        splitter.feed(b"def\nok\nlast", &mut out);
        splitter.finish(&mut out);
        assert_eq!(whole(&out), ["abc\n", "OVERSIZED d0123456789abc", "ok\n", "last"]);
    }
}
