//! What a tool (or recipe) says about its effects, for the hosts that decide what to run
//! without asking: `annotations = { read_only, destructive, idempotent, open_world }` in its
//! table, served to MCP clients as `readOnlyHint`, `destructiveHint`, `idempotentHint` and
//! `openWorldHint` (the MCP specification, `ToolAnnotations` in
//! modelcontextprotocol/modelcontextprotocol `schema/2025-06-18/schema.ts`).
//!
//! They are hints a client may trust, so a declaration that contradicts itself is refused
//! (`rein check` shows it): a tool cannot be read-only and destructive at once, and the hints
//! that matter only for tools that change something (`destructive`, `idempotent`) cannot be
//! set on a read-only one to say something it does not mean.

use mlua::{Lua, LuaSerdeExt, Value};
use serde::{Deserialize, Serialize};

use crate::kernel::policy::Restriction;
use crate::kernel::Call;
use crate::lua::declaration::{serde_reason, SpecError};

/// The four hints. `None` is "not declared": the client applies the specification's default
/// (not read-only, destructive, not idempotent, open-world — the worst case).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotations {
    /// It changes nothing: not in the workspace, not on a device, not elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// It may remove or overwrite something (false: it only adds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments changes nothing more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// It reaches things outside the workspace (a device, the network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// The keys a table may hold, as the editor stubs list them.
pub const FIELDS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

impl Annotations {
    /// Whether it declares anything at all.
    pub fn is_empty(&self) -> bool {
        *self == Annotations::default()
    }

    /// Whether every hint is declared (built-in tools declare all four).
    pub fn is_complete(&self) -> bool {
        self.read_only.is_some() && self.destructive.is_some() && self.idempotent.is_some() && self.open_world.is_some()
    }

    /// What the kernel holds a tool (or recipe) declaring these to, and every call it makes:
    /// `read_only = true` to reading, `destructive = false` to adding.
    pub fn restriction(&self) -> Option<Restriction> {
        match (self.read_only, self.destructive) {
            (Some(true), _) => Some(Restriction::ReadOnly),
            (_, Some(false)) => Some(Restriction::NotDestructive),
            _ => None,
        }
    }

    /// The MCP hint the kernel holds a tool declaring these to (`readOnlyHint`,
    /// `destructiveHint`), as `rein check` and `tools/list` (`_meta`) say; the other hints are
    /// the tool's word.
    pub fn enforced_hint(&self) -> Option<&'static str> {
        self.restriction().map(|restriction| match restriction {
            Restriction::ReadOnly => "readOnlyHint",
            Restriction::NotDestructive => "destructiveHint",
        })
    }

    /// `call`, held to what these annotations declare, which `name` declared.
    pub fn bind(&self, call: Call, name: &str) -> Call {
        match self.restriction() {
            Some(restriction) => call.bound_by(restriction, name),
            None => call,
        }
    }

    /// Refuses a declaration that contradicts itself.
    pub fn check(&self) -> Result<(), Contradiction> {
        if self.read_only == Some(true) && self.destructive == Some(true) {
            return Err(Contradiction::ReadOnlyDestructive);
        }
        if self.read_only == Some(true) && self.idempotent == Some(false) {
            return Err(Contradiction::ReadOnlyNotIdempotent);
        }
        Ok(())
    }
}

/// Two hints that cannot both hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Contradiction {
    #[error(
        "read_only = true and destructive = true contradict each other: a tool that only reads \
             destroys nothing. Declare read_only = false if it changes anything"
    )]
    ReadOnlyDestructive,
    #[error(
        "read_only = true and idempotent = false contradict each other: calling a tool that \
             changes nothing again changes nothing more. Leave idempotent out or set it to true"
    )]
    ReadOnlyNotIdempotent,
}

/// Reads the `annotations` field of a tool or recipe table (nil: none declared).
pub fn parse(lua: &Lua, value: Value, what: &str) -> Result<Annotations, SpecError> {
    let annotations: Annotations = match value {
        Value::Nil => return Ok(Annotations::default()),
        Value::Table(_) => lua
            .from_value(value)
            .map_err(|e| SpecError::Params { what: format!("{what}: annotations"), why: serde_reason(&e) })?,
        _ => {
            let expected = format!("a table {{ {} }} of booleans", FIELDS.join(", "));
            return Err(crate::lua::declaration::wrong(what, "annotations", &expected));
        }
    };
    annotations
        .check()
        .map_err(|why| SpecError::Params { what: format!("{what}: annotations"), why: why.to_string() })?;
    Ok(annotations)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(source: &str) -> Result<Annotations, SpecError> {
        let lua = Lua::new();
        let value: Value = lua.load(source).eval().unwrap();
        parse(&lua, value, "tool t")
    }

    #[test]
    fn the_four_hints_are_read() {
        let all = read("return { read_only = false, destructive = true, idempotent = true, open_world = true }");
        let all = all.unwrap();
        assert!(all.is_complete());
        assert_eq!(all.destructive, Some(true));
        assert!(read("return nil").unwrap().is_empty());
    }

    #[test]
    fn nonsense_is_refused_with_what_to_do() {
        let both = read("return { read_only = true, destructive = true }").unwrap_err().to_string();
        assert!(both.contains("contradict") && both.contains("read_only = false"), "{both}");
        assert!(read("return { read_only = true, idempotent = false }").is_err());
        let typo = read("return { readonly = true }").unwrap_err().to_string();
        assert!(typo.contains("read_only"), "{typo}");
        assert!(read("return { read_only = \"yes\" }").is_err());
        assert!(read("return true").is_err());
    }
}
