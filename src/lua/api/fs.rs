//! `rein.fs`: file access, every call checked by the kernel for the call it belongs to.

use mlua::{IntoLuaMulti, Lua, MultiValue, Table, Value};
use serde::Deserialize;

use super::declare::{Area, Class, Field, Home, Make, Native, Param, Returns};
use super::{options, outcome, take_field};
use crate::error::{Code, Failure};
use crate::kernel::{Edit, EditOptions, ListOptions, ReadOptions, ReadOutput};
use crate::lua::{convert, current_call, state};

const PATH: Param = Param { name: "path", ty: "string", doc: "relative to the workspace root, or absolute" };
const RECEIVED_NAME: Param = Param { name: "name", ty: "string", doc: "rein-<name>.jpeg or .json" };

pub const AREA: Area = Area {
    home: Home::Table("fs"),
    doc: "Files, every access checked by the kernel for the call it belongs to (scope, approvals, journal).",
    natives: &[
        Native {
            name: "read",
            doc: "Numbered lines of a text file, as the read_file tool returns them.",
            params: &[PATH, Param { name: "opts", ty: "rein.fs.ReadOptions?", doc: "which lines" }],
            returns: &[Returns { ty: "rein.fs.ReadResult", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(read)),
        },
        Native {
            name: "read_text",
            doc: "A whole text file and its sha256 (pass it to write/edit as expected_sha256).",
            params: &[PATH],
            returns: &[Returns { ty: "rein.fs.TextFile", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(read_text)),
        },
        Native {
            name: "write",
            doc: "Writes a file atomically and durably (created with its folders if missing).",
            params: &[
                PATH,
                Param { name: "content", ty: "string", doc: "the whole new content" },
                Param { name: "opts", ty: "rein.fs.WriteOptions?", doc: "" },
            ],
            returns: &[Returns { ty: "rein.fs.WriteResult", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(write)),
        },
        Native {
            name: "edit",
            doc: "Replaces one exact, unique occurrence of `old` with `new` (or every one with \
                  replace_all). A missing or repeated `old` raises OLD_STRING_NOT_FOUND or \
                  OLD_STRING_NOT_UNIQUE and changes nothing.",
            params: &[
                PATH,
                Param { name: "old", ty: "string", doc: "exact text to replace" },
                Param { name: "new", ty: "string", doc: "replacement text (literal)" },
                Param { name: "opts", ty: "rein.fs.EditOptions?", doc: "" },
            ],
            returns: &[Returns { ty: "rein.fs.EditResult", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(edit)),
        },
        Native {
            name: "multi_edit",
            doc: "Applies edits in order, in memory, then writes once: all or nothing.",
            params: &[
                PATH,
                Param { name: "edits", ty: "rein.fs.Edit[]", doc: "" },
                Param { name: "opts", ty: "rein.fs.MultiEditOptions?", doc: "" },
            ],
            returns: &[Returns { ty: "rein.fs.EditResult", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(multi_edit)),
        },
        Native {
            name: "list",
            doc: "The entries of a folder (default: the workspace root), as the list_dir tool.",
            params: &[
                Param { name: "path", ty: "string?", doc: "default \".\"" },
                Param { name: "opts", ty: "rein.fs.ListOptions?", doc: "" },
            ],
            returns: &[Returns { ty: "rein.fs.ListResult", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(list)),
        },
        Native {
            name: "exists",
            doc: "Whether something exists at `path` (checked like a read).",
            params: &[PATH],
            returns: &[Returns { ty: "boolean", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(exists)),
        },
        Native {
            name: "in_workspace",
            doc: "Whether `path` lies in the workspace proper: not outside it (a link followed), not \
                  a protected folder, a policy file or rein's home. Asks nobody.",
            params: &[PATH],
            returns: &[Returns { ty: "boolean", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(in_workspace)),
        },
        Native {
            name: "mkdir",
            doc: "Creates a folder and its parents (checked like a write).",
            params: &[PATH],
            returns: &[Returns { ty: "boolean", doc: "true when it was created, false when it existed" }],
            make: Make::Raising(|lua| lua.create_function(mkdir)),
        },
        Native {
            name: "reserve_received",
            doc: "A new name for a file this call will receive from a device, and where hdc \
                  should put it: `rein-<what>-<32 random hex digits>.<ext>` and the \
                  workspace-relative `.rein-received/<name>` (the folder is made). Give the \
                  device's scratch file the same name (`/data/local/tmp/<name>`): `hdc file recv` \
                  into the transit folder is allowed only from that file into that place, once, \
                  for the call that reserved it.",
            params: &[
                Param { name: "what", ty: "string", doc: "1 to 16 lowercase letters: `screen`, `ui`" },
                Param { name: "ext", ty: "\"jpeg\"|\"json\"", doc: "" },
            ],
            returns: &[Returns { ty: "rein.fs.Reservation", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(reserve_received)),
        },
        Native {
            name: "take_received",
            doc: "The bytes of `.rein-received/<name>`, and the file removed: only a name this call \
                  reserved and its own hdc received (never a file that was there before).",
            params: &[RECEIVED_NAME],
            returns: &[Returns { ty: "string", doc: "its bytes (a JPEG, a JSON text …)" }],
            make: Make::Raising(|lua| lua.create_function(take_received)),
        },
        Native {
            name: "stage_packages",
            doc: "Copies signed packages (each a .hap or .hsp in the workspace, checked like a read) into a new folder of rein's own, `.rein/install/<id>`, which no tool or program can write: `hdc install` of that folder installs them together.",
            params: &[Param { name: "paths", ty: "string[]", doc: "the packages, each name once" }],
            returns: &[Returns { ty: "rein.fs.Staged", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(stage_packages)),
        },
        Native {
            name: "map_frames",
            doc: "Crash frames mapped to the workspace's .ets file, line and column through the build's source map (and, for a release build, its name cache), each read like a read; a frame that cannot be mapped says why.",
            params: &[Param { name: "frames", ty: "rein.fs.Frame[]", doc: "parsed frames, e.g. from a test failure" }],
            returns: &[Returns { ty: "rein.fs.SourceFrame[]", doc: "one per frame, in order" }],
            make: Make::Raising(|lua| lua.create_function(map_frames)),
        },
        Native {
            name: "map_stack",
            doc: "Stack lines as the device writes them (`at f (entry|entry|1.0.0|src/main/ets/pages/Index.ts:71:71)` or an already restored `.ets` frame), each parsed and mapped as map_frames does.",
            params: &[Param { name: "lines", ty: "string[]", doc: "one frame a line" }],
            returns: &[Returns { ty: "rein.fs.SourceFrame[]", doc: "one per line, in order" }],
            make: Make::Raising(|lua| lua.create_function(map_stack)),
        },
        Native {
            name: "build_maps",
            doc: "Where a module's build keeps its source map and its release name cache (the folders hstack's -s and -n take), as map_frames reads them.",
            params: &[
                Param { name: "module_dir", ty: "string", doc: "the module's folder (its srcPath)" },
                Param { name: "mode", ty: "\"debug\"|\"release\"", doc: "the build mode" },
            ],
            returns: &[Returns { ty: "rein.fs.BuildMaps", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(build_maps)),
        },
    ],
    classes: &[
        Class {
            name: "rein.fs.Frame",
            doc: "One frame of a stack, parsed.",
            fields: &[
                Field { name: "name", ty: "string?", doc: "the function as the device named it" },
                Field { name: "module", ty: "string", doc: "the HAP's module (a raw frame's entry package)" },
                Field { name: "path", ty: "string", doc: "`src/main/ets/pages/Index.ts` (raw) or `entry/src/main/ets/pages/Index.ets` (restored)" },
                Field { name: "line", ty: "integer", doc: "1-based" },
                Field { name: "column", ty: "integer", doc: "1-based" },
                Field { name: "key", ty: "string?", doc: "a keyed frame's whole `entry|entry|1.0.0|<path>` (a compiled frame's source map key); nil for the path form" },
            ],
        },
        Class {
            name: "rein.fs.SourceFrame",
            doc: "A frame mapped to the workspace, or why not.",
            fields: &[
                Field { name: "name", ty: "string?", doc: "the source name (the name cache's, in a release build)" },
                Field { name: "file", ty: "string?", doc: "workspace path of the .ets file" },
                Field { name: "line", ty: "integer?", doc: "" },
                Field { name: "column", ty: "integer?", doc: "" },
                Field { name: "mapped", ty: "boolean", doc: "" },
                Field { name: "why", ty: "string?", doc: "why it could not be mapped" },
                Field { name: "source_map", ty: "string?", doc: "the map it was read from" },
                Field { name: "device", ty: "string", doc: "the frame's place as the device wrote it" },
            ],
        },
        Class {
            name: "rein.fs.BuildMaps",
            doc: "The folders of one build's maps.",
            fields: &[
                Field { name: "source_maps", ty: "string", doc: "the folder holding sourceMaps.map" },
                Field { name: "name_cache", ty: "string", doc: "the folder holding a release build's nameCache.json" },
            ],
        },
        Class {
            name: "rein.fs.ReadOptions",
            doc: "",
            fields: &[
                Field { name: "offset", ty: "integer?", doc: "first line, 1-based (default 1)" },
                Field { name: "limit", ty: "integer?", doc: "how many lines (default 2000)" },
            ],
        },
        Class {
            name: "rein.fs.ReadResult",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "" },
                Field { name: "content", ty: "string", doc: "the lines, each `{n:>6}\\t{line}`" },
                Field { name: "total_lines", ty: "integer", doc: "" },
                Field { name: "start_line", ty: "integer", doc: "" },
                Field { name: "end_line", ty: "integer", doc: "" },
                Field { name: "truncated", ty: "boolean", doc: "more lines follow" },
                Field { name: "sha256", ty: "string", doc: "of the whole file" },
            ],
        },
        Class {
            name: "rein.fs.TextFile",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "" },
                Field { name: "text", ty: "string", doc: "" },
                Field { name: "sha256", ty: "string", doc: "" },
            ],
        },
        Class {
            name: "rein.fs.WriteOptions",
            doc: "",
            fields: &[Field {
                name: "expected_sha256",
                ty: "string?",
                doc: "refuse (STALE_FILE) unless the file has this sha256",
            }],
        },
        Class {
            name: "rein.fs.Reservation",
            doc: "",
            fields: &[
                Field { name: "name", ty: "string", doc: "rein-<what>-<random>.<ext>, the device file's name too" },
                Field { name: "path", ty: "string", doc: "`.rein-received/<name>`: where `hdc file recv` puts it" },
            ],
        },
        Class {
            name: "rein.fs.Staged",
            doc: "",
            fields: &[
                Field { name: "dir", ty: "string", doc: "the folder, relative to the workspace root" },
                Field { name: "packages", ty: "string[]", doc: "the packages copied, as named" },
            ],
        },
        Class {
            name: "rein.fs.WriteResult",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "" },
                Field { name: "bytes", ty: "integer", doc: "" },
                Field { name: "sha256", ty: "string", doc: "" },
                Field { name: "created", ty: "boolean", doc: "" },
            ],
        },
        Class {
            name: "rein.fs.MultiEditOptions",
            doc: "",
            fields: &[
                Field { name: "dry_run", ty: "boolean?", doc: "show the diff, write nothing" },
                Field {
                    name: "expected_sha256",
                    ty: "string?",
                    doc: "refuse (STALE_FILE) unless the file has this sha256",
                },
            ],
        },
        Class {
            name: "rein.fs.EditOptions",
            doc: "",
            fields: &[
                Field { name: "replace_all", ty: "boolean?", doc: "replace every occurrence" },
                Field { name: "dry_run", ty: "boolean?", doc: "show the diff, write nothing" },
                Field {
                    name: "expected_sha256",
                    ty: "string?",
                    doc: "refuse (STALE_FILE) unless the file has this sha256",
                },
            ],
        },
        Class {
            name: "rein.fs.Edit",
            doc: "",
            fields: &[
                Field { name: "old_string", ty: "string", doc: "" },
                Field { name: "new_string", ty: "string", doc: "" },
                Field { name: "replace_all", ty: "boolean?", doc: "" },
            ],
        },
        Class {
            name: "rein.fs.Location",
            doc: "",
            fields: &[
                Field { name: "offset", ty: "integer", doc: "byte offset" },
                Field { name: "line", ty: "integer", doc: "" },
                Field { name: "column", ty: "integer", doc: "" },
            ],
        },
        Class {
            name: "rein.fs.EditResult",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "" },
                Field { name: "replacements", ty: "integer", doc: "" },
                Field { name: "locations", ty: "rein.fs.Location[]", doc: "" },
                Field {
                    name: "edits",
                    ty: "{replacements: integer, locations: rein.fs.Location[]}[]?",
                    doc: "one report per edit (multi_edit)",
                },
                Field { name: "sha256_before", ty: "string", doc: "" },
                Field { name: "sha256_after", ty: "string", doc: "" },
                Field { name: "diff", ty: "string", doc: "unified diff" },
                Field { name: "dry_run", ty: "boolean", doc: "" },
            ],
        },
        Class {
            name: "rein.fs.ListOptions",
            doc: "",
            fields: &[
                Field { name: "depth", ty: "integer?", doc: "default 1" },
                Field { name: "max_entries", ty: "integer?", doc: "default 1000" },
            ],
        },
        Class {
            name: "rein.fs.ListEntry",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "" },
                Field { name: "kind", ty: "\"file\"|\"dir\"|\"symlink\"|\"other\"", doc: "" },
                Field { name: "size", ty: "integer", doc: "" },
            ],
        },
        Class {
            name: "rein.fs.ListResult",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "" },
                Field { name: "entries", ty: "rein.fs.ListEntry[]", doc: "" },
                Field { name: "truncated", ty: "boolean", doc: "" },
            ],
        },
    ],
};

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
        Ok(state::kernel(lua).read(&current_call::get()?, &path, opts)?)
    });
    match result {
        Ok(out) => (true, read_output_table(lua, out)?).into_lua_multi(lua),
        Err(failure) => outcome::<()>(lua, Err(failure)),
    }
}

