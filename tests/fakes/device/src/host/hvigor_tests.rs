//! The fake compiler's view of a module's `src/ohosTest`: the test runner (the file in
//! `ets/testrunner/`, which `aa test -s unittest <name>` names) and the cases its
//! `ets/test/*.test.ets` files declare with Hypium's `describe('<suite>', …)` and
//! `it('<test>', <filter>, …)` — nested describes joined with `.` as Hypium's
//! `setCurrentRunningSuiteDesc` does (shared/HARMONY-VERIFY.md §1.3, §5). The device runs what
//! this records (`aa_test.rs`).

use std::path::Path;

use regex::Regex;
use serde_json::{json, Value};

/// `{"testRunner": <name>, "tests": [{suite, test, file, line, level?, size?, testType?}]}` for
/// the module at `src` (a folder holding `src/ohosTest`); `file` is relative to `root`.
pub fn code(root: &Path, src: &Path) -> Value {
    let ets = src.join("src").join("ohosTest").join("ets");
    let runner = files(&ets.join("testrunner"))
        .into_iter()
        .find_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()));
    let mut tests = Vec::new();
    for file in files(&ets.join("test")) {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !name.ends_with(".test.ets") || name == "List.test.ets" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let shown = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        tests.extend(declared(&text, &shown));
    }
    let mut code = json!({"tests": tests});
    if let Some(runner) = runner {
        code["testRunner"] = json!(runner);
    }
    code
}

/// The cases the module at `src` declares in `src/test/*.test.ets` (its local unit tests, which
/// `hvigorw test` runs: shared/HARMONY-VERIFY.md §2), as [`code`] lists them.
pub fn local_cases(root: &Path, src: &Path) -> Vec<Value> {
    let mut tests = Vec::new();
    for file in files(&src.join("src").join("test")) {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !name.ends_with(".test.ets") || name == "List.test.ets" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let shown = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        tests.extend(declared(&text, &shown));
    }
    tests
}

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut list: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    list.retain(|p| p.extension().is_some_and(|e| e == "ets"));
    list.sort();
    list
}

/// The cases `text` declares, in order, with their suite path.
fn declared(text: &str, file: &str) -> Vec<Value> {
    let call = Regex::new(r#"\b(describe|it)\(\s*['"]([^'"]*)['"]\s*,([^,{]*)"#).expect("a valid pattern");
    let level = Regex::new(r"Level\.LEVEL([0-4])").expect("a valid pattern");
    let size = Regex::new(r"Size\.(SMALL|MEDIUM|LARGE)TEST").expect("a valid pattern");
    let kind = Regex::new(r"TestType\.([A-Z]+)").expect("a valid pattern");
    // (suite name, the brace depth its body opens at)
    let mut suites: Vec<(String, usize)> = Vec::new();
    let mut found = Vec::new();
    let mut depth = 0usize;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let calls: Vec<_> = call.captures_iter(line).collect();
        let mut at = 0;
        for c in &calls {
            let start = c.get(0).expect("the match").start();
            depth = track(&line[at..start], depth, &mut suites);
            at = start;
            match &c[1] {
                "describe" => suites.push((c[2].to_string(), depth + 1)),
                _ => {
                    let suite: Vec<&str> = suites.iter().map(|(s, _)| s.as_str()).collect();
                    let filter = &c[3];
                    let mut case = json!({"suite": suite.join("."), "test": &c[2], "file": file, "line": n + 1});
                    if let Some(l) = level.captures(filter) {
                        case["level"] = json!(&l[1]);
                    }
                    if let Some(s) = size.captures(filter) {
                        case["size"] = json!(s[1].to_ascii_lowercase());
                    }
                    if let Some(t) = kind.captures(filter) {
                        case["testType"] = json!(t[1].to_ascii_lowercase());
                    }
                    found.push(case);
                }
            }
        }
        depth = track(&line[at..], depth, &mut suites);
    }
    found
}

/// The brace depth after `chunk`; a suite ends when the depth falls below its body's.
fn track(chunk: &str, mut depth: usize, suites: &mut Vec<(String, usize)>) -> usize {
    for ch in chunk.chars() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                while suites.last().is_some_and(|(_, opened)| depth < *opened) {
                    suites.pop();
                }
            }
            _ => {}
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_describes_join_with_a_dot_and_filters_are_read() {
        let text = "export default function t() {\n  describe('outer', () => {\n    it('a', 0, () => {\n    })\n    describe('inner', () => {\n      it('b', Level.LEVEL2 | Size.SMALLTEST | TestType.FUNCTION, () => { expect(1).assertEqual(1) })\n    })\n    it('c', 0, () => {})\n  })\n  describe('next', () => { it('d', 0, () => {}) })\n}\n";
        let cases = declared(text, "x.test.ets");
        let names: Vec<String> =
            cases.iter().map(|c| format!("{}#{}", c["suite"].as_str().unwrap(), c["test"].as_str().unwrap())).collect();
        assert_eq!(names, ["outer#a", "outer.inner#b", "outer#c", "next#d"]);
        assert_eq!(cases[1]["level"], "2");
        assert_eq!(cases[1]["size"], "small");
        assert_eq!(cases[1]["testType"], "function");
        assert_eq!(cases[1]["line"], 6);
    }
}
