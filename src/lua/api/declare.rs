//! How the `rein` namespace is declared: each native's name, parameters, returns and doc sit
//! next to the constructor that makes it. `install` builds the namespace from these
//! declarations and `rein types` writes the editor stubs and selene's standard library from
//! the same ones, so a function cannot exist in one and not the other.
//!
//! Types are written as lua-language-server spells them (`string`, `integer`, `table`,
//! `rein.fs.ReadResult`, `string[]`, `fun(line: string)`); a trailing `?` on a parameter's
//! type makes it optional.

use mlua::{Function, Lua, Value};

/// Where an area's names live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// Directly in `rein` (`rein.tool`).
    Rein,
    /// In a table of `rein` (`rein.fs`).
    Table(&'static str),
    /// Globals (`require`, `print`).
    Global,
}

/// One area of the namespace: its natives and the types they take and give.
pub struct Area {
    pub home: Home,
    pub doc: &'static str,
    pub natives: &'static [Native],
    pub classes: &'static [Class],
}

/// One name scripts can use.
pub struct Native {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: &'static [Param],
    pub returns: &'static [Returns],
    pub make: Make,
}

pub struct Param {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

pub struct Returns {
    pub ty: &'static str,
    pub doc: &'static str,
}

/// How a native is made.
#[derive(Clone, Copy)]
pub enum Make {
    /// A function returning `true, value` or `false, failure`, wrapped by the bootstrap's
    /// `raising` so the failure is raised as a structured error.
    Raising(fn(&Lua) -> mlua::Result<Function>),
    /// A function used as it is.
    Plain(fn(&Lua) -> mlua::Result<Function>),
    /// A value, not a function (`rein.json.null`).
    Value(fn(&Lua) -> mlua::Result<Value>),
}

/// A table shape the natives take or give (`rein.fs.ReadOptions`).
pub struct Class {
    pub name: &'static str,
    pub doc: &'static str,
    pub fields: &'static [Field],
}

pub struct Field {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

impl Area {
    /// `rein.fs`, `rein`, or empty for globals: what a native's name is prefixed with.
    pub fn prefix(&self) -> String {
        match self.home {
            Home::Rein => "rein.".to_string(),
            Home::Table(name) => format!("rein.{name}."),
            Home::Global => String::new(),
        }
    }
}

impl Native {
    pub fn is_function(&self) -> bool {
        !matches!(self.make, Make::Value(_))
    }
}

impl Param {
    pub fn is_optional(&self) -> bool {
        self.ty.ends_with('?')
    }

    /// The type without the optional mark.
    pub fn base_type(&self) -> &'static str {
        self.ty.trim_end_matches('?')
    }
}

/// For tests: declared option classes against the structs natives read them into.
#[cfg(test)]
pub(crate) mod drift {
    use super::Area;

    /// The fields serde accepts for `T`, sorted (it names them all when it meets one it does
    /// not know).
    pub fn serde_fields<T: serde::de::DeserializeOwned>() -> Vec<String> {
        let err =
            serde_json::from_value::<T>(serde_json::json!({"\u{1}": 0})).err().expect("an unknown field is refused");
        let text = err.to_string();
        let expected = text.split_once(", expected ").map(|(_, list)| list).unwrap_or_default();
        let mut fields: Vec<String> = expected.split('`').skip(1).step_by(2).map(String::from).collect();
        fields.sort();
        fields
    }

    /// The fields `class` of `area` declares, sorted.
    pub fn class_fields(area: &Area, class: &str) -> Vec<String> {
        let class = area.classes.iter().find(|c| c.name == class).unwrap_or_else(|| panic!("no class {class}"));
        let mut fields: Vec<String> = class.fields.iter().map(|f| f.name.to_string()).collect();
        fields.sort();
        fields
    }
}
