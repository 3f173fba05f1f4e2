//! Reading arguments as lstrlib.c does (`luaL_checklstring`, `luaL_optinteger`, `posrelatI`),
//! with C Lua's messages.

use mlua::{Lua, MultiValue, Value};

use super::Raise;

fn type_of(args: &MultiValue, index: usize) -> &'static str {
    match args.get(index) {
        None => "no value",
        Some(value) => value.type_name(),
    }
}

pub fn bad_argument(index: usize, function: &str, message: &str) -> Raise {
    Raise::Message(format!("bad argument #{} to '{function}' ({message})", index + 1))
}

fn expected(args: &MultiValue, index: usize, function: &str, what: &str) -> Raise {
    bad_argument(index, function, &format!("{what} expected, got {}", type_of(args, index)))
}

/// A string argument; numbers are converted, as in C Lua.
pub fn arg_bytes(lua: &Lua, args: &MultiValue, index: usize, function: &str) -> Result<mlua::String, Raise> {
    match args.get(index) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(value @ (Value::Integer(_) | Value::Number(_))) => {
            lua.coerce_string(value.clone())?.ok_or_else(|| expected(args, index, function, "string"))
        }
        _ => Err(expected(args, index, function, "string")),
    }
}

/// An optional integer argument (floats with an exact integer value and numeric strings too).
pub fn opt_integer(lua: &Lua, args: &MultiValue, index: usize, function: &str) -> Result<Option<i64>, Raise> {
    match args.get(index) {
        None | Some(Value::Nil) => Ok(None),
        Some(Value::Integer(i)) => Ok(Some(*i)),
        Some(Value::Number(n)) => float_to_integer(*n)
            .map(Some)
            .ok_or_else(|| bad_argument(index, function, "number has no integer representation")),
        Some(value @ Value::String(_)) => match lua.coerce_number(value.clone())? {
            Some(n) => float_to_integer(n)
                .map(Some)
                .ok_or_else(|| bad_argument(index, function, "number has no integer representation")),
            None => Err(expected(args, index, function, "number")),
        },
        Some(_) => Err(expected(args, index, function, "number")),
    }
}

fn float_to_integer(n: f64) -> Option<i64> {
    // -2^63 is an i64; 2^63 is not.
    let bound = 2f64.powi(63);
    (n.fract() == 0.0 && (-bound..bound).contains(&n)).then_some(n as i64)
}

/// `posrelatI(pos, len) - 1`: the 0-based start of a search (may be past the end).
pub fn start_index(pos: i64, len: usize) -> usize {
    let position = if pos > 0 {
        usize::try_from(pos).unwrap_or(usize::MAX)
    } else if pos == 0 || pos.unsigned_abs() > len as u64 {
        1
    } else {
        len - pos.unsigned_abs() as usize + 1
    };
    position - 1
}