/// A read's result as the table [`outcome`] would make of it (a test holds them equal), built
/// by the bootstrap's constructor in one call.
fn read_output_table(lua: &Lua, out: ReadOutput) -> mlua::Result<Table> {
    let ReadOutput { path, content, total_lines, start_line, end_line, truncated, sha256 } = out;
    let make = &crate::lua::state::helpers(lua).read_output;
    make.call((path, content, total_lines, start_line, end_line, truncated, sha256))
}

fn read_text(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    let result = current_call::get().and_then(|call| Ok(state::kernel(lua).read_text(&call, &path)?));
    outcome(lua, result)
}

fn write(lua: &Lua, (path, content, opts): (String, mlua::String, Value)) -> mlua::Result<MultiValue> {
    let result = options::<WriteOpts>(lua, opts, "rein.fs.write").and_then(|o| {
        let call = current_call::get()?;
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
        Ok(state::kernel(lua).edit(&current_call::get()?, &path, edit, &opts)?)
    });
    outcome(lua, result)
}

fn multi_edit(lua: &Lua, (path, edits, opts): (String, Value, Value)) -> mlua::Result<MultiValue> {
    let result = options::<Vec<Edit>>(lua, edits, "the edits of rein.fs.multi_edit").and_then(|edits| {
        let opts = options::<EditOptions>(lua, opts, "rein.fs.multi_edit")?;
        Ok(state::kernel(lua).multi_edit(&current_call::get()?, &path, &edits, &opts)?)
    });
    outcome(lua, result)
}

