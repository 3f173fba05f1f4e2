//! Every refusal of edit_file and multi_edit (and the stale/argument refusals of write_file
//! and read_file), through the CLI with --json: exit status, error code, the details a caller
//! acts on, and a file that is byte-identical afterwards (same bytes, mode, mtime, inode).

use crate::common::{assert_refusal, sha256_hex, stamp, Workspace};
use serde_json::{json, Value};

/// Calls `tool`, expects the refusal `code`, and checks nothing under the temp root changed.
fn refused_unchanged(ws: &Workspace, tool: &str, args: Value, code: &str) -> Value {
    let before = ws.snapshot();
    let error = ws.refused(tool, &args, code);
    before.assert_unchanged(&format!("{tool} refused with {code}"));
    error
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"path": path, "old_string": old, "new_string": new})
}

fn loc(offset: usize, line: usize, column: usize) -> Value {
    json!({"offset": offset, "line": line, "column": column})
}

const SOURCE: &str = "fn main() {\n    let total = 1;\n    println!(\"{total}\");\n}\n";

#[test]
fn empty_old_string_is_refused() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let error = refused_unchanged(&ws, "edit_file", edit("main.rs", "", "x"), "EMPTY_OLD_STRING");
    assert!(error["message"].as_str().unwrap().contains("write_file"), "should point at write_file: {error}");
}

#[test]
fn identical_old_and_new_is_refused_as_no_change() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    refused_unchanged(&ws, "edit_file", edit("main.rs", "let total = 1;", "let total = 1;"), "NO_CHANGE");
}

#[test]
fn line_ending_only_difference_in_a_crlf_file_is_no_change() {
    let ws = Workspace::new();
    ws.file("win.txt", "a\r\nb\r\n");
    refused_unchanged(&ws, "edit_file", edit("win.txt", "a\nb", "a\r\nb"), "NO_CHANGE");
}

#[test]
fn missing_file_is_refused_and_not_created() {
    let ws = Workspace::new();
    let error = refused_unchanged(&ws, "edit_file", edit("nope.txt", "a", "b"), "FILE_NOT_FOUND");
    assert_eq!(error["details"]["path"], "nope.txt");
    let error = refused_unchanged(&ws, "edit_file", edit("no/such/dir/f.txt", "a", "b"), "FILE_NOT_FOUND");
    assert_eq!(error["details"]["path"], "no/such/dir/f.txt");
}

#[test]
fn directory_is_refused_as_not_a_file() {
    let ws = Workspace::new();
    ws.file("src/lib.rs", "x\n");
    let error = refused_unchanged(&ws, "edit_file", edit("src", "x", "y"), "NOT_A_FILE");
    assert_eq!(error["details"]["kind"], "directory");
    let error = refused_unchanged(&ws, "read_file", json!({"path": "src"}), "NOT_A_FILE");
    assert_eq!(error["details"]["kind"], "directory");
}

// Unix only: FIFOs do not exist in Windows folders (named pipes live in \\.\pipe\, which the scope refuses).
#[cfg(unix)]
#[test]
fn fifo_is_refused_as_not_a_file_without_blocking() {
    use crate::common::run_json_within;
    use std::time::Duration;
    let ws = Workspace::new();
    let fifo = ws.path("pipe");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0, "mkfifo");
    for (tool, args) in [("read_file", json!({"path": "pipe"})), ("edit_file", edit("pipe", "a", "b"))] {
        let mut cmd = ws.command(&["call", tool, &args.to_string()]);
        let (status, out) = run_json_within(&mut cmd, None, Duration::from_secs(5));
        assert_refusal(status, &out, "NOT_A_FILE", tool);
        assert_eq!(out["error"]["details"]["kind"], "special file");
    }
}

#[test]
fn nul_byte_is_refused_as_binary() {
    let ws = Workspace::new();
    ws.file("blob.bin", b"header\n\0\x01\x02 text\n");
    let error = refused_unchanged(&ws, "edit_file", edit("blob.bin", "header", "HEADER"), "BINARY_FILE");
    assert!(error["details"]["reason"].as_str().unwrap().contains("NUL"), "{error}");
    refused_unchanged(&ws, "read_file", json!({"path": "blob.bin"}), "BINARY_FILE");
}

