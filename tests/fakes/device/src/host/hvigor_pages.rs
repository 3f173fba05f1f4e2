//! What the fake hvigorw "compiles" of the project's pages: each page the module's
//! `main_pages.json` lists (`"pages": "$profile:main_pages"` in module.json5, `{"src":
//! ["pages/Index", …]}`: shared/HARMONY-VERIFY.md §5, the DevEco "Empty Ability" template) is
//! read from `src/main/ets/<page>.ets` into the widgets its `build()` shows, in source order, so
//! the fake device's screen and UI tree show what the project's code says
//! (tests/fakes/README.md "Pages").
//!
//! Read of ArkTS (a fake compiler, not ArkTS): the `@State name: type = value` fields of the
//! page's struct (a number or a string literal), and each `Text(…)`, `Button(…)`,
//! `TextInput({ placeholder: '…' })` call in `build()` with its chained `.id('…')` (or
//! `.key('…')`), `.type(InputType.Password)` and `.onClick(() => { … })`. A text is a string literal, `this.<field>` or a
//! template literal with `${this.<field>}`; an onClick body does any of `this.f++`,
//! `this.f--`, `this.f += N`, `this.f = <literal>`, `router.pushUrl({ url: 'pages/X' })`
//! (or `…getRouter().pushUrl(…)`) and `router.back()`.

use std::path::Path;

use regex::Regex;
use serde_json::{json, Map, Value};

use super::json5;

const COMPONENTS: &str = r"\b(Text|Button|TextInput)\s*\(";

/// `{"pages/Index": {"state": {…}, "widgets": […]}, …}` of the module at `src`, in the order
/// main_pages.json lists them, plus `"main"`: the first page. `Null` when the module has none.
pub fn pages(module: &Value, src: &Path) -> Value {
    let Some(list) = page_list(module, src) else { return Value::Null };
    let mut pages = Map::new();
    for page in &list {
        let Ok(text) = std::fs::read_to_string(src.join("src/main/ets").join(format!("{page}.ets"))) else {
            continue;
        };
        pages.insert(page.clone(), page_of(&text));
    }
    json!({"main": list.first(), "pages": pages})
}

fn page_list(module: &Value, src: &Path) -> Option<Vec<String>> {
    let profile = module.get("pages")?.as_str()?.strip_prefix("$profile:")?;
    let path = src.join("src/main/resources/base/profile").join(format!("{profile}.json"));
    let doc = json5::parse(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(doc.get("src")?.as_array()?.iter().filter_map(|p| p.as_str().map(String::from)).collect())
}

/// One page's fields and widgets.
pub fn page_of(text: &str) -> Value {
    let field = Regex::new(r#"@State\s+(\w+)\s*(?::\s*\w+)?\s*=\s*('[^']*'|"[^"]*"|-?\d+)"#).expect("a valid pattern");
    let mut state = Map::new();
    for c in field.captures_iter(text) {
        state.insert(c[1].to_string(), literal(&c[2]));
    }
    let body = text.find("build()").map(|at| &text[at..]).unwrap_or("");
    let component = Regex::new(COMPONENTS).expect("a valid pattern");
    let starts: Vec<(usize, usize, String)> = component
        .captures_iter(body)
        .map(|c| {
            let whole = c.get(0).expect("the match");
            (whole.start(), whole.end(), c[1].to_string())
        })
        .collect();
    let mut widgets = Vec::new();
    for (n, (_, open, kind)) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map(|s| s.0).unwrap_or(body.len());
        let Some(args) = balanced(body, open - 1) else { continue };
        let chain = &body[(open + args.len() + 1).min(end)..end];
        widgets.push(widget(kind, args, chain));
    }
    json!({"state": state, "widgets": widgets})
}

fn literal(text: &str) -> Value {
    let t = text.trim();
    if let Some(s) = t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return json!(s);
    }
    if let Some(s) = t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return json!(s);
    }
    t.parse::<i64>().map(|n| json!(n)).unwrap_or(json!(t))
}

/// The text inside the parentheses opening at `open`, without them.
fn balanced(text: &str, open: usize) -> Option<&str> {
    let mut depth = 0i64;
    for (i, c) in text[open..].char_indices() {
        depth += match c {
            '(' | '{' | '[' => 1,
            ')' | '}' | ']' => -1,
            _ => 0,
        };
        if depth == 0 {
            return Some(&text[open + 1..open + i]);
        }
    }
    None
}

