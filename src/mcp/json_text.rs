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

/// Whether any of the eight bytes in `word` must be escaped: below 0x20, `"` or `\`.
fn any_to_escape(word: u64) -> bool {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let quote = quote.wrapping_sub(ONES) & !quote & HIGHS;
    let backslash = backslash.wrapping_sub(ONES) & !backslash & HIGHS;
    below_space | quote | backslash != 0
}

fn write_str(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let (mut start, mut at) = (0, 0);
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            if !any_to_escape(word) {
                at += 8;
                continue;
            }
        }
        let byte = bytes[at];
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\t' => b"\\t",
            b'\r' => b"\\r",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => &[b'\\', b'u', b'0', b'0', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]],
            _ => {
                at += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..at]);
        out.extend_from_slice(escape);
        at += 1;
        start = at;
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
