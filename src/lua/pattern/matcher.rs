//! Lua 5.4's pattern matcher (lstrlib.c's `match` and friends), ported step for step to
//! Rust so that it can count its work: every entry into `do_match` and every turn of an
//! expansion loop is one step, reported to a meter that may stop the match.

use super::class::{matches_class, matches_set};

/// lstrlib.c's LUA_MAXCAPTURES and MAXCCALLS.
pub const MAX_CAPTURES: usize = 32;
const MAX_DEPTH: usize = 200;
const ESC: u8 = b'%';

/// How often the meter is asked whether the match may go on.
pub const STEPS_PER_CHECK: u64 = 1 << 14;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    /// The pattern is malformed; the message is C Lua's.
    Pattern(String),
    /// The meter refused more steps.
    Stopped,
}

fn malformed(message: &str) -> MatchError {
    MatchError::Pattern(message.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Len {
    Unfinished,
    Position,
    Closed(usize),
}

/// One capture of a successful match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Capture<'s> {
    Text(&'s [u8]),
    /// A `()` capture: the 1-based position.
    Position(usize),
}

/// The state of one match: the subject, the pattern (without a leading anchor), the captures
/// so far and the step count.
pub struct Matcher<'s, 'm> {
    src: &'s [u8],
    pat: &'s [u8],
    level: usize,
    captures: [(usize, Len); MAX_CAPTURES],
    depth: usize,
    unmetered: u64,
    meter: &'m mut dyn FnMut(u64) -> bool,
}

type Step = Result<Option<usize>, MatchError>;

impl<'s, 'm> Matcher<'s, 'm> {
    pub fn new(src: &'s [u8], pat: &'s [u8], meter: &'m mut dyn FnMut(u64) -> bool) -> Self {
        Matcher {
            src,
            pat,
            level: 0,
            captures: [(0, Len::Unfinished); MAX_CAPTURES],
            depth: MAX_DEPTH,
            unmetered: 0,
            meter,
        }
    }

    /// Tries the pattern at `s`: the end of the match, if any. Clears earlier captures.
    pub fn try_at(&mut self, s: usize) -> Step {
        self.level = 0;
        self.depth = MAX_DEPTH;
        self.do_match(s, 0)
    }

    /// Reports the steps not yet reported; false if the meter stops the match.
    pub fn flush(&mut self) -> bool {
        let steps = std::mem::take(&mut self.unmetered);
        steps == 0 || (self.meter)(steps)
    }

    fn step(&mut self) -> Result<(), MatchError> {
        self.steps(1)
    }

    fn steps(&mut self, count: usize) -> Result<(), MatchError> {
        self.unmetered += count as u64;
        if self.unmetered >= STEPS_PER_CHECK && !self.flush() {
            return Err(MatchError::Stopped);
        }
        Ok(())
    }

    fn pat_at(&self, p: usize) -> u8 {
        self.pat.get(p).copied().unwrap_or(0)
    }

    fn src_at(&self, s: usize) -> u8 {
        self.src.get(s).copied().unwrap_or(0)
    }

    fn do_match(&mut self, s: usize, p: usize) -> Step {
        if self.depth == 0 {
            return Err(malformed("pattern too complex"));
        }
        self.depth -= 1;
        let result = self.match_body(s, p);
        self.depth += 1;
        result
    }

    fn match_body(&mut self, mut s: usize, mut p: usize) -> Step {
        loop {
            self.step()?;
            if p == self.pat.len() {
                return Ok(Some(s));
            }
            match self.pat[p] {
                b'(' => {
                    return if self.pat_at(p + 1) == b')' {
                        self.start_capture(s, p + 2, Len::Position)
                    } else {
                        self.start_capture(s, p + 1, Len::Unfinished)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'$' if p + 1 == self.pat.len() => return Ok((s == self.src.len()).then_some(s)),
                ESC if self.pat_at(p + 1) == b'b' => match self.match_balance(s, p + 2)? {
                    Some(end) => {
                        s = end;
                        p += 4;
                        continue;
                    }
                    None => return Ok(None),
                },
                ESC if self.pat_at(p + 1) == b'f' => {
                    p += 2;
                    if self.pat_at(p) != b'[' {
                        return Err(malformed("missing '[' after '%f' in pattern"));
                    }
                    let ep = self.class_end(p)?;
                    let previous = if s == 0 { 0 } else { self.src[s - 1] };
                    if !matches_set(previous, self.pat, p, ep - 1) && matches_set(self.src_at(s), self.pat, p, ep - 1) {
                        p = ep;
                        continue;
                    }
                    return Ok(None);
                }
                ESC if self.pat_at(p + 1).is_ascii_digit() => match self.match_capture(s, self.pat_at(p + 1))? {
                    Some(end) => {
                        s = end;
                        p += 2;
                        continue;
                    }
                    None => return Ok(None),
                },
                _ => {
                    let ep = self.class_end(p)?;
                    let suffix = self.pat_at(ep);
                    if !self.single_match(s, p, ep) {
                        if matches!(suffix, b'*' | b'?' | b'-') {
                            p = ep + 1;
                            continue;
                        }
                        return Ok(None);
                    }
                    match suffix {
                        b'?' => match self.do_match(s + 1, ep + 1)? {
                            Some(end) => return Ok(Some(end)),
                            None => {
                                p = ep + 1;
                                continue;
                            }
                        },
                        b'+' => return self.max_expand(s + 1, p, ep),
                        b'*' => return self.max_expand(s, p, ep),
                        b'-' => return self.min_expand(s, p, ep),
                        _ => {
                            s += 1;
                            p = ep;
                        }
                    }
                }
            }
        }
    }

    /// Where the single-character class at `p` ends.
    fn class_end(&self, mut p: usize) -> Result<usize, MatchError> {
        let first = self.pat_at(p);
        p += 1;
        match first {
            ESC => {
                if p >= self.pat.len() {
                    return Err(malformed("malformed pattern (ends with '%')"));
                }
                Ok(p + 1)
            }
            b'[' => {
                if self.pat_at(p) == b'^' {
                    p += 1;
                }
                loop {
                    if p >= self.pat.len() {
                        return Err(malformed("malformed pattern (missing ']')"));
                    }
                    let c = self.pat[p];
                    p += 1;
                    if c == ESC && p < self.pat.len() {
                        p += 1;
                    }
                    if self.pat_at(p) == b']' {
                        return Ok(p + 1);
                    }
                }
            }
            _ => Ok(p),
        }
    }

    fn single_match(&self, s: usize, p: usize, ep: usize) -> bool {
        let Some(&c) = self.src.get(s) else { return false };
        match self.pat[p] {
            b'.' => true,
            ESC => matches_class(c, self.pat_at(p + 1)),
            b'[' => matches_set(c, self.pat, p, ep - 1),
            literal => literal == c,
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Step {
        let mut count = 0;
        while self.single_match(s + count, p, ep) {
            self.step()?;
            count += 1;
        }
        loop {
            if let Some(end) = self.do_match(s + count, ep + 1)? {
                return Ok(Some(end));
            }
            if count == 0 {
                return Ok(None);
            }
            count -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> Step {
        loop {
            if let Some(end) = self.do_match(s, ep + 1)? {
                return Ok(Some(end));
            }
            if !self.single_match(s, p, ep) {
                return Ok(None);
            }
            self.step()?;
            s += 1;
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: Len) -> Step {
        if self.level >= MAX_CAPTURES {
            return Err(malformed("too many captures"));
        }
        self.captures[self.level] = (s, what);
        self.level += 1;
        let result = self.do_match(s, p)?;
        if result.is_none() {
            self.level -= 1;
        }
        Ok(result)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Step {
        let Some(open) = (0..self.level).rev().find(|&l| self.captures[l].1 == Len::Unfinished) else {
            return Err(malformed("invalid pattern capture"));
        };
        self.captures[open].1 = Len::Closed(s - self.captures[open].0);
        let result = self.do_match(s, p)?;
        if result.is_none() {
            self.captures[open].1 = Len::Unfinished;
        }
        Ok(result)
    }

    /// `%bxy` at `s`; a step for each byte it scans.
    fn match_balance(&mut self, s: usize, p: usize) -> Result<Option<usize>, MatchError> {
        if p + 1 >= self.pat.len() {
            return Err(malformed("malformed pattern (missing arguments to '%b')"));
        }
        let (open, close) = (self.pat[p], self.pat[p + 1]);
        if self.src_at(s) != open || s >= self.src.len() {
            return Ok(None);
        }
        let mut depth = 1;
        let mut end = None;
        for (i, &c) in self.src.iter().enumerate().skip(s + 1) {
            if c == close {
                depth -= 1;
                if depth == 0 {
                    end = Some(i + 1);
                    break;
                }
            } else if c == open {
                depth += 1;
            }
        }
        self.steps(end.unwrap_or(self.src.len()) - s)?;
        Ok(end)
    }

    /// `%1`-`%9` at `s`; a step for each byte it compares.
    fn match_capture(&mut self, s: usize, digit: u8) -> Step {
        let index = self.check_capture(digit)?;
        let (start, len) = self.captures[index];
        let Len::Closed(len) = len else { return Ok(None) };
        if self.src.len() - s < len {
            return Ok(None);
        }
        self.steps(len)?;
        let wanted = &self.src[start..start + len];
        Ok(self.src[s..].starts_with(wanted).then_some(s + len))
    }

    fn check_capture(&self, digit: u8) -> Result<usize, MatchError> {
        let index = i32::from(digit) - i32::from(b'1');
        if index < 0 || index as usize >= self.level || self.captures[index as usize].1 == Len::Unfinished {
            return Err(MatchError::Pattern(format!("invalid capture index %{}", index + 1)));
        }
        Ok(index as usize)
    }

    pub fn source(&self) -> &'s [u8] {
        self.src
    }

    /// Capture `i` of the match `s..e` (the whole match when the pattern has none).
    pub fn capture(&self, i: usize, s: usize, e: usize) -> Result<Capture<'s>, MatchError> {
        if i >= self.level {
            if i != 0 {
                return Err(MatchError::Pattern(format!("invalid capture index %{}", i + 1)));
            }
            return Ok(Capture::Text(&self.src[s..e]));
        }
        let (start, len) = self.captures[i];
        match len {
            Len::Unfinished => Err(malformed("unfinished capture")),
            Len::Position => Ok(Capture::Position(start + 1)),
            Len::Closed(len) => Ok(Capture::Text(&self.src[start..start + len])),
        }
    }

    /// All captures of the match `s..e`; the whole match if there are none and `whole`.
    pub fn captures(&self, s: usize, e: usize, whole: bool) -> Result<Vec<Capture<'s>>, MatchError> {
        let count = if self.level == 0 && whole { 1 } else { self.level };
        (0..count).map(|i| self.capture(i, s, e)).collect()
    }
}
