//! Resource references (`$string:app_name`, `$media:startIcon`, `$profile:main_pages`,
//! `$color:…`) ↔ the resource files restool compiles: `resources/<qualifier>/element/*.json`
//! (a list named after the type: `{"string": [{"name": …, "value": …}]}`),
//! `resources/<qualifier>/media/<name>.<ext>` and `resources/<qualifier>/profile/<name>.json`
//! (the layout of DevEco's template, shared/HARMONY-VERIFY.md §5). A module's references
//! resolve in its own resources, then in AppScope's.

use std::collections::{BTreeMap, BTreeSet};

use jsonc_parser::ast::Value;

use super::spans::Located;
use super::{join, Found};

/// Folders under `resources/` that hold files as they are, not named resources.
const NOT_QUALIFIERS: [&str; 2] = ["rawfile", "resfile"];

/// The resource folders references resolve in, first to last, and what was read of them.
pub struct Resources {
    dirs: Vec<String>,
    elements: BTreeMap<String, BTreeSet<String>>,
}

impl Resources {
    pub fn new(dirs: Vec<String>) -> Resources {
        Resources { dirs, elements: BTreeMap::new() }
    }

    /// Every `$type:name` string in `value`, checked.
    pub fn check_all(&mut self, found: &mut Found, file: &Located, value: &Value) {
        match value {
            Value::StringLit(s) => {
                if let Some((kind, name)) = reference(&s.value) {
                    self.check_one(found, file, s.range.start, kind, name);
                }
            }
            Value::Array(a) => a.elements.iter().for_each(|v| self.check_all(found, file, v)),
            Value::Object(o) => o.properties.iter().for_each(|p| self.check_all(found, file, &p.value)),
            _ => {}
        }
    }

    fn check_one(&mut self, found: &mut Found, file: &Located, offset: usize, kind: &str, name: &str) {
        let there = match kind {
            "media" => self.media(found, name),
            "profile" => self.profile(found, name).is_some(),
            _ => self.element_names(found, kind).contains(name),
        };
        if there {
            return;
        }
        let Some(first) = self.dirs.first().cloned() else { return };
        let base = join(&first, "base");
        let fix = match kind {
            "media" => format!(
                "add an image {}/media/{name}.png (or .json for a layered image), or name one that exists",
                base
            ),
            "profile" => format!("add {}/profile/{name}.json, or name one that exists", base),
            _ => {
                let known: Vec<String> = self.element_names(found, kind).iter().take(8).cloned().collect();
                let known =
                    if known.is_empty() { String::new() } else { format!("; defined now: {}", known.join(", ")) };
                format!("add {{\"name\": \"{name}\", \"value\": …}} to the \"{kind}\" list in {}/element/{kind}.json{known}", base)
            }
        };
        found.error(
            file,
            offset,
            format!("${kind}:{name} names no {kind} resource in {}", self.dirs.join(" or ")),
            fix,
        );
    }

    fn qualifiers(&self, found: &Found, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = found
            .files
            .names_in(dir)
            .into_iter()
            .filter(|n| !NOT_QUALIFIERS.contains(&n.as_str()) && !n.starts_with('.'))
            .collect();
        // `base` first: the one every device falls back to.
        names.sort_by_key(|n| n != "base");
        names
    }

    fn media(&self, found: &Found, name: &str) -> bool {
        self.dirs.iter().any(|dir| {
            self.qualifiers(found, dir).iter().any(|q| {
                found
                    .files
                    .names_in(&join(dir, &format!("{q}/media")))
                    .iter()
                    .any(|f| f.rsplit_once('.').map_or(f.as_str(), |(stem, _)| stem) == name)
            })
        })
    }

    /// The file `$profile:name` names, if there is one.
    pub fn profile(&self, found: &Found, name: &str) -> Option<String> {
        let file = format!("{name}.json");
        self.dirs.iter().find_map(|dir| {
            self.qualifiers(found, dir)
                .iter()
                .map(|q| join(dir, &format!("{q}/profile")))
                .find(|p| found.files.names_in(p).contains(&file))
                .map(|p| join(&p, &file))
        })
    }

    /// The names of `kind` (string, color, float …) defined in the element files.
    fn element_names(&mut self, found: &mut Found, kind: &str) -> &BTreeSet<String> {
        if !self.elements.contains_key(kind) {
            let mut names = BTreeSet::new();
            for dir in self.dirs.clone() {
                for q in self.qualifiers(found, &dir) {
                    let element = join(&dir, &format!("{q}/element"));
                    for f in found.files.names_in(&element).into_iter().filter(|f| f.ends_with(".json")) {
                        let Some(file) = found.load(&join(&element, &f), false) else { continue };
                        match file.parse() {
                            Ok(value) => names.extend(defined(&value, kind)),
                            Err(e) => found.error(
                                &file,
                                e.offset,
                                format!("not valid JSON: {}", e.message),
                                "fix the syntax at this place".into(),
                            ),
                        }
                    }
                }
            }
            self.elements.insert(kind.to_string(), names);
        }
        &self.elements[kind]
    }
}

/// `("string", "app_name")` for `"$string:app_name"`.
fn reference(text: &str) -> Option<(&str, &str)> {
    let (kind, name) = text.strip_prefix('$')?.split_once(':')?;
    let word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    (word(kind) && word(name)).then_some((kind, name))
}

fn defined(value: &Value, kind: &str) -> Vec<String> {
    let Some(list) = value.as_object().and_then(|o| o.get_array(kind)) else { return Vec::new() };
    list.elements
        .iter()
        .filter_map(|e| e.as_object().and_then(|o| o.get_string("name")).map(|s| s.value.to_string()))
        .collect()
}
