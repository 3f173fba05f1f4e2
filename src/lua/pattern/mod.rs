//! `string.find`, `string.match`, `string.gmatch` and `string.gsub` on a Rust port of Lua
//! 5.4's matcher that counts its steps against the call's instruction budget: C Lua's own
//! matcher runs where the budget hook cannot reach, so one pattern could hang the host.
//!
//! - `matcher`, `class`: the engine (lstrlib.c's semantics and messages)
//! - `args`: reading arguments as lstrlib.c does
//! - `gsub`: substitution
//! - `wrap.lua`: raises the natives' errors as C Lua does (a plain message, no position)

mod args;
mod class;
mod gsub;
mod matcher;
#[cfg(test)]
mod tests;

use mlua::{Function, IntoLua, Lua, MultiValue, Table, Value};

use crate::lua::limits;
use args::{arg_bytes, opt_integer, start_index};
use matcher::{Capture, MatchError, Matcher};

const WRAP: &str = include_str!("wrap.lua");

/// Why a native did not return results: a message C Lua would raise, a value a replacement
/// function raised, or the host's own error (a budget breach).
pub(crate) enum Raise {
    Message(String),
    Value(Value),
    Host(mlua::Error),
}

impl From<mlua::Error> for Raise {
    fn from(err: mlua::Error) -> Raise {
        Raise::Host(err)
    }
}

type Outcome = Result<MultiValue, Raise>;

/// Replaces the four functions in `strings` (the state's string table, before the globals are
/// sealed). Must run while `pcall` is still the engine's own.
pub(crate) fn install(lua: &Lua, strings: &Table) -> mlua::Result<()> {
    let natives = lua.create_table()?;
    natives.set("find", lua.create_function(|lua, args: MultiValue| answer(lua, find(lua, &args, true)))?)?;
    natives.set("match", lua.create_function(|lua, args: MultiValue| answer(lua, find(lua, &args, false)))?)?;
    natives.set("gmatch", lua.create_function(|lua, args: MultiValue| answer(lua, gmatch(lua, &args)))?)?;
    let pcall: Function = lua.globals().get("pcall")?;
    natives
        .set("gsub", lua.create_function(move |lua, args: MultiValue| answer(lua, gsub::gsub(lua, &pcall, &args)))?)?;
    crate::lua::compiled::load(lua, "<rein>/pattern/wrap.lua", WRAP, None)?.call::<()>((natives, strings.clone()))
}

/// `true, results...` or `false, error` for wrap.lua; the host's errors travel as they are.
fn answer(lua: &Lua, outcome: Outcome) -> mlua::Result<MultiValue> {
    let (ok, rest) = match outcome {
        Ok(values) => (true, values),
        Err(Raise::Message(message)) => (false, MultiValue::from_iter([message.into_lua(lua)?])),
        Err(Raise::Value(value)) => (false, MultiValue::from_iter([value, Value::Boolean(true)])),
        Err(Raise::Host(err)) => return Err(err),
    };
    let mut values = rest;
    values.push_front(Value::Boolean(ok));
    Ok(values)
}

/// The budget ran out while matching: the breach the meter recorded.
fn stopped(lua: &Lua) -> Raise {
    let breach = crate::lua::meter::tripped(lua).unwrap_or(limits::Breach::Instructions(0));
    Raise::Host(mlua::Error::external(breach))
}

fn raise(lua: &Lua, err: MatchError) -> Raise {
    match err {
        MatchError::Pattern(message) => Raise::Message(message),
        MatchError::Stopped => stopped(lua),
    }
}

/// Counts `steps` against the budget; false once it is spent (or the clock ran out).
fn meter(lua: &Lua) -> impl FnMut(u64) -> bool + '_ {
    move |steps| crate::lua::meter::charge(lua, steps).is_none()
}

fn to_values(lua: &Lua, captures: Vec<Capture<'_>>) -> mlua::Result<MultiValue> {
    captures
        .into_iter()
        .map(|capture| match capture {
            Capture::Text(bytes) => lua.create_string(bytes).map(Value::String),
            Capture::Position(at) => Ok(Value::Integer(at as i64)),
        })
        .collect()
}

