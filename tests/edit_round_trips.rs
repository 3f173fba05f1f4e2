//! Successful edits through the CLI: the bytes on disk are exactly what was asked for, and
//! everything not asked for (line endings, BOM, final newline, mode, symlinks) is kept.

#[cfg(unix)]
use std::os::unix::fs::{symlink, PermissionsExt};

use crate::common::{sha256_hex, Workspace};
use serde_json::{json, Value};

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"path": path, "old_string": old, "new_string": new})
}

fn loc(offset: usize, line: usize, column: usize) -> Value {
    json!({"offset": offset, "line": line, "column": column})
}

#[test]
fn crlf_file_edited_with_lf_arguments_stays_pure_crlf() {
    let ws = Workspace::new();
    ws.file("win.ets", "// top\r\nfn a() {\r\n    1\r\n}\r\n");
    let result = ws.ok("edit_file", &edit("win.ets", "{\n    1\n}", "{\n    2\n    3\n}"));
    let after = ws.read("win.ets");
    assert_eq!(after, b"// top\r\nfn a() {\r\n    2\r\n    3\r\n}\r\n");
    assert!(
        after.iter().enumerate().all(|(i, &b)| b != b'\n' || (i > 0 && after[i - 1] == b'\r')),
        "a bare LF slipped in"
    );
    assert_eq!(result["locations"], json!([loc(15, 2, 8)]));
    assert_eq!(
        result["diff"],
        "--- a/win.ets\n+++ b/win.ets\n@@ -1,4 +1,5 @@\n // top\n fn a() {\n-    1\n+    2\n+    3\n }\n"
    );
}

#[test]
fn crlf_file_edited_with_crlf_arguments_is_unchanged_elsewhere() {
    let ws = Workspace::new();
    ws.file("win.txt", "a\r\nb\r\nc\r\n");
    ws.ok("edit_file", &edit("win.txt", "a\r\nb", "b\r\na"));
    assert_eq!(ws.read("win.txt"), b"b\r\na\r\nc\r\n");
}

#[test]
fn lf_file_stays_lf() {
    let ws = Workspace::new();
    ws.file("unix.txt", "one\ntwo\nthree\n");
    ws.ok("edit_file", &edit("unix.txt", "two\n", "2\n2b\n"));
    assert_eq!(ws.read("unix.txt"), b"one\n2\n2b\nthree\n");
}

#[test]
fn utf8_bom_is_kept_and_counted_in_offsets_only() {
    let ws = Workspace::new();
    ws.file("bom.json5", "\u{feff}{\n  name: 'old'\n}\n");
    let result = ws.ok("edit_file", &edit("bom.json5", "'old'", "'new'"));
    assert_eq!(ws.read("bom.json5"), "\u{feff}{\n  name: 'new'\n}\n".as_bytes());
    assert_eq!(result["locations"], json!([loc(13, 2, 9)]));
    // The first character after the BOM is column 1.
    let result = ws.ok("edit_file", &edit("bom.json5", "{\n", "{ // config\n"));
    assert_eq!(result["locations"], json!([loc(3, 1, 1)]));
    assert!(ws.read("bom.json5").starts_with(b"\xEF\xBB\xBF{ // config\n"));
}

#[test]
fn missing_final_newline_stays_missing() {
    let ws = Workspace::new();
    ws.file("last.txt", "a\nlast");
    ws.ok("edit_file", &edit("last.txt", "last", "end"));
    assert_eq!(ws.read("last.txt"), b"a\nend");
    ws.file("last_crlf.txt", "a\r\nb\r\nlast");
    ws.ok("edit_file", &edit("last_crlf.txt", "b\nlast", "c\nend"));
    assert_eq!(ws.read("last_crlf.txt"), b"a\r\nc\r\nend");
}

#[test]
fn final_newline_is_kept_when_editing_the_last_line() {
    let ws = Workspace::new();
    ws.file("nl.txt", "a\nb\n");
    ws.ok("edit_file", &edit("nl.txt", "b", "B"));
    assert_eq!(ws.read("nl.txt"), b"a\nB\n");
}

