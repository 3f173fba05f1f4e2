//! The `rein` namespace as lua-language-server `---@meta` stubs, written from the same
//! declarations `install` builds it from.

use super::areas;
use super::declare::{Area, Class, Home, Native};

/// `rein.lua`: every native of every area, with the classes they take and give.
pub fn rein_stub(version: &str) -> String {
    let mut out = format!(
        "---@meta rein\n-- The rein namespace for lua-language-server, written by `rein types` (rein {version})\n\
         -- from the declarations rein builds it with. Do not edit: run `rein types` again after\n\
         -- upgrading rein.\n\n---The API rein gives every tool and recipe.\nrein = {{}}\n"
    );
    for area in areas() {
        if let Home::Table(name) = area.home {
            out.push('\n');
            doc_lines(&mut out, area.doc);
            out.push_str(&format!("rein.{name} = {{}}\n"));
        }
    }
    for area in areas() {
        for class in area.classes {
            out.push('\n');
            class_stub(&mut out, class);
        }
        for native in area.natives {
            out.push('\n');
            native_stub(&mut out, area, native);
        }
    }
    out
}

/// A class as `---@class` with a `---@field` per field.
pub fn class_stub(out: &mut String, class: &Class) {
    doc_lines(out, class.doc);
    out.push_str(&format!("---@class {}\n", class.name));
    for field in class.fields {
        let (name, ty) = match field.ty.strip_suffix('?') {
            Some(ty) => (format!("{}?", field.name), ty),
            None => (field.name.to_string(), field.ty),
        };
        out.push_str(&format!("---@field {name} {ty}{}\n", comment(field.doc)));
    }
}

fn native_stub(out: &mut String, area: &Area, native: &Native) {
    doc_lines(out, native.doc);
    let path = format!("{}{}", area.prefix(), native.name);
    if !native.is_function() {
        if let Some(returns) = native.returns.first() {
            out.push_str(&format!("---@type {}\n", returns.ty));
        }
        out.push_str(&format!("{path} = nil\n"));
        return;
    }
    for param in native.params {
        let name = if param.is_optional() { format!("{}?", param.name) } else { param.name.to_string() };
        out.push_str(&format!("---@param {name} {}{}\n", param.base_type(), comment(param.doc)));
    }
    for returns in native.returns {
        let doc = if returns.doc.is_empty() { String::new() } else { format!(" # {}", returns.doc) };
        out.push_str(&format!("---@return {}{doc}\n", returns.ty));
    }
    let params: Vec<&str> = native.params.iter().map(|p| p.name).collect();
    out.push_str(&format!("function {path}({}) end\n", params.join(", ")));
}

fn comment(doc: &str) -> String {
    if doc.is_empty() {
        String::new()
    } else {
        format!(" {doc}")
    }
}

/// `doc` as `---` lines of at most about 100 columns.
pub fn doc_lines(out: &mut String, doc: &str) {
    let mut line = String::new();
    for word in doc.split_whitespace() {
        if !line.is_empty() && line.len() + word.len() > 96 {
            out.push_str(&format!("---{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("---{line}\n"));
    }
}