fn list(lua: &Lua, (path, opts): (Option<String>, Value)) -> mlua::Result<MultiValue> {
    let result = options::<ListOpts>(lua, opts, "rein.fs.list").and_then(|o| {
        let opts = ListOptions { depth: o.depth.unwrap_or(1), max_entries: o.max_entries.unwrap_or(1000) };
        Ok(state::kernel(lua).list(&current_call::get()?, path.as_deref().unwrap_or("."), opts)?)
    });
    outcome(lua, result)
}

fn exists(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    let result = current_call::get().and_then(|call| Ok(state::kernel(lua).exists(&call, &path)?));
    outcome(lua, result)
}

fn in_workspace(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    outcome::<bool>(lua, Ok(state::kernel(lua).is_workspace_path(&path)))
}

fn stage_packages(lua: &Lua, paths: Vec<String>) -> mlua::Result<MultiValue> {
    let result = current_call::get().and_then(|call| Ok(state::kernel(lua).stage_packages(&call, &paths)?));
    outcome(lua, result)
}

fn map_frames(lua: &Lua, frames: Value) -> mlua::Result<MultiValue> {
    let parsed = convert::try_lua_to_json(lua, frames)
        .map(|json| if json.as_object().is_some_and(serde_json::Map::is_empty) { serde_json::json!([]) } else { json })
        .map_err(|e| e.to_string())
        .and_then(|json| {
            serde_json::from_value::<Vec<crate::harmony::crash_frames::Frame>>(json).map_err(|e| e.to_string())
        })
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("bad frames for rein.fs.map_frames: {e}")));
    let result = parsed.and_then(|frames| Ok(state::kernel(lua).map_frames(&current_call::get()?, &frames)));
    outcome(lua, result)
}

