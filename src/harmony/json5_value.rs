//! A project's JSON5 file (build-profile.json5, app.json5) as a `serde_json::Value`, its
//! nesting bounded. json5's deserializer recurses once per level of nesting and has no limit
//! of its own: a build-profile.json5 of a few hundred thousand `[` (the agent writes it)
//! overflowed the stack, which aborts rein — no error, the whole host gone. Values are built by
//! a seed that refuses a level past [`MAX_DEPTH`] before descending (as `rein.json5` does for
//! scripts, `lua::api::json5`).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The deepest nesting read (serde_json's own limit for JSON).
pub const MAX_DEPTH: usize = 128;

/// `text` parsed as JSON5; an error for text that is not, or nests deeper than [`MAX_DEPTH`].
pub fn parse(text: &str) -> Result<Value, json5::Error> {
    json5::from_str::<Bounded>(text).map(|bounded| bounded.0)
}

struct Bounded(Value);

impl<'de> de::Deserialize<'de> for Bounded {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Seed { depth: 0 }.deserialize(deserializer).map(Bounded)
    }
}

#[derive(Clone, Copy)]
struct Seed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        if self.depth > MAX_DEPTH {
            return Err(de::Error::custom(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON5 value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // As serde_json's own Value: NaN and the infinities (valid JSON5) are null.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let child = Seed { depth: self.depth + 1 };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(child)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let child = Seed { depth: self.depth + 1 };
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            object.insert(key, map.next_value_seed(child)?);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        // Run on a small stack, as a server's worker thread has: json5's own Value recursion
        // overflowed this at a few thousand levels.
        let parsed = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let deep = format!("{}{}", "[".repeat(300_000), "]".repeat(300_000));
                let deep_objects = format!("{}1{}", "{a:".repeat(300_000), "}".repeat(300_000));
                (parse(&deep).map_err(|e| e.to_string()), parse(&deep_objects).map_err(|e| e.to_string()))
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(parsed.0.unwrap_err().contains("nesting deeper than 128"));
        assert!(parsed.1.unwrap_err().contains("nesting deeper than 128"));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn a_project_file_reads_as_json5_does() {
        let text = "// build profile\n{app: {bundleName: 'com.example.hello', n: 1, f: 1.5, big: 18446744073709551615, neg: -2, inf: Infinity, x: null, t: true,}, modules: [{name: \"entry\", srcPath: './entry'},],}";
        let value = parse(text).unwrap();
        assert_eq!(value, json5::from_str::<Value>(text).unwrap());
        assert_eq!(value["app"]["bundleName"], "com.example.hello");
        assert!(parse("{a: 1").is_err());
    }
}