/// A text argument as a template the device renders: a literal as is, `this.f` and
/// `${this.f}` as `${f}`.
fn template(arg: &str) -> String {
    let arg = arg.trim();
    if let Some(field) = arg.strip_prefix("this.").filter(|f| f.chars().all(|c| c.is_alphanumeric() || c == '_')) {
        return format!("${{{field}}}");
    }
    if let Some(inner) = arg.strip_prefix('`').and_then(|s| s.strip_suffix('`')) {
        return inner.replace("${this.", "${");
    }
    match literal(arg) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

fn widget(kind: &str, args: &str, chain: &str) -> Value {
    let mut w = json!({"type": kind});
    if kind == "TextInput" {
        let placeholder = Regex::new(r#"placeholder\s*:\s*('[^']*'|"[^"]*")"#).expect("a valid pattern");
        if let Some(c) = placeholder.captures(args) {
            w["hint"] = literal(&c[1]);
        }
        w["text"] = json!("");
        // `.type(InputType.Password)`: ArkUI's TextInputType::VISIBLE_PASSWORD.
        let password = Regex::new(r"\.type\(\s*InputType\.Password\s*\)").expect("a valid pattern");
        if password.is_match(chain) {
            w["password"] = json!(true);
        }
    } else {
        w["text"] = json!(template(args));
    }
    let id = Regex::new(r#"\.(?:id|key)\(\s*('[^']*'|"[^"]*")\s*\)"#).expect("a valid pattern");
    if let Some(c) = id.captures(chain) {
        w["id"] = literal(&c[1]);
    }
    if let Some(at) = chain.find(".onClick(") {
        if let Some(body) = balanced(chain, at + ".onClick".len()) {
            w["onClick"] = json!(effects(body));
        }
    }
    w
}

/// What an onClick body does, in order: `{"add": [field, n]}`, `{"set": [field, value]}`,
/// `{"push": page}`, `{"back": true}`.
fn effects(body: &str) -> Vec<Value> {
    let step = Regex::new(
        r#"this\.(\w+)\s*(\+\+|--|\+=\s*-?\d+|-=\s*-?\d+|=\s*(?:'[^']*'|"[^"]*"|-?\d+))|pushUrl\(\s*\{\s*url\s*:\s*('[^']*'|"[^"]*")|\bback\(\s*\)"#,
    )
    .expect("a valid pattern");
    let mut out = Vec::new();
    for c in step.captures_iter(body) {
        if let Some(url) = c.get(3) {
            out.push(json!({"push": literal(url.as_str())}));
        } else if let (Some(field), Some(op)) = (c.get(1), c.get(2)) {
            let op = op.as_str();
            let f = field.as_str();
            let number = |s: &str| s.trim().parse::<i64>().unwrap_or(0);
            out.push(match op {
                "++" => json!({"add": [f, 1]}),
                "--" => json!({"add": [f, -1]}),
                o if o.starts_with("+=") => json!({"add": [f, number(&o[2..])]}),
                o if o.starts_with("-=") => json!({"add": [f, -number(&o[2..])]}),
                o => json!({"set": [f, literal(&o[1..])]}),
            });
        } else {
            out.push(json!({"back": true}));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_page_and_a_counter_page_read_as_the_device_shows_them() {
        let template = "@Entry\n@Component\nstruct Index {\n  @State message: string = 'Hello World';\n\n  build() {\n    Row() {\n      Column() {\n        Text(this.message)\n          .fontSize(50)\n      }\n    }\n  }\n}\n";
        assert_eq!(
            page_of(template),
            json!({"state": {"message": "Hello World"}, "widgets": [{"type": "Text", "text": "${message}"}]})
        );
        let counter = "struct P {\n  @State count: number = 0;\n  build() {\n    Column() {\n      Text(`Taps: ${this.count}`).id('taps')\n      Button('Tap me').id('tap').onClick(() => { this.count++ })\n      TextInput({ placeholder: 'Name' }).id('name')\n      Button('Details').onClick(() => {\n        this.getUIContext().getRouter().pushUrl({ url: 'pages/Details' })\n      })\n    }\n  }\n}\n";
        assert_eq!(
            page_of(counter)["widgets"],
            json!([
                {"type": "Text", "text": "Taps: ${count}", "id": "taps"},
                {"type": "Button", "text": "Tap me", "id": "tap", "onClick": [{"add": ["count", 1]}]},
                {"type": "TextInput", "text": "", "hint": "Name", "id": "name"},
                {"type": "Button", "text": "Details", "onClick": [{"push": "pages/Details"}]},
            ])
        );
    }
}
