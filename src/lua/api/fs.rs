//! `rein.fs`: file access, every call checked by the kernel for the call it belongs to.

use mlua::{Lua, MultiValue, Table, Value};
use serde::Deserialize;

use super::{options, outcome, take_field, Namespace};
use crate::error::{Code, Failure};
use crate::kernel::{Edit, EditOptions, ListOptions, ReadOptions};
use crate::lua::{scope, state};

pub fn table(api: &Namespace) -> mlua::Result<Table> {
    let lua = api.lua;
    api.table(vec![
        ("read", lua.create_function(read)?),
        ("read_text", lua.create_function(read_text)?),
        ("write", lua.create_function(write)?),
        ("edit", lua.create_function(edit)?),
        ("multi_edit", lua.create_function(multi_edit)?),
        ("list", lua.create_function(list)?),
        ("exists", lua.create_function(exists)?),
        ("mkdir", lua.create_function(mkdir)?),
    ])
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadOpts {
    offset: Option<usize>,
    limit: Option<usize>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteOpts {
    expected_sha256: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListOpts {
    depth: Option<usize>,
    max_entries: Option<usize>,
}

fn read(lua: &Lua, (path, opts): (String, Value)) -> mlua::Result<MultiValue> {
    let result = options::<ReadOpts>(lua, opts, "rein.fs.read").and_then(|o| {
        let opts = ReadOptions { offset: o.offset, limit: o.limit };
        Ok(state::kernel(lua).read(&scope::current()?, &path, opts)?)
    });
    outcome(lua, result)
}

fn read_text(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    let result = scope::current().and_then(|call| Ok(state::kernel(lua).read_text(&call, &path)?));
    outcome(lua, result)
}

fn write(lua: &Lua, (path, content, opts): (String, mlua::String, Value)) -> mlua::Result<MultiValue> {
    let result = options::<WriteOpts>(lua, opts, "rein.fs.write").and_then(|o| {
        let call = scope::current()?;
        Ok(state::kernel(lua).write(&call, &path, &content.as_bytes(), o.expected_sha256.as_deref())?)
    });
    outcome(lua, result)
}

/// `rein.fs.edit(path, old, new, {replace_all?, dry_run?, expected_sha256?})`: `replace_all`
/// belongs to the edit, the rest is the kernel's [`EditOptions`].
fn edit(lua: &Lua, (path, old, new, opts): (String, String, String, Value)) -> mlua::Result<MultiValue> {
    let (replace_all, opts) = take_field(lua, &opts, "replace_all")?;
    let replace_all = match replace_all {
        Value::Nil => Ok(false),
        Value::Boolean(b) => Ok(b),
        other => Err(Failure::new(
            Code::InvalidArgs,
            format!("bad options for rein.fs.edit: replace_all must be a boolean, not {}", other.type_name()),
        )),
    };
    let result = replace_all.and_then(|replace_all| {
        let opts = options::<EditOptions>(lua, opts, "rein.fs.edit")?;
        let edit = Edit { old_string: old, new_string: new, replace_all };
        Ok(state::kernel(lua).edit(&scope::current()?, &path, edit, &opts)?)
    });
    outcome(lua, result)
}

fn multi_edit(lua: &Lua, (path, edits, opts): (String, Value, Value)) -> mlua::Result<MultiValue> {
    let result = options::<Vec<Edit>>(lua, edits, "the edits of rein.fs.multi_edit").and_then(|edits| {
        let opts = options::<EditOptions>(lua, opts, "rein.fs.multi_edit")?;
        Ok(state::kernel(lua).multi_edit(&scope::current()?, &path, &edits, &opts)?)
    });
    outcome(lua, result)
}

fn list(lua: &Lua, (path, opts): (Option<String>, Value)) -> mlua::Result<MultiValue> {
    let result = options::<ListOpts>(lua, opts, "rein.fs.list").and_then(|o| {
        let opts = ListOptions { depth: o.depth.unwrap_or(1), max_entries: o.max_entries.unwrap_or(1000) };
        Ok(state::kernel(lua).list(&scope::current()?, path.as_deref().unwrap_or("."), opts)?)
    });
    outcome(lua, result)
}

fn exists(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    let result = scope::current().and_then(|call| Ok(state::kernel(lua).exists(&call, &path)?));
    outcome(lua, result)
}

fn mkdir(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    let result = scope::current().and_then(|call| Ok(state::kernel(lua).create_dir(&call, &path)?));
    outcome(lua, result)
}
