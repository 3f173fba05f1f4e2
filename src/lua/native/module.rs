//! A native module as the embedder declares it: its name, doc, and functions with typed
//! parameters and returns.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::handle::NativeCall;
use crate::error::{Code, Failure};

/// What a native function returns: a JSON value for the script, or a failure it raises.
pub type NativeResult = Result<Value, Failure>;

type Run = Arc<dyn Fn(NativeCall, Vec<Value>) -> Pin<Box<dyn Future<Output = NativeResult> + Send>> + Send + Sync>;

/// The types a parameter may declare (a trailing `?` makes it optional).
const TYPES: [&str; 6] = ["string", "integer", "number", "boolean", "table", "any"];

/// One parameter: its name, type (`string`, `integer`, `number`, `boolean`, `table`, `any`;
/// `?` at the end for optional) and doc.
#[derive(Debug, Clone)]
pub struct NativeParam {
    /// As the stubs name it.
    pub name: String,
    /// `string`, `integer`, `number`, `boolean`, `table` or `any`, `?` at the end if optional.
    pub ty: String,
    /// One line for the stubs.
    pub doc: String,
}

impl NativeParam {
    /// Whether it may be left out (its type ends with `?`).
    pub fn is_optional(&self) -> bool {
        self.ty.ends_with('?')
    }

    /// The type without the optional mark.
    pub fn base_type(&self) -> &str {
        self.ty.trim_end_matches('?')
    }
}

/// One function of a native module.
#[derive(Clone)]
pub struct NativeFunction {
    /// `rein.<module>.<name>`.
    pub name: String,
    /// What it does, for the stubs.
    pub doc: String,
    /// Its parameters, in order.
    pub params: Vec<NativeParam>,
    /// lua-language-server types of what it returns (`boolean`, `{path: string}`), with docs.
    pub returns: Vec<(String, String)>,
    pub(crate) run: Run,
}

impl std::fmt::Debug for NativeFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeFunction").field("name", &self.name).field("params", &self.params).finish()
    }
}

impl NativeFunction {
    /// A function that runs to its end without waiting (reading or writing files through
    /// `call`, asking the embedder's own state). Its arguments arrive as JSON, one per
    /// declared parameter (`null` for an optional one left out), already checked against
    /// their declared types.
    pub fn new(
        name: impl Into<String>,
        doc: impl Into<String>,
        run: impl Fn(&NativeCall, &[Value]) -> NativeResult + Send + Sync + 'static,
    ) -> NativeFunction {
        let run = Arc::new(run);
        NativeFunction::new_async(name, doc, move |call, args| {
            let run = run.clone();
            async move { run(&call, &args) }
        })
    }

    /// A function that waits (running a program through [`NativeCall::run`]).
    pub fn new_async<F>(
        name: impl Into<String>,
        doc: impl Into<String>,
        run: impl Fn(NativeCall, Vec<Value>) -> F + Send + Sync + 'static,
    ) -> NativeFunction
    where
        F: Future<Output = NativeResult> + Send + 'static,
    {
        NativeFunction {
            name: name.into(),
            doc: doc.into(),
            params: Vec::new(),
            returns: Vec::new(),
            run: Arc::new(move |call, args| Box::pin(run(call, args))),
        }
    }

    /// Declares the next parameter.
    pub fn param(mut self, name: impl Into<String>, ty: impl Into<String>, doc: impl Into<String>) -> Self {
        self.params.push(NativeParam { name: name.into(), ty: ty.into(), doc: doc.into() });
        self
    }

    /// Declares what it returns, as lua-language-server writes a type.
    pub fn returns(mut self, ty: impl Into<String>, doc: impl Into<String>) -> Self {
        self.returns.push((ty.into(), doc.into()));
        self
    }
}

/// A module of native functions, served as `rein.<name>`.
#[derive(Debug, Clone)]
pub struct NativeModule {
    /// `rein.<name>`: a lowercase Lua identifier rein's own API does not use.
    pub name: String,
    /// What the module is for, for the stubs.
    pub doc: String,
    /// Its functions.
    pub functions: Vec<NativeFunction>,
}

impl NativeModule {
    /// A module without functions yet (add them with [`NativeModule::function`]).
    pub fn new(name: impl Into<String>, doc: impl Into<String>) -> NativeModule {
        NativeModule { name: name.into(), doc: doc.into(), functions: Vec::new() }
    }

    /// Adds `function`.
    pub fn function(mut self, function: NativeFunction) -> Self {
        self.functions.push(function);
        self
    }

    /// Why this module cannot be served (a bad name, a type rein does not check), if so.
    fn problem(&self, taken: &[&str]) -> Option<String> {
        let name = &self.name;
        if !is_identifier(name) {
            return Some(format!("native module name {name:?} must be a lowercase Lua identifier, like \"ide\""));
        }
        if taken.contains(&name.as_str()) {
            return Some(format!(
                "native module name {name:?} is taken by rein's own API or another module; choose another"
            ));
        }
        let mut seen: Vec<&str> = Vec::new();
        for function in &self.functions {
            if !is_identifier(&function.name) || seen.contains(&function.name.as_str()) {
                return Some(format!("rein.{name}.{}: function names must be distinct Lua identifiers", function.name));
            }
            seen.push(&function.name);
            let mut optional_seen = false;
            for param in &function.params {
                if !TYPES.contains(&param.base_type()) {
                    return Some(format!(
                        "rein.{name}.{}: parameter {} has type {:?}; use one of {} (with ? when optional)",
                        function.name,
                        param.name,
                        param.ty,
                        TYPES.join(", ")
                    ));
                }
                if optional_seen && !param.is_optional() {
                    return Some(format!(
                        "rein.{name}.{}: required parameter {} comes after an optional one",
                        function.name, param.name
                    ));
                }
                optional_seen |= param.is_optional();
            }
        }
        None
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The native modules a host serves, in the order they were added.
#[derive(Debug, Clone, Default)]
pub struct NativeModules(Arc<Vec<NativeModule>>);

impl NativeModules {
    /// Adds `module`; refuses a name rein or an earlier module uses, and undeclared types.
    pub fn add(&mut self, module: NativeModule) -> Result<(), Failure> {
        let mut taken: Vec<&str> = crate::lua::api::taken_names();
        taken.extend(self.0.iter().map(|m| m.name.as_str()));
        if let Some(problem) = module.problem(&taken) {
            return Err(Failure::new(Code::InvalidConfig, problem));
        }
        Arc::make_mut(&mut self.0).push(module);
        Ok(())
    }

    /// The modules, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &NativeModule> {
        self.0.iter()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo() -> NativeFunction {
        NativeFunction::new("echo", "", |_, args| Ok(args[0].clone()))
    }

    #[test]
    fn names_and_types_are_checked_when_a_module_is_added() {
        let mut modules = NativeModules::default();
        assert!(modules.add(NativeModule::new("fs", "")).is_err(), "rein.fs is rein's own");
        assert!(modules.add(NativeModule::new("Ide", "")).is_err());
        let bad_type = NativeModule::new("ide", "").function(echo().param("x", "strnig", ""));
        assert!(modules.add(bad_type).unwrap_err().message.contains("strnig"));
        let late_required =
            NativeModule::new("ide", "").function(echo().param("a", "string?", "").param("b", "string", ""));
        assert!(modules.add(late_required).is_err());
        assert!(modules.add(NativeModule::new("ide", "").function(echo().param("x", "any", ""))).is_ok());
        assert!(modules.add(NativeModule::new("ide", "")).is_err(), "a name once");
    }
}
