//! `ctx:attach(kind, content, label?)`: a step keeps a file in its run's folder as evidence (the
//! launched app's screenshot, its UI tree and that tree's text form), written by the kernel
//! under a name rein chooses, and listed in the step's report. Only the run the step belongs to:
//! a tool or recipe cannot put a file into another run's folder, nor choose the file's name.

use std::path::Path;

use mlua::{Function, IntoLuaMulti, Lua, Table};

use super::report::{Attachment, AttachmentKind, RUNS_DIR};
use crate::error::{Code, Failure};
use crate::lua::{api, state};

/// The largest attachment a step keeps.
const ATTACH_MAX: usize = 16 << 20;

/// The native behind `ctx:attach` for run `run_id`: writes the file, records it in the ctx's
/// `_attachments`, answers `true, path` or `false, failure`.
pub fn attach_function(lua: &Lua, run_id: &str) -> mlua::Result<Function> {
    let run_id = run_id.to_string();
    lua.create_function(move |lua, (ctx, kind, content, label): (Table, String, mlua::String, Option<String>)| {
        let attached = attach(lua, &run_id, &kind, &content.as_bytes(), label.as_deref());
        match attached {
            Ok(attachment) => {
                let list: Table = ctx.get("_attachments")?;
                let entry = lua.create_table()?;
                entry.set("kind", kind)?;
                entry.set("path", attachment.path.clone())?;
                entry.set("label", attachment.label.clone())?;
                list.push(entry)?;
                (true, attachment.path).into_lua_multi(lua)
            }
            Err(failure) => api::outcome::<()>(lua, Err(failure)),
        }
    })
}

/// What the step attached, in order (the last of a kind and label wins).
pub fn attachments_of(ctx: &Table) -> Vec<Attachment> {
    let Ok(list) = ctx.get::<Table>("_attachments") else { return Vec::new() };
    let mut out: Vec<Attachment> = Vec::new();
    for entry in list.sequence_values::<Table>().filter_map(Result::ok) {
        let (Ok(kind), Ok(path)) = (entry.get::<String>("kind"), entry.get::<String>("path")) else { continue };
        let Some(kind) = kind_named(&kind) else { continue };
        let label = entry.get::<Option<String>>("label").ok().flatten();
        out.retain(|a| a.path != path);
        out.push(Attachment { kind, path, label });
    }
    out
}

fn kind_named(name: &str) -> Option<AttachmentKind> {
    match name {
        "screenshot" => Some(AttachmentKind::Screenshot),
        "ui_tree" => Some(AttachmentKind::UiTree),
        "ui_text" => Some(AttachmentKind::UiText),
        _ => None,
    }
}

fn attach(lua: &Lua, run_id: &str, kind: &str, content: &[u8], label: Option<&str>) -> Result<Attachment, Failure> {
    let kind = kind_named(kind)
        .ok_or_else(|| invalid(format!("ctx:attach kind {kind:?} is none of screenshot, ui_tree, ui_text")))?;
    if let Some(label) = label.filter(|l| !is_label(l)) {
        return Err(invalid(format!(
            "ctx:attach label {label:?} must be 1 to 32 lowercase letters, digits and single -"
        )));
    }
    check_content(kind, content)?;
    let (stem, ext) = match kind {
        AttachmentKind::Screenshot => ("screen", "jpeg"),
        AttachmentKind::UiTree => ("layout", "json"),
        AttachmentKind::UiText => ("layout", "txt"),
    };
    let name = match label {
        Some(label) => format!("{stem}-{label}.{ext}"),
        None => format!("{stem}.{ext}"),
    };
    let path = format!("{RUNS_DIR}/{run_id}/{name}");
    state::kernel(lua)
        .write_rein_file(Path::new(&path), content)
        .map_err(|e| Failure::new(Code::IoError, format!("cannot keep {path}: {e}")))?;
    Ok(Attachment { kind, path, label: label.map(String::from) })
}

/// The content is what its kind says: a report page embeds it.
fn check_content(kind: AttachmentKind, content: &[u8]) -> Result<(), Failure> {
    if content.len() > ATTACH_MAX {
        return Err(invalid(format!("an attachment holds at most {} MB", ATTACH_MAX >> 20)));
    }
    let ok = match kind {
        // JPEG's start of image and the next marker (ITU T.81 B.1.1.3).
        AttachmentKind::Screenshot => content.starts_with(&[0xFF, 0xD8, 0xFF]),
        AttachmentKind::UiTree => serde_json::from_slice::<serde_json::Value>(content).is_ok(),
        AttachmentKind::UiText => std::str::from_utf8(content).is_ok(),
    };
    if ok {
        return Ok(());
    }
    let what = match kind {
        AttachmentKind::Screenshot => "a JPEG",
        AttachmentKind::UiTree => "JSON",
        AttachmentKind::UiText => "UTF-8 text",
    };
    Err(invalid(format!("ctx:attach {kind}: the content is not {what}")))
}

fn is_label(label: &str) -> bool {
    label.len() <= 32
        && label.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

fn invalid(message: String) -> Failure {
    Failure::new(Code::InvalidArgs, message)
}
