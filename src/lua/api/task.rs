//! `rein.sleep(ms)`, `rein.now_ms()` and `rein.parallel(functions)`: waiting without spinning,
//! against a deadline, and running several functions at once (each may run programs; they interleave while programs run).

use std::time::Duration;

use mlua::{Function, Lua, MultiValue, Value};

use super::declare::{Area, Class, Field, Home, Make, Native, Param, Returns};
use super::outcome;
use crate::error::{Code, Failure};
use crate::lua::{current_call, failure, state};

pub const AREA: Area = Area {
    home: Home::Rein,
    doc: "",
    natives: &[
        Native {
            name: "sleep",
            doc: "Waits `ms` milliseconds (at most 60 000 a call) without spinning; other branches of rein.parallel run meanwhile.",
            params: &[Param { name: "ms", ty: "integer", doc: "" }],
            returns: &[],
            make: Make::Raising(|lua| lua.create_async_function(sleep)),
        },
        Native {
            name: "now_ms",
            doc: "Milliseconds on a monotonic clock, for deadlines (`rein.now_ms() - started`); never a date. It counts the time programs take, which counting sleeps does not.",
            params: &[],
            returns: &[Returns { ty: "integer", doc: "" }],
            make: Make::Plain(|lua| lua.create_function(|_, ()| Ok(now_ms()))),
        },
        Native {
            name: "parallel",
            doc: "Runs the functions at once, as part of the calling tool's call (each may run programs), and waits for all; one result per function, in order. A failure in one does not stop the others.",
            params: &[Param { name: "functions", ty: "(fun(): any)[]", doc: "" }],
            returns: &[Returns { ty: "rein.ParallelResult[]", doc: "" }],
            make: Make::Raising(|lua| lua.create_async_function(parallel)),
        },
    ],
    classes: &[Class {
        name: "rein.ParallelResult",
        doc: "",
        fields: &[
            Field { name: "ok", ty: "boolean", doc: "" },
            Field { name: "value", ty: "any", doc: "what the function returned, when ok" },
            Field { name: "error", ty: "rein.Error?", doc: "why it failed, when not ok" },
        ],
    }],
};

/// The longest one sleep may be; loops of sleeps still meet the wall-clock limit.
const MAX_SLEEP: Duration = Duration::from_secs(60);

pub async fn sleep(lua: Lua, ms: u64) -> mlua::Result<MultiValue> {
    let wanted = Duration::from_millis(ms);
    if wanted > MAX_SLEEP {
        let failure = Failure::new(
            Code::InvalidArgs,
            format!("rein.sleep takes at most {} ms; sleep in a loop to wait longer", MAX_SLEEP.as_millis()),
        );
        return outcome::<()>(&lua, Err(failure));
    }
    tokio::time::sleep(wanted).await;
    outcome(&lua, super::awake(&lua))
}

/// Milliseconds since this process first asked: a monotonic clock, so only differences mean
/// anything (the system clock may be set back; this never is).
fn now_ms() -> u64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let origin = ORIGIN.get_or_init(std::time::Instant::now);
    u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Runs every function concurrently, each as part of the calling tool's call; returns a list
/// of {ok, value} or {ok = false, error}.
pub async fn parallel(lua: Lua, functions: Vec<Function>) -> mlua::Result<MultiValue> {
    let call = match current_call::get() {
        Ok(call) => call,
        Err(failure) => return outcome::<()>(&lua, Err(failure)),
    };
    let run = state::helpers(&lua).run.clone();
    let mut branches = Vec::with_capacity(functions.len());
    for function in functions {
        // Through `run`, so a structured failure comes back as the table it was.
        let thread = lua.create_thread(run.clone())?;
        branches.push(current_call::within(call.clone(), thread.into_async::<(bool, Value)>(function)?));
    }
    let results = futures::future::join_all(branches).await;
    if let Err(failure) = super::awake(&lua) {
        return Err(mlua::Error::external(failure));
    }
    let list = lua.create_table()?;
    for result in results {
        let item = lua.create_table()?;
        let failure = match result {
            Ok((true, value)) => {
                item.set("ok", true)?;
                item.set("value", value)?;
                None
            }
            Ok((false, err)) => Some(failure::from_lua_error(&lua, err)),
            Err(err) => Some(failure::from_mlua_error(&lua, &err)),
        };
        if let Some(failure) = failure {
            if failure.code == Code::BudgetExceeded {
                return Err(mlua::Error::external(failure));
            }
            item.set("ok", false)?;
            item.set("error", failure::to_lua_table(&lua, &failure)?)?;
        }
        list.push(item)?;
    }
    Ok(MultiValue::from_iter([Value::Boolean(true), Value::Table(list)]))
}