#[test]
fn invalid_utf8_is_refused_as_binary() {
    let ws = Workspace::new();
    ws.file("latin1.txt", b"caf\xe9 au lait\n");
    let error = refused_unchanged(&ws, "edit_file", edit("latin1.txt", "lait", "miel"), "BINARY_FILE");
    assert!(error["details"]["reason"].as_str().unwrap().contains("UTF-8"), "{error}");
    refused_unchanged(&ws, "read_file", json!({"path": "latin1.txt"}), "BINARY_FILE");
}

#[test]
fn whole_read_of_a_file_over_16_mib_is_refused_as_too_large() {
    let ws = Workspace::new();
    let path = ws.file("huge.log", "first line\n");
    let limit: u64 = 16 * 1024 * 1024;
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(limit + 1).unwrap();
    let before = stamp(&path);
    let error = ws.refused("read_file", &json!({"path": "huge.log"}), "TOO_LARGE");
    assert_eq!(error["details"]["size"], limit + 1);
    assert_eq!(error["details"]["limit"], limit);
    assert!(error["message"].as_str().unwrap().contains("offset"), "should say how to page: {error}");
    assert_eq!(stamp(&path), before);
}

#[test]
fn edit_of_a_file_over_512_mib_is_refused_as_too_large() {
    let ws = Workspace::new();
    let path = ws.file("huge.txt", "needle\n");
    let limit: u64 = 512 * 1024 * 1024;
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(limit + 1).unwrap();
    let before = stamp(&path);
    let error = ws.refused("edit_file", &edit("huge.txt", "needle", "thread"), "TOO_LARGE");
    assert_eq!(error["details"]["size"], limit + 1);
    assert_eq!(error["details"]["limit"], limit);
    assert_eq!(stamp(&path), before);
}

#[test]
fn not_found_with_different_whitespace_offers_the_line_as_candidate() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let error = refused_unchanged(
        &ws,
        "edit_file",
        edit("main.rs", "let  total = 1;", "let total = 2;"),
        "OLD_STRING_NOT_FOUND",
    );
    let candidates = error["details"]["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty() && candidates.len() <= 3, "{error}");
    assert_eq!(candidates[0]["line"], 2);
    assert_eq!(candidates[0]["end_line"], 2);
    assert_eq!(candidates[0]["text"], "    let total = 1;");
    assert!(candidates[0]["reason"].as_str().unwrap().contains("whitespace"), "{error}");
}

#[test]
fn not_found_with_other_indentation_offers_the_whole_span() {
    let ws = Workspace::new();
    ws.file("t.rs", "fn a() {\n\tif x {\n\t\ty();\n\t}\n}\n");
    let old = "    if x {\n        y();\n    }";
    let error = refused_unchanged(&ws, "edit_file", edit("t.rs", old, "z();"), "OLD_STRING_NOT_FOUND");
    let first = &error["details"]["candidates"][0];
    assert_eq!((first["line"].clone(), first["end_line"].clone()), (json!(2), json!(4)), "{error}");
    assert_eq!(first["text"], "\tif x {\n\t\ty();\n\t}");
}

