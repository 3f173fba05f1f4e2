//! Character-bigram scores of a file's windows of lines against an `old_string`: a cheap first
//! ranking, so only the most promising windows get the exact (and costly) similarity ratio.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Dice coefficient of character bigrams (whitespace ignored) between `old` and every window
/// of `k` lines, index = first line of the window. The window slides, so each line is added and
/// removed once.
/// `line(i)` gives the file's line `i` (of `count`) without its line break.
pub(super) fn bigram_scores<'a>(count: usize, line: impl Fn(usize) -> &'a str, old: &str, k: usize) -> Vec<f32> {
    let mut window = BigramWindow::new(old);
    for index in 0..k {
        window.add(line(index));
    }
    let mut scores = Vec::with_capacity(count - k + 1);
    scores.push(window.dice());
    for first in 1..=count - k {
        window.remove(line(first - 1));
        window.add(line(first + k - 1));
        scores.push(window.dice());
    }
    scores
}

/// Bigram multiset of `old` and of the current window, with their intersection size kept up
/// to date as lines come and go.
struct BigramWindow {
    /// For each bigram of `old`: (count in old, count in window).
    counts: HashMap<u64, (u32, u32), BuildHasherDefault<BigramHasher>>,
    old_total: usize,
    window_total: usize,
    shared: usize,
}

impl BigramWindow {
    fn new(old: &str) -> BigramWindow {
        let mut counts: HashMap<u64, (u32, u32), BuildHasherDefault<BigramHasher>> = HashMap::default();
        let mut old_total = 0;
        for line in old.split('\n') {
            for bigram in bigrams(line) {
                counts.entry(bigram).or_default().0 += 1;
                old_total += 1;
            }
        }
        BigramWindow { counts, old_total, window_total: 0, shared: 0 }
    }

    fn add(&mut self, line: &str) {
        for bigram in bigrams(line) {
            self.window_total += 1;
            if let Some((in_old, in_window)) = self.counts.get_mut(&bigram) {
                if *in_window < *in_old {
                    self.shared += 1;
                }
                *in_window += 1;
            }
        }
    }

    fn remove(&mut self, line: &str) {
        for bigram in bigrams(line) {
            self.window_total -= 1;
            if let Some((in_old, in_window)) = self.counts.get_mut(&bigram) {
                *in_window -= 1;
                if *in_window < *in_old {
                    self.shared -= 1;
                }
            }
        }
    }

    fn dice(&self) -> f32 {
        let total = self.old_total + self.window_total;
        if total == 0 {
            0.0
        } else {
            (2 * self.shared) as f32 / total as f32
        }
    }
}

/// Hashes bigram keys with one multiply. The scan looks up every bigram of the file twice, and
/// SipHash's resistance to crafted keys buys nothing here while costing most of the time.
#[derive(Default)]
struct BigramHasher(u64);

impl Hasher for BigramHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        // Bring the well-mixed high bits down to where the table picks its bucket.
        self.0 ^ (self.0 >> 29)
    }
}

/// Bigrams of the line's non-whitespace characters, the first paired with a line-start marker
/// so that a one-character line still has one.
fn bigrams(line: &str) -> impl Iterator<Item = u64> + '_ {
    let mut previous = '\n';
    line.chars().filter(|c| !c.is_whitespace()).map(move |c| {
        let bigram = (u64::from(previous) << 32) | u64::from(c);
        previous = c;
        bigram
    })
}
