//! `---@meta` stubs of the prelude modules shipped in the binary (`harmony.hdc`, …), read
//! from their source: each public `function M.name(...)` and field `M.name = ...` with the
//! comment block above it (`---@param` and `---@return` lines kept as written).

/// A stub for module `name` (`harmony.hdc`) from its Lua source.
pub fn module_stub(name: &str, source: &str) -> String {
    let mut out = format!("---@meta {name}\n");
    let mut lines = source.lines().peekable();
    let mut header = Vec::new();
    while let Some(line) = lines.peek() {
        match line.strip_prefix("--") {
            Some(text) if !line.starts_with("---@") => header.push(doc_text(text)),
            _ => break,
        }
        lines.next();
    }
    for text in &header {
        out.push_str(&format!("---{text}\n"));
    }
    out.push_str(&format!("---@class {name}\nlocal M = {{}}\n"));
    let mut doc: Vec<String> = Vec::new();
    let rest: Vec<&str> = lines.collect();
    for (i, line) in rest.iter().enumerate() {
        if let Some(text) = line.strip_prefix("--") {
            doc.push(if text.starts_with("-@") { text.to_string() } else { doc_text(text) });
            continue;
        }
        if let Some(declared) = declaration(line) {
            out.push('\n');
            for text in &doc {
                out.push_str(&format!("---{}\n", text.trim_start_matches('-')));
            }
            // Without a `---@return`, an editor would take the stub's empty body to return
            // nothing; say how many values the real body returns instead.
            let one_line = line.trim_end().ends_with(" end");
            if declared.starts_with("function") && !one_line && !doc.iter().any(|d| d.starts_with("-@return")) {
                for _ in 0..returned_values(&rest[i + 1..]) {
                    out.push_str("---@return any\n");
                }
            }
            out.push_str(&declared);
            out.push('\n');
        }
        doc.clear();
    }
    out.push_str("\nreturn M\n");
    out
}

/// The most values any `return` of a top-level function body returns: the body is the lines
/// up to the first `end` in the first column.
fn returned_values(body: &[&str]) -> usize {
    let mut most = 0;
    for line in body.iter().take_while(|l| !l.starts_with("end")) {
        let Some(values) = line.trim_start().strip_prefix("return ") else { continue };
        let mut depth = 0i32;
        let mut count = 1;
        for c in values.chars() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                ',' if depth == 0 => count += 1,
                _ => {}
            }
        }
        most = most.max(count);
    }
    most
}

/// The text of a `-- text` or `--- text` comment, as a `---` doc line shows it.
fn doc_text(text: &str) -> String {
    let text = text.trim_start_matches('-');
    if text.is_empty() {
        String::new()
    } else {
        format!(" {}", text.trim_start())
    }
}

/// `function M.name(a, b) end` or `M.name = <empty value of its kind>` for a public
/// top-level definition.
fn declaration(line: &str) -> Option<String> {
    if let Some(rest) = line.strip_prefix("function M.").or_else(|| line.strip_prefix("function M:")) {
        let (name, params) = rest.split_once('(')?;
        let params = params.split_once(')')?.0;
        let sep = if line.starts_with("function M:") { ":" } else { "." };
        return Some(format!("function M{sep}{name}({params}) end"));
    }
    let rest = line.strip_prefix("M.")?;
    let (name, value) = rest.split_once('=')?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let value = value.trim_start();
    let empty = if value.starts_with('{') {
        "{}".to_string()
    } else if value.starts_with('"') || value.starts_with('\'') || value.starts_with("[[") {
        "\"\"".to_string()
    } else if value.starts_with(|c: char| c.is_ascii_digit()) {
        "0".to_string()
    } else if let Some(params) = value.strip_prefix("function(") {
        return Some(format!("function M.{name}({}) end", params.split_once(')')?.0));
    } else {
        "nil".to_string()
    };
    Some(format!("M.{name} = {empty}"))
}

/// `prelude/harmony/hdc.lua` → `harmony.hdc`; `prelude/kit/init.lua` → `kit`.
pub fn module_name(rel: &str) -> Option<String> {
    let stem = rel.strip_prefix("prelude/")?.strip_suffix(".lua")?;
    let stem = stem.strip_suffix("/init").unwrap_or(stem);
    Some(stem.replace('/', "."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_and_fields_keep_their_comments() {
        let source = "-- Helpers.\nlocal x = require(\"a\")\nlocal M = {}\n\n-- One line.\n---@param s string\n\
                      function M.trim(s)\n  return s\nend\n\nlocal function hidden() end\n\nM.table = {\n  a = 1,\n}\n\
                      M.go = function(a, b) end\nfunction M.two(t)\n  if t then\n    return f(t, 1), { a, b }\n  end\nend\nreturn M\n";
        let stub = module_stub("harmony.text", source);
        assert_eq!(
            stub,
            "---@meta harmony.text\n--- Helpers.\n---@class harmony.text\nlocal M = {}\n\n--- One line.\n\
             ---@param s string\n---@return any\nfunction M.trim(s) end\n\nM.table = {}\n\nfunction M.go(a, b) end\n\n\
             ---@return any\n---@return any\nfunction M.two(t) end\n\nreturn M\n"
        );
    }

    #[test]
    fn module_names_follow_require() {
        assert_eq!(module_name("prelude/harmony/hdc.lua").as_deref(), Some("harmony.hdc"));
        assert_eq!(module_name("prelude/kit/init.lua").as_deref(), Some("kit"));
        assert_eq!(module_name("tools/x.lua"), None);
    }
}
