//! Native modules in a Lua state: `rein.<module>.<function>`, each argument checked against
//! its declared type before the Rust function sees it, failures raised as structured errors
//! like every `rein` native. They are installed before the globals are sealed, so the module
//! tables are read-only views like `rein.fs`.

use mlua::{Function, Lua, MultiValue, Table, Value};
use serde_json::json;

use super::handle::NativeCall;
use super::module::{NativeFunction, NativeModules, NativeParam};
use crate::error::{Code, Failure};
use crate::lua::api::{awake, outcome};
use crate::lua::{convert, current_call, state};

/// Adds every module of `natives` to `rein`.
pub(crate) fn install(lua: &Lua, rein: &Table, raising: &Function, natives: &NativeModules) -> mlua::Result<()> {
    for module in natives.iter() {
        let table = lua.create_table()?;
        for function in &module.functions {
            let path = format!("rein.{}.{}", module.name, function.name);
            let native = make(lua, path, function.clone())?;
            table.set(function.name.as_str(), raising.call::<Function>(native)?)?;
        }
        rein.set(module.name.as_str(), table)?;
    }
    Ok(())
}

fn make(lua: &Lua, path: String, function: NativeFunction) -> mlua::Result<Function> {
    lua.create_async_function(move |lua, given: MultiValue| {
        let (path, function) = (path.clone(), function.clone());
        async move {
            let args = match arguments(&lua, &path, &function.params, given) {
                Ok(args) => args,
                Err(failure) => return outcome::<()>(&lua, Err(failure)),
            };
            let call = match current_call::get() {
                Ok(call) => call,
                Err(failure) => return outcome::<()>(&lua, Err(failure)),
            };
            let handle = NativeCall::new(state::kernel(&lua), call);
            let result = (function.run)(handle, args).await;
            let result = awake(&lua).and(result);
            outcome(&lua, result)
        }
    })
}

/// The arguments as JSON, one per declared parameter; a missing, extra or mistyped one is
/// INVALID_ARGS naming the function and the parameter.
fn arguments(
    lua: &Lua,
    path: &str,
    params: &[NativeParam],
    given: MultiValue,
) -> Result<Vec<serde_json::Value>, Failure> {
    let given: Vec<Value> = given.into_iter().collect();
    if given.len() > params.len() {
        let message = format!("{path} takes {} argument(s), got {}", params.len(), given.len());
        return Err(Failure::new(Code::InvalidArgs, message).with_details(json!({"function": path})));
    }
    let mut args = Vec::with_capacity(params.len());
    for (i, param) in params.iter().enumerate() {
        let mut value = given.get(i).cloned().unwrap_or(Value::Nil);
        if let Some(problem) = mistyped(param, &value) {
            let message = format!("{path}: argument {} ({}) must be {}, got {problem}", i + 1, param.name, param.ty);
            return Err(Failure::new(Code::InvalidArgs, message)
                .with_details(json!({"function": path, "param": param.name, "expected": param.ty})));
        }
        if let (Value::Number(n), "integer") = (&value, param.base_type()) {
            // A float with no fraction (`6 / 2`): the embedder reads an integer.
            value = Value::Integer(*n as i64);
        }
        let json = convert::try_lua_to_json(lua, value).map_err(|e| {
            Failure::new(
                Code::InvalidArgs,
                format!("{path}: argument {} ({}) cannot be passed: {e}", i + 1, param.name),
            )
        })?;
        args.push(json);
    }
    Ok(args)
}

/// What was given instead of the declared type, or None when it fits.
fn mistyped(param: &NativeParam, value: &Value) -> Option<String> {
    if value.is_nil() {
        return (!param.is_optional()).then(|| "nothing".to_string());
    }
    let fits = match param.base_type() {
        "string" => value.is_string(),
        // 2^63 itself is out of range: i64 ends one below it.
        "integer" => {
            value.is_integer()
                || value.as_number().is_some_and(|n| n.fract() == 0.0 && (-(2f64.powi(63))..2f64.powi(63)).contains(&n))
        }
        // JSON holds no NaN or infinity: the embedder would get `null` for a `number`.
        "number" => value.is_integer() || value.as_number().is_some_and(f64::is_finite),
        "boolean" => value.is_boolean(),
        "table" => value.is_table(),
        _ => !value.is_function() && !value.is_thread() && !value.is_userdata(),
    };
    (!fits).then(|| value.type_name().to_string())
}
