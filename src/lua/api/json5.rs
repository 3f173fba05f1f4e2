//! `rein.json5.decode`: JSON5 — the format of build-profile.json5, app.json5 and module.json5 —
//! parsed by the json5 crate. Like `rein.json.decode`, null decodes to `rein.json.null` and
//! arrays carry the array metatable, so they encode back as arrays.

use std::fmt;

use mlua::{IntoLuaMulti, Lua, LuaSerdeExt, MultiValue, Value};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::json;

use super::declare::{Area, Home, Make, Native, Param, Returns};
use super::outcome;
use crate::error::{Code, Failure};

/// serde_json's limit for `rein.json.decode`. The parser recurses once per level, so without
/// a limit a hostile file could overflow the stack.
const MAX_DEPTH: usize = 128;

pub const AREA: Area = Area {
    home: Home::Table("json5"),
    doc: "JSON5, the format of build-profile.json5, app.json5 and module.json5 (comments, trailing commas, unquoted keys).",
    natives: &[
        Native {
            name: "decode",
            doc: "JSON5 text as a Lua value (INVALID_ARGS with details.line and column when it is not valid).",
            params: &[Param { name: "text", ty: "string", doc: "" }],
            returns: &[Returns { ty: "any", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(decode)),
        },
        Native {
            name: "null",
            doc: "What JSON5 null decodes to (the same value as rein.json.null).",
            params: &[],
            returns: &[Returns { ty: "lightuserdata", doc: "" }],
            make: Make::Value(|lua| Ok(lua.null())),
        },
    ],
    classes: &[],
};

fn decode(lua: &Lua, text: mlua::String) -> mlua::Result<MultiValue> {
    match parse(&text.as_bytes()) {
        Ok(node) => (true, node.into_lua(lua)?).into_lua_multi(lua),
        Err(failure) => outcome::<()>(lua, Err(failure)),
    }
}

/// A parsed JSON5 value, kept apart from Lua so the parser needs no Lua state. Floats stay
/// floats (`Infinity` and `NaN` are valid JSON5), integers stay integers.
#[derive(Debug, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

fn parse(bytes: &[u8]) -> Result<Node, Failure> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            Code::InvalidArgs,
            format!("text is not valid JSON5: invalid UTF-8 at byte {}; save the file as UTF-8", e.valid_up_to()),
        )
    })?;
    json5::from_str::<Document>(text).map(|doc| doc.0).map_err(|e| {
        let failure = Failure::new(Code::InvalidArgs, format!("text is not valid JSON5: {e}"));
        match e.position() {
            Some(at) => failure.with_details(json!({"line": at.line + 1, "column": at.column + 1})),
            None => failure,
        }
    })
}

/// The whole text; json5's `from_str` also refuses trailing characters after it.
struct Document(Node);

impl<'de> de::Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        NodeSeed { depth: 0 }.deserialize(deserializer).map(Document)
    }
}

#[derive(Clone, Copy)]
struct NodeSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        if self.depth > MAX_DEPTH {
            return Err(de::Error::custom(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON5 value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(i64::try_from(v).map_or(Node::Float(v as f64), Node::Int))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let child = NodeSeed { depth: self.depth + 1 };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(child)? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let child = NodeSeed { depth: self.depth + 1 };
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(child)?));
        }
        Ok(Node::Object(entries))
    }
}

impl Node {
    fn into_lua(self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Node::Null => lua.null(),
            Node::Bool(b) => Value::Boolean(b),
            Node::Int(i) => Value::Integer(i),
            Node::Float(f) => Value::Number(f),
            Node::Str(s) => Value::String(lua.create_string(s)?),
            Node::Array(items) => {
                let table = lua.create_table_with_capacity(items.len(), 0)?;
                for (i, item) in items.into_iter().enumerate() {
                    table.raw_set(i + 1, item.into_lua(lua)?)?;
                }
                table.set_metatable(Some(lua.array_metatable()))?;
                Value::Table(table)
            }
            // A repeated key keeps its last value, as in JavaScript.
            Node::Object(entries) => {
                let table = lua.create_table_with_capacity(0, entries.len())?;
                for (key, value) in entries {
                    table.raw_set(key, value.into_lua(lua)?)?;
                }
                Value::Table(table)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let text = "[".repeat(100_000);
        let failure = parse(text.as_bytes()).unwrap_err();
        assert!(failure.message.contains("nesting deeper than 128"), "{failure}");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn special_numbers_stay_numbers() {
        let node = parse(b"[Infinity, -Infinity, 0x10, 18446744073709551615]").unwrap();
        let Node::Array(items) = node else { panic!("not an array") };
        assert_eq!(items[0], Node::Float(f64::INFINITY));
        assert_eq!(items[1], Node::Float(f64::NEG_INFINITY));
        assert_eq!(items[2], Node::Int(16));
        assert_eq!(items[3], Node::Float(u64::MAX as f64));
    }

    #[test]
    fn invalid_utf8_and_trailing_text_are_refused() {
        assert!(parse(b"{a: '\xff'}").unwrap_err().message.contains("UTF-8"));
        let failure = parse(b"{a: 1} x").unwrap_err();
        assert_eq!(failure.details, json!({"line": 1, "column": 8}));
    }
}
