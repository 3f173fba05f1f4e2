//! Lua 5.4's character classes (`%a`, `[a-z%d]`, …) over bytes, as lstrlib.c reads them in
//! the C locale.

/// `%x` for class letter `class` (upper case is the complement); any other byte matches itself.
pub fn matches_class(c: u8, class: u8) -> bool {
    let hit = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c < 0x20 || c == 0x7f,
        b'd' => c.is_ascii_digit(),
        b'g' => is_graph(c),
        b'l' => c.is_ascii_lowercase(),
        b'p' => is_graph(c) && !c.is_ascii_alphanumeric(),
        // C's isspace includes the vertical tab, which Rust's is_ascii_whitespace does not.
        b's' => matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        // Deprecated in 5.2 but still read by 5.4.
        b'z' => c == 0,
        _ => return class == c,
    };
    if class.is_ascii_uppercase() {
        !hit
    } else {
        hit
    }
}

fn is_graph(c: u8) -> bool {
    (0x21..=0x7e).contains(&c)
}

/// Does `c` belong to the set `pattern[open..close]`, where `open` is the `[` and `close`
/// the `]` that ends it (found by the matcher's `class_end`)?
pub fn matches_set(c: u8, pattern: &[u8], open: usize, close: usize) -> bool {
    let at = |i: usize| pattern.get(i).copied().unwrap_or(0);
    let mut p = open;
    let mut found = true;
    if at(p + 1) == b'^' {
        found = false;
        p += 1;
    }
    loop {
        p += 1;
        if p >= close {
            return !found;
        }
        if at(p) == b'%' {
            p += 1;
            if matches_class(c, at(p)) {
                return found;
            }
        } else if at(p + 1) == b'-' && p + 2 < close {
            p += 2;
            if at(p - 2) <= c && c <= at(p) {
                return found;
            }
        } else if at(p) == c {
            return found;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_c_locale() {
        assert!(matches_class(0x0b, b's'));
        assert!(!matches_class(0x0b, b'S'));
        assert!(matches_class(b'!', b'p'));
        assert!(!matches_class(b'a', b'p'));
        assert!(matches_class(b'%', b'%'));
        assert!(!matches_class(0xe9, b'a'));
        assert!(matches_class(0xe9, b'A'));
    }

    #[test]
    fn sets_take_ranges_escapes_and_negation() {
        let set = b"[a-c%d_]";
        assert!(matches_set(b'b', set, 0, 7));
        assert!(matches_set(b'7', set, 0, 7));
        assert!(matches_set(b'_', set, 0, 7));
        assert!(!matches_set(b'z', set, 0, 7));
        let negated = b"[^a-]";
        assert!(!matches_set(b'a', negated, 0, 4));
        assert!(!matches_set(b'-', negated, 0, 4));
        assert!(matches_set(b'b', negated, 0, 4));
    }
}