fn map_stack(lua: &Lua, lines: Vec<String>) -> mlua::Result<MultiValue> {
    let result = current_call::get().map(|call| state::kernel(lua).map_stack(&call, &lines));
    outcome(lua, result)
}

fn build_maps(lua: &Lua, (module_dir, mode): (String, String)) -> mlua::Result<MultiValue> {
    let result = crate::harmony::source_maps::BuildMaps::of(&module_dir, &mode)
        .ok_or_else(|| Failure::new(Code::InvalidArgs, format!("build mode {mode:?} is neither debug nor release")));
    outcome(lua, result)
}

fn mkdir(lua: &Lua, path: String) -> mlua::Result<MultiValue> {
    let result = current_call::get().and_then(|call| Ok(state::kernel(lua).create_dir(&call, &path)?));
    outcome(lua, result)
}

fn reserve_received(lua: &Lua, (what, ext): (String, String)) -> mlua::Result<MultiValue> {
    let result = current_call::get().and_then(|call| Ok(state::kernel(lua).reserve_received(&call, &what, &ext)?));
    outcome(lua, result)
}

fn take_received(lua: &Lua, name: String) -> mlua::Result<MultiValue> {
    let taken = current_call::get().and_then(|call| Ok(state::kernel(lua).take_received(&call, &name)?));
    match taken {
        Ok(bytes) => (true, lua.create_string(bytes)?).into_lua_multi(lua),
        Err(failure) => outcome::<()>(lua, Err(failure)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lua::api::declare::drift::{class_fields, serde_fields};

    #[test]
    fn option_classes_name_exactly_the_fields_the_natives_read() {
        assert_eq!(class_fields(&AREA, "rein.fs.ReadOptions"), serde_fields::<ReadOpts>());
        assert_eq!(class_fields(&AREA, "rein.fs.WriteOptions"), serde_fields::<WriteOpts>());
        assert_eq!(class_fields(&AREA, "rein.fs.ListOptions"), serde_fields::<ListOpts>());
        assert_eq!(class_fields(&AREA, "rein.fs.MultiEditOptions"), serde_fields::<EditOptions>());
        let mut edit = serde_fields::<EditOptions>();
        edit.push("replace_all".into()); // taken out of the options before the rest is read
        edit.sort();
        assert_eq!(class_fields(&AREA, "rein.fs.EditOptions"), edit);
    }
}