#[test]
fn not_found_with_a_typo_offers_the_nearest_lines_best_first() {
    let ws = Workspace::new();
    let text: String = (1..=9).map(|i| format!("let total_{i} = compute({i});\n")).collect();
    ws.file("calc.rs", &text);
    let error =
        refused_unchanged(&ws, "edit_file", edit("calc.rs", "let totl_5 = compute(5);", "x"), "OLD_STRING_NOT_FOUND");
    let candidates = error["details"]["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 3, "at most 3 candidates: {error}");
    assert_eq!(candidates[0]["line"], 5);
    assert_eq!(candidates[0]["text"], "let total_5 = compute(5);");
    let scores: Vec<f64> = candidates.iter().map(|c| c["similarity"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
    assert!(scores.iter().all(|s| (0.5..=1.0).contains(s)), "{scores:?}");
}

#[test]
fn not_found_with_nothing_similar_has_no_candidates() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let error =
        refused_unchanged(&ws, "edit_file", edit("main.rs", "qqqqqqqqqqqqqqqq zzzzzzzzz", "x"), "OLD_STRING_NOT_FOUND");
    assert_eq!(error["details"]["candidates"], json!([]));
}

#[test]
fn old_string_is_matched_literally_not_as_a_pattern() {
    let ws = Workspace::new();
    ws.file("re.txt", "abc\n");
    refused_unchanged(&ws, "edit_file", edit("re.txt", "a.c", "x"), "OLD_STRING_NOT_FOUND");
    refused_unchanged(&ws, "edit_file", edit("re.txt", "^abc$", "x"), "OLD_STRING_NOT_FOUND");
}

#[test]
fn replace_all_without_any_occurrence_is_not_found() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let args = json!({"path": "main.rs", "old_string": "missing", "new_string": "x", "replace_all": true});
    refused_unchanged(&ws, "edit_file", args, "OLD_STRING_NOT_FOUND");
}

#[test]
fn overlapping_matches_count_as_not_unique() {
    let ws = Workspace::new();
    ws.file("a.txt", "aaa");
    let error = refused_unchanged(&ws, "edit_file", edit("a.txt", "aa", "b"), "OLD_STRING_NOT_UNIQUE");
    assert_eq!(error["details"]["count"], 2);
    assert_eq!(error["details"]["locations"], json!([loc(0, 1, 1), loc(1, 1, 2)]));
}

#[test]
fn not_unique_gives_every_location_with_line_and_character_column() {
    let ws = Workspace::new();
    // "héllo " is 7 bytes but 6 characters: the column counts characters.
    ws.file("u.txt", "héllo x\nx\n  x\n");
    let error = refused_unchanged(&ws, "edit_file", edit("u.txt", "x", "y"), "OLD_STRING_NOT_UNIQUE");
    assert_eq!(error["details"]["count"], 3);
    assert_eq!(error["details"]["locations"], json!([loc(7, 1, 7), loc(9, 2, 1), loc(13, 3, 3)]));
    assert_eq!(error["details"]["path"], "u.txt");
}

#[test]
fn not_unique_counts_every_match_but_lists_twenty() {
    let ws = Workspace::new();
    ws.file("many.txt", "item\n".repeat(25));
    let error = refused_unchanged(&ws, "edit_file", edit("many.txt", "item", "thing"), "OLD_STRING_NOT_UNIQUE");
    assert_eq!(error["details"]["count"], 25);
    let locations = error["details"]["locations"].as_array().unwrap();
    assert_eq!(locations.len(), 20);
    for (i, location) in locations.iter().enumerate() {
        assert_eq!(*location, loc(i * 5, i + 1, 1));
    }
}

#[test]
fn wrong_expected_sha256_is_refused_as_stale_with_both_hashes() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let wrong = sha256_hex(b"what the caller read earlier");
    let args =
        json!({"path": "main.rs", "old_string": "total = 1", "new_string": "total = 2", "expected_sha256": wrong});
    let error = refused_unchanged(&ws, "edit_file", args, "STALE_FILE");
    assert_eq!(error["details"]["expected_sha256"], wrong);
    assert_eq!(error["details"]["actual_sha256"], sha256_hex(SOURCE.as_bytes()));
}

#[test]
fn stale_dry_run_is_refused_too() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let args = json!({"path": "main.rs", "old_string": "total = 1", "new_string": "total = 2",
        "dry_run": true, "expected_sha256": sha256_hex(b"old")});
    refused_unchanged(&ws, "edit_file", args, "STALE_FILE");
}

#[test]
fn multi_edit_refusals_name_the_failing_edit_and_write_nothing() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let ok = json!({"old_string": "fn main", "new_string": "fn start"});
    let cases = [
        (json!({"old_string": "", "new_string": "x"}), "EMPTY_OLD_STRING"),
        (json!({"old_string": "same", "new_string": "same"}), "NO_CHANGE"),
        (json!({"old_string": "not in the file", "new_string": "x"}), "OLD_STRING_NOT_FOUND"),
        (json!({"old_string": "total", "new_string": "sum"}), "OLD_STRING_NOT_UNIQUE"),
    ];
    for (bad, code) in cases {
        let args = json!({"path": "main.rs", "edits": [ok.clone(), bad.clone()]});
        let error = refused_unchanged(&ws, "multi_edit", args, code);
        assert_eq!(error["details"]["edit_index"], 1, "{code}: {error}");
        let args = json!({"path": "main.rs", "edits": [bad, ok.clone()]});
        let error = refused_unchanged(&ws, "multi_edit", args, code);
        assert_eq!(error["details"]["edit_index"], 0, "{code}: {error}");
    }
}

