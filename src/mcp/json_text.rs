//! How rein writes JSON on the MCP path: every `tools/call` result as compact text, and every
//! message to the client. sonic-rs escapes strings with SIMD and writes the same bytes as
//! serde_json (the tests hold it to that); serde_json looks at every byte, and a file's content
//! is written three times per `read_file` answer (in the result's text, escaped again inside
//! the message, and in `structuredContent`): it was the largest cost of a pipelined call.

use serde::Serialize;
use serde_json::Value;

/// `value` as compact JSON (the same bytes as `serde_json::to_string`).
pub fn compact(value: &Value) -> String {
    sonic_rs::to_string(value).unwrap_or_default()
}

/// `message` as one line of compact JSON at the end of `out`; on an error (a map with a key
/// that is not a string) `out` is left as it was.
pub fn append_line<T: Serialize>(out: &mut Vec<u8>, message: &T) -> Result<(), sonic_rs::Error> {
    let start = out.len();
    match sonic_rs::to_writer(&mut *out, message) {
        Ok(()) => {
            out.push(b'\n');
            Ok(())
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
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
    fn a_message_line_is_what_serde_json_writes_and_a_failed_one_leaves_nothing() {
        let result = crate::mcp::tools::success(json!({"content": "     1\tone \"two\"\n", "path": "a\\b", "n": 3}));
        let mut out = b"before\n".to_vec();
        append_line(&mut out, &result).unwrap();
        let mut expected = b"before\n".to_vec();
        expected.extend(serde_json::to_vec(&result).unwrap());
        expected.push(b'\n');
        assert_eq!(String::from_utf8(out.clone()).unwrap(), String::from_utf8(expected).unwrap());

        let bad: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        assert!(append_line(&mut out, &bad).is_err());
        assert!(out.ends_with(b"}\n"), "nothing half-written is left");
    }

    #[test]
    fn escapes_are_found_at_every_position_of_a_word() {
        for special in ['"', '\\', '\n', '\u{0}', '\u{1f}'] {
            for at in 0..70 {
                let text: String = "x".repeat(at) + &special.to_string() + &"y".repeat(70 - at);
                let value = json!(text);
                assert_eq!(compact(&value), serde_json::to_string(&value).unwrap(), "{special:?} at {at}");
            }
        }
    }
}
