//! A result as compact JSON text, exactly as `serde_json::to_string` writes it, but escaping
//! strings eight bytes at a time: every `tools/call` result is written this way on the server's
//! worker, and a file's content is mostly long runs that need no escape (serde_json looks at
//! every byte, and copies the run between each tab and newline separately).

use serde_json::Value;

/// `value` as compact JSON (the same bytes as `serde_json::to_string`).
pub fn compact(value: &Value) -> String {
    let mut out = Vec::with_capacity(256);
    write(&mut out, value);
    // Only valid UTF-8 was written: the strings' own bytes and ASCII.
    String::from_utf8(out).unwrap_or_default()
}

fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => {
            let _ = serde_json::to_writer(&mut *out, number);
        }
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, key);
                out.push(b':');
                write(out, item);
            }
            out.push(b'}');
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each of the eight bytes of `word` (little-endian) that may need an escape:
/// below 0x20, `"` or `\`. The lowest bit set marks exactly the first such byte (the borrows
/// of the subtractions only run upward from a real match).
fn to_escape(word: u64) -> u64 {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | quote | backslash) & HIGHS
}

/// How `byte` is written inside a JSON string (as serde_json writes it), if it is escaped.
fn escape(byte: u8, unicode: &mut [u8; 6]) -> Option<&[u8]> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    Some(match byte {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\t' => b"\\t",
        b'\r' => b"\\r",
        0x08 => b"\\b",
        0x0c => b"\\f",
        0..=0x1f => {
            unicode[4] = HEX[usize::from(byte >> 4)];
            unicode[5] = HEX[usize::from(byte & 0xf)];
            unicode
        }
        _ => return None,
    })
}

fn write_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut unicode = *b"\\u0000";
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let (mut start, mut at) = (0, 0);
    // Eight bytes at a time; straight to the first byte that needs an escape.
    while let Some(word) = bytes.get(at..at + 8) {
        let mask = to_escape(u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
        if mask == 0 {
            at += 8;
            continue;
        }
        let found = at + (mask.trailing_zeros() / 8) as usize;
        if let Some(escaped) = escape(bytes[found], &mut unicode) {
            out.extend_from_slice(&bytes[start..found]);
            out.extend_from_slice(escaped);
            start = found + 1;
        }
        at = found + 1;
    }
    // The last few bytes one at a time.
    for (offset, &byte) in bytes[at..].iter().enumerate() {
        if let Some(escaped) = escape(byte, &mut unicode) {
            let found = at + offset;
            out.extend_from_slice(&bytes[start..found]);
            out.extend_from_slice(escaped);
            start = found + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_exactly_what_serde_json_writes() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        let values = [
            json!(null),
            json!({}),
            json!([]),
            json!(""),
            json!({"content": "     1\tone\n     2\ttwo \"quoted\" back\\slash\r\n", "total_lines": 2, "truncated": false}),
            json!([every_control, "\u{7f}é中文🦀", "exactly8", "exactly8\"", "1234567\n89"]),
            json!({"nested": [1, -2, 3.5, 1e300, -0.0, u64::MAX, i64::MIN, {"a": [null, true]}], "k\"ey\n": "v"}),
            json!("a".repeat(1000) + "\u{1}" + &"b".repeat(7)),
        ];
        for value in values {
            assert_eq!(compact(&value), serde_json::to_string(&value).unwrap(), "{value:?}");
        }
    }

    #[test]
    fn escapes_are_found_at_every_position_of_a_word() {
        for special in ['"', '\\', '\n', '\u{0}', '\u{1f}'] {
            for at in 0..17 {
                let text: String = "x".repeat(at) + &special.to_string() + &"y".repeat(17 - at);
                let value = json!(text);
                assert_eq!(compact(&value), serde_json::to_string(&value).unwrap(), "{special:?} at {at}");
            }
        }
    }
}