#[test]
fn multi_edit_not_unique_reports_count_and_locations_of_the_failing_edit() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let args = json!({"path": "main.rs", "edits": [
        {"old_string": "fn main", "new_string": "fn start"},
        {"old_string": "total", "new_string": "sum"},
    ]});
    let error = refused_unchanged(&ws, "multi_edit", args, "OLD_STRING_NOT_UNIQUE");
    assert_eq!(error["details"]["count"], 2);
    // Offsets are in the buffer after edit 0 ("fn start" is one byte longer than "fn main").
    assert_eq!(error["details"]["locations"], json!([loc(21, 2, 9), loc(47, 3, 16)]));
}

#[test]
fn multi_edit_later_edit_not_found_because_an_earlier_one_consumed_it() {
    let ws = Workspace::new();
    ws.file("a.txt", "alpha\n");
    let args = json!({"path": "a.txt", "edits": [
        {"old_string": "alpha", "new_string": "beta"},
        {"old_string": "alpha", "new_string": "gamma"},
    ]});
    let error = refused_unchanged(&ws, "multi_edit", args, "OLD_STRING_NOT_FOUND");
    assert_eq!(error["details"]["edit_index"], 1);
}

#[test]
fn multi_edit_stale_is_refused_after_all_edits_apply_in_memory() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let wrong = sha256_hex(b"older");
    let args = json!({"path": "main.rs", "expected_sha256": wrong, "edits": [
        {"old_string": "fn main", "new_string": "fn start"},
        {"old_string": "= 1", "new_string": "= 2"},
    ]});
    let error = refused_unchanged(&ws, "multi_edit", args, "STALE_FILE");
    assert_eq!(error["details"]["expected_sha256"], wrong);
    assert_eq!(error["details"]["actual_sha256"], sha256_hex(SOURCE.as_bytes()));
}

#[test]
fn multi_edit_with_no_edits_is_invalid_args() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    refused_unchanged(&ws, "multi_edit", json!({"path": "main.rs", "edits": []}), "INVALID_ARGS");
}

/// DESIGN.md: EMPTY_OLD_STRING, NO_CHANGE, FILE_NOT_FOUND / NOT_A_FILE / BINARY_FILE /
/// TOO_LARGE, OLD_STRING_NOT_FOUND, OLD_STRING_NOT_UNIQUE, STALE_FILE.
#[test]
fn refusals_come_in_the_documented_order() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    ws.file("blob.bin", b"bin\0ary");
    std::fs::create_dir(ws.path("dir")).unwrap();
    let stale = sha256_hex(b"stale");
    let with = |path: &str, old: &str, new: &str, sha: Option<&str>| {
        let mut args = edit(path, old, new);
        if let Some(sha) = sha {
            args["expected_sha256"] = json!(sha);
        }
        args
    };
    let cases = [
        (with("missing.txt", "", "x", None), "EMPTY_OLD_STRING"),
        (with("blob.bin", "", "x", Some(&stale)), "EMPTY_OLD_STRING"),
        (with("missing.txt", "same", "same", None), "NO_CHANGE"),
        (with("blob.bin", "bin", "bin", None), "NO_CHANGE"),
        (with("dir", "x", "x", None), "NO_CHANGE"),
        (with("missing.txt", "a", "b", Some(&stale)), "FILE_NOT_FOUND"),
        (with("dir", "a", "b", Some(&stale)), "NOT_A_FILE"),
        (with("blob.bin", "nowhere", "b", Some(&stale)), "BINARY_FILE"),
        (with("main.rs", "nowhere", "b", Some(&stale)), "OLD_STRING_NOT_FOUND"),
        (with("main.rs", "total", "sum", Some(&stale)), "OLD_STRING_NOT_UNIQUE"),
        (with("main.rs", "fn main", "fn start", Some(&stale)), "STALE_FILE"),
    ];
    for (args, code) in cases {
        refused_unchanged(&ws, "edit_file", args, code);
    }
    // Argument checks cover every edit of a multi_edit before the file is looked at.
    let args = json!({"path": "missing.txt", "edits": [
        {"old_string": "a", "new_string": "b"},
        {"old_string": "", "new_string": "c"},
    ]});
    let error = refused_unchanged(&ws, "multi_edit", args, "EMPTY_OLD_STRING");
    assert_eq!(error["details"]["edit_index"], 1);
}

