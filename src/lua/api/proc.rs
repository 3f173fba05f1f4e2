//! `rein.proc.run(program, args, {cwd?, timeout_ms?, stdin?, env?, signing?, on_line?})`: a
//! toolchain program through the kernel's checks, for the call it belongs to. Returns {code,
//! signal, stdout, stderr, timed_out, duration_ms, truncated}; a timeout raises TIMEOUT with the
//! output so far in its details. `signing = "<config>"` has the kernel append hap-sign-tool's
//! passwords from the environment variables home config.toml names (the script never sees
//! them); `rein.proc.signing_status(config)` says whether they are usable, without values.

use std::collections::BTreeMap;

use mlua::{Function, Lua, MultiValue, Table, Value};
use serde::Deserialize;

use super::{options, outcome, take_field, Namespace};
use crate::error::Failure;
use crate::kernel::process::spawn::{StopReason, Stream};
use crate::kernel::RunOptions;
use crate::lua::{failure, scope, state};

pub fn table(api: &Namespace) -> mlua::Result<Table> {
    api.table(vec![
        ("run", api.lua.create_async_function(run)?),
        ("signing_status", api.lua.create_function(signing_status)?),
    ])
}

fn signing_status(lua: &Lua, config: String) -> mlua::Result<MultiValue> {
    outcome(lua, Ok(state::kernel(lua).signing_status(&config)))
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunOpts {
    cwd: Option<String>,
    timeout_ms: Option<u64>,
    stdin: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    signing: Option<String>,
}

async fn run(lua: Lua, (program, args, opts): (String, Vec<String>, Value)) -> mlua::Result<MultiValue> {
    let (on_line, opts) = take_field(&lua, &opts, "on_line")?;
    let on_line: Option<Function> = match on_line {
        Value::Nil => None,
        Value::Function(f) => Some(f),
        other => {
            let message =
                format!("bad options for rein.proc.run: on_line must be a function, not {}", other.type_name());
            return outcome::<()>(&lua, Err(Failure::new(crate::error::Code::InvalidArgs, message)));
        }
    };
    let parsed = match options::<RunOpts>(&lua, opts, "rein.proc.run") {
        Ok(parsed) => parsed,
        Err(failure) => return outcome::<()>(&lua, Err(failure)),
    };
    let call = match scope::current() {
        Ok(call) => call,
        Err(failure) => return outcome::<()>(&lua, Err(failure)),
    };
    let run_opts = RunOptions {
        cwd: parsed.cwd,
        timeout_ms: parsed.timeout_ms,
        stdin: parsed.stdin.map(String::into_bytes),
        env: parsed.env.into_iter().collect(),
        signing: parsed.signing,
    };
    // A failing callback (an error, or a tripped budget) stops the program; its error is the
    // call's error.
    let mut callback_failure: Option<Failure> = None;
    let mut on_line_fn = |stream: Stream, line: &str| -> Result<(), StopReason> {
        let Some(callback) = &on_line else { return Ok(()) };
        let name = match stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        };
        callback.call::<()>((line, name)).map_err(|err| {
            let failure = failure::from_mlua_error(&lua, &err);
            let reason = StopReason(failure.message.clone());
            callback_failure = Some(failure);
            reason
        })
    };
    let result = state::kernel(&lua).run(&call, &program, args, run_opts, &mut on_line_fn).await;
    let result = match (result, callback_failure) {
        (Err(_), Some(failure)) => Err(failure),
        (result, _) => result.map_err(Failure::from),
    };
    let result = super::awake(&lua).and(result);
    outcome(&lua, result)
}
