//! `string.gsub` (lstrlib.c's `str_gsub`, `add_s`, `add_value`).

use mlua::{Function, Lua, MultiValue, Value};

use super::args::{arg_bytes, bad_argument, opt_integer};
use super::matcher::{Capture, Matcher};
use super::{meter, raise, stopped, to_values, Outcome, Raise};
use crate::lua::limits;

pub fn gsub(lua: &Lua, pcall: &Function, args: &MultiValue) -> Outcome {
    let subject = arg_bytes(lua, args, 0, "gsub")?;
    let pattern = arg_bytes(lua, args, 1, "gsub")?;
    let (src, pat) = (&*subject.as_bytes(), &*pattern.as_bytes());
    let replacement = args.get(2).cloned().unwrap_or(Value::Nil);
    if !matches!(
        replacement,
        Value::Integer(_) | Value::Number(_) | Value::String(_) | Value::Function(_) | Value::Table(_)
    ) {
        let got = if args.len() > 2 { replacement.type_name() } else { "no value" };
        return Err(bad_argument(2, "gsub", &format!("string/function/table expected, got {got}")));
    }
    let text = match &replacement {
        Value::Integer(_) | Value::Number(_) | Value::String(_) => {
            lua.coerce_string(replacement.clone())?.map(|s| s.as_bytes().to_vec())
        }
        _ => None,
    };
    let max = opt_integer(lua, args, 3, "gsub")?.unwrap_or(src.len() as i64 + 1);
    let anchor = pat.first() == Some(&b'^');
    let pat = if anchor { &pat[1..] } else { pat };

    let mut meter = meter(lua);
    let mut matcher = Matcher::new(src, pat, &mut meter);
    let mut out = Vec::new();
    let mut charged = 0;
    let (mut count, mut changed, mut at, mut last_match) = (0i64, false, 0usize, None);
    while count < max {
        match matcher.try_at(at).map_err(|e| raise(lua, e))? {
            Some(end) if Some(end) != last_match => {
                count += 1;
                changed |= match &text {
                    Some(text) => add_text(&matcher, text, at, end, &mut out).map_err(|e| raise(lua, e))?,
                    None => add_value(lua, pcall, &replacement, &matcher, at, end, &mut out)?,
                };
                at = end;
                last_match = Some(end);
                charged = charge_growth(lua, out.len(), charged, false)?;
            }
            _ if at < src.len() => {
                out.push(src[at]);
                at += 1;
            }
            _ => break,
        }
        if anchor {
            break;
        }
    }
    if !matcher.flush() {
        return Err(stopped(lua));
    }
    if changed {
        charge_growth(lua, out.len() + src.len() - at, charged, true)?;
    }
    let result = if changed {
        out.extend_from_slice(&src[at..]);
        Value::String(lua.create_string(&out)?)
    } else {
        // C Lua converts a number subject in place and returns that string.
        Value::String(subject.clone())
    };
    Ok(MultiValue::from_iter([result, Value::Integer(count)]))
}

/// A replacement string: `%0`-`%9` are captures, `%%` is `%`.
fn add_text(
    matcher: &Matcher<'_, '_>,
    text: &[u8],
    s: usize,
    e: usize,
    out: &mut Vec<u8>,
) -> Result<bool, super::MatchError> {
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let d = text.get(i).copied().unwrap_or(0);
        i += 1;
        match d {
            b'%' => out.push(b'%'),
            b'0' => out.extend_from_slice(&matcher.source()[s..e]),
            b'1'..=b'9' => match matcher.capture(usize::from(d - b'1'), s, e)? {
                Capture::Text(bytes) => out.extend_from_slice(bytes),
                Capture::Position(at) => out.extend_from_slice(at.to_string().as_bytes()),
            },
            _ => return Err(super::MatchError::Pattern("invalid use of '%' in replacement string".to_string())),
        }
    }
    Ok(true)
}

/// A table (indexed by the first capture) or a function (called with all captures); false or
/// nil keeps the match.
fn add_value(
    lua: &Lua,
    pcall: &Function,
    replacement: &Value,
    matcher: &Matcher<'_, '_>,
    s: usize,
    e: usize,
    out: &mut Vec<u8>,
) -> Result<bool, Raise> {
    let value = match replacement {
        Value::Table(table) => {
            let key = to_values(lua, vec![matcher.capture(0, s, e).map_err(|err| raise(lua, err))?])?;
            table.get::<Value>(key.into_iter().next().unwrap_or(Value::Nil))?
        }
        Value::Function(function) => {
            let captures = to_values(lua, matcher.captures(s, e, true).map_err(|err| raise(lua, err))?)?;
            // Through the engine's own pcall, so what the function raises travels unchanged.
            let mut results = pcall.call::<MultiValue>((function.clone(), captures))?.into_iter();
            let ok = matches!(results.next(), Some(Value::Boolean(true)));
            let first = results.next().unwrap_or(Value::Nil);
            if !ok {
                return Err(Raise::Value(first));
            }
            first
        }
        _ => Value::Nil,
    };
    match value {
        Value::Nil | Value::Boolean(false) => {
            out.extend_from_slice(&matcher.source()[s..e]);
            Ok(false)
        }
        Value::String(_) | Value::Integer(_) | Value::Number(_) => {
            let text = lua.coerce_string(value)?.map(|s| s.as_bytes().to_vec()).unwrap_or_default();
            out.extend_from_slice(&text);
            Ok(true)
        }
        other => Err(Raise::Message(format!("invalid replacement value (a {})", other.type_name()))),
    }
}

/// The result is built in Rust, out of the memory ceiling's sight: each 64 KiB it grows is
/// charged (by its size, like what C builds) and it may not outgrow the ceiling. Returns
/// how much is charged so far.
fn charge_growth(lua: &Lua, len: usize, charged: usize, all: bool) -> Result<usize, Raise> {
    const EVERY: usize = 64 * 1024;
    if !all && len < charged + EVERY {
        return Ok(charged);
    }
    if let Some(memory) = crate::lua::meter::memory_ceiling(lua).filter(|&memory| len > memory) {
        let breach = crate::lua::meter::trip(lua, limits::Breach::Memory(memory));
        return Err(Raise::Host(mlua::Error::external(breach)));
    }
    if crate::lua::meter::charge(lua, crate::lua::meter::for_bytes((len - charged) as u64)).is_some() {
        return Err(stopped(lua));
    }
    Ok(len)
}
