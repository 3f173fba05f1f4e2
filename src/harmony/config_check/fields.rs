//! Required fields and their JSON types, reported where the object (or the value) is.

use jsonc_parser::ast::{Object, Value};
use jsonc_parser::common::Ranged;

use super::spans::Located;
use super::Found;

/// A JSON type a field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Bool,
    Array,
    Object,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Str => "a string",
            Kind::Int => "an integer",
            Kind::Bool => "true or false",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }

    fn holds(self, value: &Value) -> bool {
        match (self, value) {
            (Kind::Str, Value::StringLit(_)) | (Kind::Bool, Value::BooleanLit(_)) => true,
            (Kind::Array, Value::Array(_)) | (Kind::Object, Value::Object(_)) => true,
            (Kind::Int, Value::NumberLit(n)) => is_integer(n.value),
            _ => false,
        }
    }
}

fn is_integer(text: &str) -> bool {
    let digits = text.trim_start_matches(['-', '+']);
    let hex = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X"));
    match hex {
        Some(h) => !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// `object.name`, which must be there and of `kind`: reported when missing (at the object) or of
/// another type (at the value). `example` is a value to write, as JSON5.
pub fn required<'v, 'a>(
    found: &mut Found,
    file: &Located,
    object: &'v Object<'a>,
    name: &str,
    kind: Kind,
    example: &str,
) -> Option<&'v Value<'a>> {
    match object.get(name) {
        None => {
            found.error(
                file,
                object.range.start,
                format!("\"{name}\" is missing: it is required and must be {}", kind.name()),
                format!("add \"{name}\": {example}"),
            );
            None
        }
        Some(prop) => typed(found, file, name, &prop.value, kind, example),
    }
}

/// `object.name` when it is there, checked to be of `kind`.
pub fn optional<'v, 'a>(
    found: &mut Found,
    file: &Located,
    object: &'v Object<'a>,
    name: &str,
    kind: Kind,
    example: &str,
) -> Option<&'v Value<'a>> {
    object.get(name).and_then(|prop| typed(found, file, name, &prop.value, kind, example))
}

fn typed<'v, 'a>(
    found: &mut Found,
    file: &Located,
    name: &str,
    value: &'v Value<'a>,
    kind: Kind,
    example: &str,
) -> Option<&'v Value<'a>> {
    if kind.holds(value) {
        return Some(value);
    }
    found.error(
        file,
        value.range().start,
        format!("\"{name}\" must be {}", kind.name()),
        format!("write \"{name}\": {example}"),
    );
    None
}

/// The top of a file, which must be an object.
pub fn top<'v, 'a>(found: &mut Found, file: &Located, value: &'v Value<'a>) -> Option<&'v Object<'a>> {
    let object = value.as_object();
    if object.is_none() {
        found.error(
            file,
            value.range().start,
            format!("{} must hold an object", file.file),
            "write { … } around the fields".into(),
        );
    }
    object
}

/// The string in `value`, when it is one.
pub fn text<'v>(value: Option<&'v Value>) -> Option<&'v str> {
    value.and_then(Value::as_string_lit).map(|s| s.value.as_ref())
}

/// Where `value` starts.
pub fn at(value: &Value) -> usize {
    value.range().start
}