// Unix modes; what Windows keeps (attributes, read-only) is checked by kernel::files::write's tests.
#[cfg(unix)]
#[test]
fn file_mode_is_kept() {
    let ws = Workspace::new();
    for mode in [0o755, 0o600, 0o640] {
        let path = ws.file("build.sh", "#!/bin/sh\necho old\n");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        ws.ok("edit_file", &edit("build.sh", "echo old", "echo new"));
        assert_eq!(ws.read("build.sh"), b"#!/bin/sh\necho new\n");
        let after = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(after, mode, "mode {mode:o} after edit_file");
        ws.ok("write_file", &json!({"path": "build.sh", "content": "#!/bin/sh\n"}));
        let after = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(after, mode, "mode {mode:o} after write_file");
    }
}

#[test]
fn replacement_text_is_written_verbatim() {
    let ws = Workspace::new();
    ws.file("r.txt", "value = X;\nother = .;\n");
    let literal = r"$& \1 $1 ${x} $$ \\ \n";
    ws.ok("edit_file", &edit("r.txt", "X", literal));
    ws.ok("edit_file", &edit("r.txt", ".", "$0"));
    assert_eq!(ws.read("r.txt"), format!("value = {literal};\nother = $0;\n").as_bytes());
}

#[test]
fn replace_all_replaces_every_occurrence_and_counts_them() {
    let ws = Workspace::new();
    ws.file("items.txt", "item\n".repeat(30));
    let args = json!({"path": "items.txt", "old_string": "item", "new_string": "thing", "replace_all": true});
    let result = ws.ok("edit_file", &args);
    assert_eq!(ws.read("items.txt"), "thing\n".repeat(30).as_bytes());
    assert_eq!(result["replacements"], 30);
    let locations = result["locations"].as_array().unwrap();
    assert_eq!(locations.len(), 20);
    assert_eq!(locations[19], loc(95, 20, 1));
}

#[test]
fn replace_all_does_not_overlap() {
    let ws = Workspace::new();
    ws.file("a.txt", "aaaaa");
    let args = json!({"path": "a.txt", "old_string": "aa", "new_string": "b", "replace_all": true});
    let result = ws.ok("edit_file", &args);
    assert_eq!(ws.read("a.txt"), b"bba");
    assert_eq!(result["replacements"], 2);
}

