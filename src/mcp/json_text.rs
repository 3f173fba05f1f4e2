//! How rein writes JSON on the MCP path: every `tools/call` result as compact text, and every
//! message to the client. sonic-rs escapes strings with SIMD and writes the same bytes as
//! serde_json (the tests hold it to that); serde_json looks at every byte, and a file's content
//! is written three times per `read_file` answer (in the result's text, escaped again inside
//! the message, and in `structuredContent`): it was the largest cost of a pipelined call.

use serde::Serialize;
use serde_json::Value;

/// `value` as compact JSON (the same bytes as `serde_json::to_string`).
pub fn compact(value: &Value) -> String {
    let mut text = sonic_rs::to_string(value).unwrap_or_default();
    // sonic-rs makes room for six bytes per byte of every string it escapes: a result held
    // until it is sent (thousands of them, pipelined) keeps only what it uses.
    if text.capacity() > text.len() + text.len() / 2 + 1024 {
        text.shrink_to_fit();
    }
    text
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
        let result = answer(json!({"content": "     1\tone \"two\"\n", "path": "a\\b", "n": 3}));
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
    fn a_result_text_keeps_only_the_room_it_uses() {
        let content: String = (1..=2000).map(|i| format!("{i:>6}\tline \"{i}\"\n")).collect();
        let text = compact(&json!({"content": content}));
        assert!(text.capacity() <= text.len() + text.len() / 2 + 1024, "{} for {}", text.capacity(), text.len());
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

    /// A `tools/call` answer as `tools::success` makes one (which uses this module).
    fn answer(structured: Value) -> rmcp::model::CallToolResult {
        let text = rmcp::model::ContentBlock::text(compact(&structured));
        let mut result = rmcp::model::CallToolResult::success(vec![text]);
        result.structured_content = Some(structured);
        result
    }

    /// `value` written alone and inside a whole answer, byte for byte as serde_json writes it.
    fn as_serde_json(value: &Value) {
        assert_eq!(compact(value), serde_json::to_string(value).unwrap(), "{value:?}");
        let result = answer(value.clone());
        let mut line = Vec::new();
        append_line(&mut line, &result).unwrap();
        let mut expected = serde_json::to_vec(&result).unwrap();
        expected.push(b'\n');
        assert_eq!(String::from_utf8(line).unwrap(), String::from_utf8(expected).unwrap());
    }

    /// What an agent controls reaches the client through here: file contents, names, tool
    /// results from Lua. Every character up to U+3000 (and the line and paragraph separators,
    /// BOM, the last code point) at every offset of a SIMD block, as text and as a key; numbers
    /// at their edges (Lua floats included); nesting deeper than a Lua result may go.
    #[test]
    fn what_an_agent_controls_is_written_as_serde_json_writes_it() {
        let every: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        as_serde_json(&json!(every));
        let odd = ['\u{2028}', '\u{2029}', '\u{feff}', '\u{fffd}', '\u{10ffff}', '🦀'];
        for c in (0u32..0x800).filter_map(char::from_u32).chain(odd) {
            for at in [0, 1, 15, 16, 31, 32, 33, 63, 64] {
                let text = "a".repeat(at) + &c.to_string() + &"b".repeat(40);
                as_serde_json(&json!({ text.clone(): text }));
            }
        }
        let floats = [
            0.0,
            -0.0,
            0.1,
            0.1 + 0.2,
            1e308,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e-7,
            1e15,
            1e16,
            1e17,
            1e21,
            9007199254740993.0,
            18014398509481988.0,
            123456789012345680000.0,
            3.0,
            2.5,
        ];
        for f in floats {
            as_serde_json(&json!({"n": [f, -f]}));
        }
        as_serde_json(&json!([i64::MIN, i64::MAX, u64::MAX, 1u64 << 63]));
        let mut deep = json!("x\u{1}");
        for i in 0..200 {
            deep = if i % 2 == 0 { json!([deep, i]) } else { json!({"k": deep, "\u{7}": i}) };
        }
        as_serde_json(&deep);
    }
}
