//! `rein.fs`: file access, every call checked by the kernel.

use mlua::{Lua, MultiValue, Table, Value};
use serde::Deserialize;

use crate::error::Failure;
use crate::kernel::{Edit, EditOptions, ListOptions, ReadOptions};
use crate::lua::api::{options, outcome};
use crate::lua::runtime::host_data;

pub fn register(lua: &Lua, natives: &Table) -> mlua::Result<()> {
    natives.set("fs_read", lua.create_function(read)?)?;
    natives.set("fs_read_text", lua.create_function(read_text)?)?;
    natives.set("fs_write", lua.create_function(write)?)?;
    natives.set("fs_edit", lua.create_function(edit)?)?;
    natives.set("fs_multi_edit", lua.create_function(multi_edit)?)?;
    natives.set("fs_list", lua.create_function(list)?)?;
    natives.set("fs_exists", lua.create_function(exists)?)?;
    natives.set("fs_mkdir", lua.create_function(mkdir)?)?;
    Ok(())
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
struct EditOpts {
    #[serde(default)]
    replace_all: bool,
    #[serde(default)]
    dry_run: bool,
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
        let kernel = &host_data(lua).kernel;
        kernel.read(&path, ReadOptions { offset: o.offset, limit: o.limit }).map_err(Failure::from)
    });
    outcome(lua, result)
}

fn read_text(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    outcome(lua, host_data(lua).kernel.read_text(&path).map_err(Failure::from))
}

fn write(lua: &Lua, (path, content, opts): (String, mlua::String, Value)) -> mlua::Result<MultiValue> {
    let result = options::<WriteOpts>(lua, opts, "rein.fs.write").and_then(|o| {
        let kernel = &host_data(lua).kernel;
        kernel.write(&path, &content.as_bytes(), o.expected_sha256.as_deref()).map_err(Failure::from)
    });
    outcome(lua, result)
}

fn edit(lua: &Lua, (path, old, new, opts): (String, String, String, Value)) -> mlua::Result<MultiValue> {
    let result = options::<EditOpts>(lua, opts, "rein.fs.edit").and_then(|o| {
        let edit = Edit { old_string: old, new_string: new, replace_all: o.replace_all };
        let opts = EditOptions { dry_run: o.dry_run, expected_sha256: o.expected_sha256.as_deref() };
        host_data(lua).kernel.edit(&path, edit, opts).map_err(Failure::from)
    });
    outcome(lua, result)
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MultiEditOpts {
    #[serde(default)]
    dry_run: bool,
    expected_sha256: Option<String>,
}

fn multi_edit(lua: &Lua, (path, edits, opts): (String, Value, Value)) -> mlua::Result<MultiValue> {
    let edits = options::<Vec<Edit>>(lua, edits, "the edits of rein.fs.multi_edit");
    let result = edits.and_then(|edits| {
        let o = options::<MultiEditOpts>(lua, opts, "rein.fs.multi_edit")?;
        let opts = EditOptions { dry_run: o.dry_run, expected_sha256: o.expected_sha256.as_deref() };
        host_data(lua).kernel.multi_edit(&path, &edits, opts).map_err(Failure::from)
    });
    outcome(lua, result)
}

fn list(lua: &Lua, (path, opts): (Option<String>, Value)) -> mlua::Result<MultiValue> {
    let result = options::<ListOpts>(lua, opts, "rein.fs.list").and_then(|o| {
        let opts = ListOptions { depth: o.depth.unwrap_or(1), max_entries: o.max_entries.unwrap_or(1000) };
        host_data(lua).kernel.list(path.as_deref().unwrap_or("."), opts).map_err(Failure::from)
    });
    outcome(lua, result)
}

fn exists(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    outcome(lua, host_data(lua).kernel.exists(&path).map_err(Failure::from))
}

fn mkdir(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    outcome(lua, host_data(lua).kernel.create_dir(&path).map_err(Failure::from))
}