#[test]
fn dry_run_writes_nothing_but_returns_the_diff() {
    let ws = Workspace::new();
    let original = "one\ntwo\nthree\n";
    ws.file("d.txt", original);
    let before = ws.snapshot();
    let args = json!({"path": "d.txt", "old_string": "two", "new_string": "TWO", "dry_run": true});
    let result = ws.ok("edit_file", &args);
    before.assert_unchanged("dry run");
    assert_eq!(result["dry_run"], true);
    assert_eq!(result["replacements"], 1);
    assert_eq!(result["diff"], "--- a/d.txt\n+++ b/d.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
    assert_eq!(result["sha256_before"], sha256_hex(original.as_bytes()));
    assert_eq!(result["sha256_after"], sha256_hex(b"one\nTWO\nthree\n"));
    let args = json!({"path": "d.txt", "dry_run": true, "edits": [{"old_string": "one", "new_string": "1"}, {"old_string": "1\n", "new_string": ""}]});
    let result = ws.ok("multi_edit", &args);
    before.assert_unchanged("multi_edit dry run");
    assert_eq!(result["sha256_after"], sha256_hex(b"two\nthree\n"));
}

#[test]
fn success_reports_counts_locations_hashes_and_diff_of_the_real_file() {
    let ws = Workspace::new();
    let lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    ws.file("ten.txt", &lines);
    let read = ws.ok("read_file", &json!({"path": "ten.txt"}));
    assert_eq!(read["sha256"], sha256_hex(lines.as_bytes()));
    let mut args = edit("ten.txt", "line 5\n", "line five\n");
    args["expected_sha256"] = read["sha256"].clone();
    let result = ws.ok("edit_file", &args);
    let after = ws.read("ten.txt");
    assert_eq!(after, lines.replace("line 5\n", "line five\n").as_bytes());
    assert_eq!(result["path"], "ten.txt");
    assert_eq!(result["replacements"], 1);
    assert_eq!(result["locations"], json!([loc(28, 5, 1)]));
    assert_eq!(result["sha256_before"], sha256_hex(lines.as_bytes()));
    assert_eq!(result["sha256_after"], sha256_hex(&after));
    assert_eq!(result["dry_run"], false);
    assert_eq!(
        result["diff"],
        "--- a/ten.txt\n+++ b/ten.txt\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n"
    );
    assert_eq!(ws.ok("read_file", &json!({"path": "ten.txt"}))["sha256"], result["sha256_after"]);
}

#[test]
fn write_file_creates_then_replaces_and_reports_the_real_hash() {
    let ws = Workspace::new();
    let created = ws.ok("write_file", &json!({"path": "deep/new/file.txt", "content": "hello\n"}));
    assert_eq!(created["created"], true);
    assert_eq!(created["bytes"], 6);
    assert_eq!(ws.read("deep/new/file.txt"), b"hello\n");
    assert_eq!(created["sha256"], sha256_hex(b"hello\n"));
    let args = json!({"path": "deep/new/file.txt", "content": "bye\n", "expected_sha256": created["sha256"]});
    let replaced = ws.ok("write_file", &args);
    assert_eq!(replaced["created"], false);
    assert_eq!(ws.read("deep/new/file.txt"), b"bye\n");
    assert_eq!(replaced["sha256"], sha256_hex(b"bye\n"));
    assert!(crate::common::temp_debris(&ws.path("deep/new")).is_empty());
}

#[test]
fn read_file_numbers_lines_and_pages() {
    let ws = Workspace::new();
    let text: String = (1..=10).map(|i| format!("l{i}\n")).collect();
    ws.file("p.txt", &text);
    let page = ws.ok("read_file", &json!({"path": "p.txt", "offset": 4, "limit": 3}));
    assert_eq!(page["content"], "     4\tl4\n     5\tl5\n     6\tl6");
    assert_eq!(
        (page["total_lines"].clone(), page["start_line"].clone(), page["end_line"].clone()),
        (json!(10), json!(4), json!(6))
    );
    assert_eq!(page["truncated"], true);
    assert_eq!(page["sha256"], sha256_hex(text.as_bytes()));
}

// Symlinks: Wine 8 cannot make them (CreateSymbolicLinkW is a stub), and Windows needs developer mode or an administrator for them.
#[cfg(unix)]
#[test]
fn editing_through_a_symlink_changes_the_target_and_keeps_the_link() {
    let ws = Workspace::new();
    ws.file("src/real.txt", "value = 1\n");
    symlink("src/real.txt", ws.path("relative_link.txt")).unwrap();
    symlink(ws.path("src/real.txt"), ws.path("absolute_link.txt")).unwrap();
    ws.ok("edit_file", &edit("relative_link.txt", "value = 1", "value = 2"));
    ws.ok("edit_file", &edit("absolute_link.txt", "value = 2", "value = 3"));
    assert_eq!(ws.read("src/real.txt"), b"value = 3\n");
    for (link, target) in [("relative_link.txt", "src/real.txt".into()), ("absolute_link.txt", ws.path("src/real.txt"))]
    {
        let meta = std::fs::symlink_metadata(ws.path(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} is no longer a symlink");
        assert_eq!(std::fs::read_link(ws.path(link)).unwrap(), target);
    }
    ws.ok("write_file", &json!({"path": "relative_link.txt", "content": "written\n"}));
    assert_eq!(ws.read("src/real.txt"), b"written\n");
    assert!(std::fs::symlink_metadata(ws.path("relative_link.txt")).unwrap().file_type().is_symlink());
}

// Symlinks: Wine 8 cannot make them (CreateSymbolicLinkW is a stub), and Windows needs developer mode or an administrator for them.
#[cfg(unix)]
#[test]
fn editing_through_a_symlinked_directory_changes_the_file_inside() {
    let ws = Workspace::new();
    ws.file("pkg/v1/conf.txt", "debug = false\n");
    symlink("pkg/v1", ws.path("current")).unwrap();
    ws.ok("edit_file", &edit("current/conf.txt", "false", "true"));
    assert_eq!(ws.read("pkg/v1/conf.txt"), b"debug = true\n");
    assert!(std::fs::symlink_metadata(ws.path("current")).unwrap().file_type().is_symlink());
}

#[test]
fn multi_edit_applies_in_order_each_edit_seeing_the_previous_result() {
    let ws = Workspace::new();
    ws.file("m.txt", "alpha\nend\n");
    let args = json!({"path": "m.txt", "edits": [
        {"old_string": "alpha", "new_string": "beta"},
        {"old_string": "beta\n", "new_string": "gamma\ndelta\n"},
        {"old_string": "a\n", "new_string": "A\n", "replace_all": true},
    ]});
    let result = ws.ok("multi_edit", &args);
    assert_eq!(ws.read("m.txt"), b"gammA\ndeltA\nend\n");
    assert_eq!(result["replacements"], 4);
    let reports = result["edits"].as_array().unwrap();
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[1]["locations"], json!([loc(0, 1, 1)]));
    assert_eq!(reports[2]["replacements"], 2);
    assert_eq!(reports[2]["locations"], json!([loc(4, 1, 5), loc(10, 2, 5)]));
    assert_eq!(result["sha256_after"], sha256_hex(&ws.read("m.txt")));
}

#[test]
fn multi_edit_is_all_or_nothing() {
    let ws = Workspace::new();
    ws.file("m.txt", "one\ntwo\nthree\n");
    let before = ws.snapshot();
    let args = json!({"path": "m.txt", "edits": [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "two", "new_string": "2"},
        {"old_string": "four", "new_string": "4"},
    ]});
    let error = ws.refused("multi_edit", &args, "OLD_STRING_NOT_FOUND");
    assert_eq!(error["details"]["edit_index"], 2);
    before.assert_unchanged("multi_edit with a failing third edit");
    let args = json!({"path": "m.txt", "edits": [
        {"old_string": "one", "new_string": "1"},
        {"old_string": "two", "new_string": "2"},
    ]});
    ws.ok("multi_edit", &args);
    assert_eq!(ws.read("m.txt"), b"1\n2\nthree\n");
}