#[test]
fn write_file_with_a_wrong_expected_sha256_is_stale_and_writes_nothing() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let wrong = sha256_hex(b"not it");
    let args = json!({"path": "main.rs", "content": "replaced\n", "expected_sha256": wrong});
    let error = refused_unchanged(&ws, "write_file", args, "STALE_FILE");
    assert_eq!(error["details"]["expected_sha256"], wrong);
    assert_eq!(error["details"]["actual_sha256"], sha256_hex(SOURCE.as_bytes()));
}

#[test]
fn write_file_stale_on_a_new_path_creates_neither_file_nor_directories() {
    let ws = Workspace::new();
    let args = json!({"path": "new/dir/f.txt", "content": "x", "expected_sha256": sha256_hex(b"x")});
    refused_unchanged(&ws, "write_file", args, "STALE_FILE");
}

#[test]
fn read_file_offset_past_the_end_is_invalid_args() {
    let ws = Workspace::new();
    ws.file("three.txt", "1\n2\n3\n");
    let error = refused_unchanged(&ws, "read_file", json!({"path": "three.txt", "offset": 5}), "INVALID_ARGS");
    assert!(error["message"].as_str().unwrap().contains("3 lines"), "{error}");
    refused_unchanged(&ws, "read_file", json!({"path": "three.txt", "offset": 0}), "INVALID_ARGS");
    refused_unchanged(&ws, "read_file", json!({"path": "three.txt", "limit": 0}), "INVALID_ARGS");
}

#[test]
fn unknown_argument_is_invalid_args_naming_it() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let mut args = edit("main.rs", "fn main", "fn start");
    args["replace_al"] = json!(true);
    let error = refused_unchanged(&ws, "edit_file", args, "INVALID_ARGS");
    assert!(error["message"].as_str().unwrap().contains("`replace_al`"), "{error}");
    let args = json!({"path": "main.rs", "edits": [{"old_string": "fn main", "new_string": "x", "replace": true}]});
    let error = refused_unchanged(&ws, "multi_edit", args, "INVALID_ARGS");
    assert!(error["message"].as_str().unwrap().contains("`edits[0].replace`"), "{error}");
}

#[test]
fn missing_or_mistyped_argument_is_invalid_args_naming_it() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let error = refused_unchanged(&ws, "edit_file", json!({"path": "main.rs", "old_string": "fn"}), "INVALID_ARGS");
    assert!(error["message"].as_str().unwrap().contains("`new_string`"), "{error}");
    let args = json!({"path": "main.rs", "old_string": "fn", "new_string": 7});
    let error = refused_unchanged(&ws, "edit_file", args, "INVALID_ARGS");
    assert!(error["message"].as_str().unwrap().contains("`new_string`"), "{error}");
}

#[test]
fn arguments_that_are_not_a_json_object_are_invalid_args() {
    let ws = Workspace::new();
    ws.file("main.rs", SOURCE);
    let before = ws.snapshot();
    for text in ["{not json", "[1,2]", "\"main.rs\""] {
        let (status, out) = crate::common::rein_json(&ws, &["call", "edit_file", text]);
        assert_refusal(status, &out, "INVALID_ARGS", text);
    }
    before.assert_unchanged("malformed arguments");
}

#[test]
fn unknown_tool_is_tool_not_found_with_exit_status_2() {
    let ws = Workspace::new();
    let error = refused_unchanged(&ws, "edit_fiel", json!({"path": "x"}), "TOOL_NOT_FOUND");
    assert!(error["details"]["available"].as_array().unwrap().contains(&json!("edit_file")), "{error}");
}
