//! Where a script's error happened, for LUA_ERROR. Lua prefixes `file:line:` only when the error
//! is raised in Lua code: one raised inside a C function (`ipairs`' iterator indexing nil) or by
//! `error(msg, 0)` names no place, and one raised in a module the tool required names that
//! module's line, not the tool's. The message handler asks here, while the failed stack is
//! still there, for the innermost line of the file the called function (a tool's `run`, a
//! recipe step's function) comes from, and for the traceback `details.traceback` carries.

use mlua::{Function, Lua};

/// rein's own Lua (the bootstrap): never the script's place, and left out of its traceback.
const OWN_SOURCE_PREFIX: &str = "@<rein>/";

/// `error_place(message, f)`: `message` with the innermost `file:line:` of `f`'s file in front
/// (unless it already starts with a line of that file), and the traceback of the failed stack.
pub(crate) fn native(lua: &Lua) -> mlua::Result<Function> {
    lua.create_function(|lua, (message, called): (String, Function)| {
        // A stack that overflowed has no room for the walk; failure.rs classifies it as is.
        if message.contains("stack overflow") {
            return Ok((message, String::new()));
        }
        let traceback = traceback(lua);
        let Some((file, line)) = innermost_place(lua, &called) else {
            return Ok((message, traceback));
        };
        let already_placed =
            message.strip_prefix(file.as_str()).and_then(|rest| rest.strip_prefix(':')).is_some_and(|rest| {
                rest.split(':').next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            });
        let message = if already_placed { message } else { format!("{file}:{line}: {message}") };
        Ok((message, traceback))
    })
}

/// The innermost frame running code of `called`'s file, as Lua names it in messages
/// (`short_src`); else the innermost frame of any script file.
fn innermost_place(lua: &Lua, called: &Function) -> Option<(String, usize)> {
    let own = called.info().source;
    let mut any_script = None;
    for level in 0.. {
        let frame = lua.inspect_stack(level, |frame| {
            let source = frame.source();
            let place = source.short_src.as_deref().map(str::to_string).zip(frame.current_line());
            (source.source.map(|s| s.into_owned()), place)
        });
        let Some((source, place)) = frame else { break };
        let (Some(source), Some(place)) = (source, place) else { continue };
        if source.starts_with(OWN_SOURCE_PREFIX) {
            continue;
        }
        if own.as_deref() == Some(source.as_str()) {
            return Some(place);
        }
        any_script.get_or_insert(place);
    }
    any_script
}

/// Lua's traceback of the failed stack, from where it failed to the called function: without
/// rein's own frames (this handler and the bootstrap's, which reach it by a tail call, and the
/// xpcall the called function runs in, with what is beyond it).
fn traceback(lua: &Lua) -> String {
    let Ok(text) = lua.traceback(None, 1) else { return String::new() };
    let text = text.to_string_lossy();
    text.lines()
        .map(str::trim)
        .skip_while(|line| *line == "stack traceback:" || *line == "(...tail calls...)" || line.contains("<rein>/"))
        .take_while(|line| !line.contains("'raw_xpcall'"))
        .filter(|line| !line.contains("<rein>/"))
        .collect::<Vec<_>>()
        .join("\n")
}