#[test]
fn multibyte_text_is_replaced_exactly() {
    let ws = Workspace::new();
    ws.file("i18n.json", "{\"title\": \"你好，世界\", \"emoji\": \"🙂\"}\n");
    let result = ws.ok("edit_file", &edit("i18n.json", "世界", "鸿蒙"));
    ws.ok("edit_file", &edit("i18n.json", "🙂", "🚀"));
    assert_eq!(ws.read("i18n.json"), "{\"title\": \"你好，鸿蒙\", \"emoji\": \"🚀\"}\n".as_bytes());
    // Column counts characters: `{"title": "你好，` is 14 characters, 20 bytes.
    assert_eq!(result["locations"], json!([loc(20, 1, 15)]));
}

#[test]
fn arguments_from_stdin_edit_the_same_way() {
    let ws = Workspace::new();
    ws.file("s.txt", "from stdin? no\n");
    let (code, out) = ws.call_stdin("edit_file", &edit("s.txt", "no", "yes"));
    assert_eq!(code, 0, "{out}");
    assert_eq!(ws.read("s.txt"), b"from stdin? yes\n");
}

/// A big file (copied in the kernel under its lease, hashed on a thread of its own, the new
/// hash resumed from the old one's state before the change) and a small one (read and written
/// whole): the answer's hashes are those of the bytes before and of the bytes left on disk,
/// wherever the change is.
#[test]
fn reported_hashes_are_the_files_before_and_after_wherever_the_change_is_big_file_or_small() {
    let ws = Workspace::new();
    let line = "the quick brown fox jumps over the lazy dog\n";
    for (name, lines) in [("big.txt", (3 << 20) / line.len()), ("small.txt", 1000)] {
        let mut text = line.repeat(lines);
        // Marks at the start, past the first MiB's state, in the middle, and on the last line.
        text.insert_str(0, "START\n");
        text.insert_str(text.len() / 2, "MIDDLE\n");
        text.insert_str((text.len() / 3).min(1 << 20) + 3, "\nPAST_A_MIB\n");
        text.push_str("END\n");
        ws.file(name, &text);
        let cases = [
            edit(name, "START\n", "start, longer\n"),
            edit(name, "\nPAST_A_MIB\n", "\n"),
            edit(name, "MIDDLE", "middle"),
            edit(name, "END\n", "END"),
            json!({"path": name, "old_string": "lazy", "new_string": "idle", "replace_all": true}),
        ];
        for args in cases {
            let before = ws.read(name);
            let result = ws.ok("edit_file", &args);
            let after = ws.read(name);
            assert_ne!(after, before, "{name} {args}");
            assert_eq!(result["sha256_before"], sha256_hex(&before), "{name} {args}");
            assert_eq!(result["sha256_after"], sha256_hex(&after), "{name} {args}");
        }
    }
}