fn fail() -> Outcome {
    Ok(MultiValue::from_iter([Value::Nil]))
}

/// lstrlib.c's SPECIALS: a pattern without them is searched for as plain text.
fn has_specials(pattern: &[u8]) -> bool {
    pattern.iter().any(|c| b"^$*+?.([%-".contains(c))
}

/// `string.find` (`find`) and `string.match`.
fn find(lua: &Lua, args: &MultiValue, find: bool) -> Outcome {
    let name = if find { "find" } else { "match" };
    let subject = arg_bytes(lua, args, 0, name)?;
    let pattern = arg_bytes(lua, args, 1, name)?;
    let (src, pat) = (&*subject.as_bytes(), &*pattern.as_bytes());
    let init = start_index(opt_integer(lua, args, 2, name)?.unwrap_or(1), src.len());
    if init > src.len() {
        return fail();
    }
    let plain = args.get(3).is_some_and(|v| !matches!(v, Value::Nil | Value::Boolean(false)));
    if find && (plain || !has_specials(pat)) {
        let found = memchr::memmem::find(&src[init..], pat);
        // Paid for by the bytes scanned: to the end of the match, or of the subject.
        let scanned = found.map_or(src.len() - init, |at| at + pat.len());
        if crate::lua::meter::charge(lua, crate::lua::meter::for_bytes(scanned as u64) + 1).is_some() {
            return Err(stopped(lua));
        }
        return match found {
            Some(at) => Ok(MultiValue::from_iter([
                Value::Integer((init + at + 1) as i64),
                Value::Integer((init + at + pat.len()) as i64),
            ])),
            None => fail(),
        };
    }
    let anchor = pat.first() == Some(&b'^');
    let pat = if anchor { &pat[1..] } else { pat };
    let mut meter = meter(lua);
    let mut matcher = Matcher::new(src, pat, &mut meter);
    let mut start = init;
    loop {
        if let Some(end) = matcher.try_at(start).map_err(|e| raise(lua, e))? {
            if !matcher.flush() {
                return Err(stopped(lua));
            }
            return if find {
                let mut values = to_values(lua, matcher.captures(start, end, false).map_err(|e| raise(lua, e))?)?;
                values.push_front(Value::Integer(end as i64));
                values.push_front(Value::Integer(start as i64 + 1));
                Ok(values)
            } else {
                Ok(to_values(lua, matcher.captures(start, end, true).map_err(|e| raise(lua, e))?)?)
            };
        }
        if start >= src.len() || anchor {
            break;
        }
        start += 1;
    }
    if !matcher.flush() {
        return Err(stopped(lua));
    }
    fail()
}

/// `string.gmatch`: an iterator over the matches; a caret is an ordinary character here.
fn gmatch(lua: &Lua, args: &MultiValue) -> Outcome {
    let src = arg_bytes(lua, args, 0, "gmatch")?.as_bytes().to_vec();
    let pat = arg_bytes(lua, args, 1, "gmatch")?.as_bytes().to_vec();
    let mut next = start_index(opt_integer(lua, args, 2, "gmatch")?.unwrap_or(1), src.len()).min(src.len() + 1);
    let mut last_match: Option<usize> = None;
    let iterator = lua.create_function_mut(move |lua, ()| {
        let mut meter = meter(lua);
        let mut matcher = Matcher::new(&src, &pat, &mut meter);
        let mut outcome = Ok(MultiValue::new());
        let mut start = next;
        next = src.len() + 1;
        while start <= src.len() {
            match matcher.try_at(start) {
                Err(err) => {
                    next = start;
                    outcome = Err(raise(lua, err));
                    break;
                }
                Ok(Some(end)) if Some(end) != last_match => {
                    next = end;
                    last_match = Some(end);
                    outcome = matcher
                        .captures(start, end, true)
                        .map_err(|e| raise(lua, e))
                        .and_then(|caps| Ok(to_values(lua, caps)?));
                    break;
                }
                Ok(_) => start += 1,
            }
        }
        if outcome.is_ok() && !matcher.flush() {
            outcome = Err(stopped(lua));
        }
        answer(lua, outcome)
    })?;
    Ok(MultiValue::from_iter([Value::Function(iterator)]))
}
