//! `rein.proc.run(program, args, {cwd?, timeout_ms?, stdin?, env?, signing?, on_line?})`: a
//! toolchain program through the kernel's checks, for the call it belongs to. Returns {code,
//! signal, stdout, stderr, timed_out, duration_ms, truncated}; a timeout raises TIMEOUT with the
//! output so far in its details. `signing = "<config>"` has the kernel append hap-sign-tool's
//! passwords from the environment variables home config.toml names (the script never sees
//! them); `rein.proc.signing_status(config)` says whether they are usable, without values.
//! `rein.proc.keep`, `rein.proc.kept` and `rein.proc.stop_kept`: a program kept running past
//! its call (`kernel::process::kept`).

use std::collections::BTreeMap;

use mlua::{Function, Lua, MultiValue, Value};
use serde::Deserialize;

use super::declare::{Area, Class, Field, Home, Make, Native, Param, Returns};
use super::{options, outcome, take_field};
use crate::error::Failure;
use crate::kernel::process::spawn::{StopReason, Stream};
use crate::kernel::RunOptions;
use crate::lua::{current_call, failure, state};

pub const AREA: Area = Area {
    home: Home::Table("proc"),
    doc: "Running toolchain programs through the kernel: found by rein (never a path a script picks), checked by the approval policy, argv run directly (never a shell), a cleared environment, a deadline, bounded output.",
    natives: &[
    Native {
        name: "run",
        doc: "Runs `program` (hvigorw, hdc, hap-sign-tool, ohpm, or one a person listed in home config.toml) with `args`. A non-zero exit is not an error: read `code`. Raises TIMEOUT (details.output so far), APPROVAL_REQUIRED, APPROVAL_DENIED, PROGRAM_NOT_ALLOWED or TOOLCHAIN_NOT_FOUND.",
        params: &[
            Param { name: "program", ty: "string", doc: "the program's name, e.g. \"hdc\"" },
            Param { name: "args", ty: "string[]", doc: "the arguments, one string each" },
            Param { name: "opts", ty: "rein.proc.RunOptions?", doc: "" },
        ],
        returns: &[Returns { ty: "rein.proc.RunResult", doc: "" }],
        make: Make::Raising(|lua| lua.create_async_function(run)),
    },
    Native {
        name: "signing_status",
        doc: "Whether the kernel can fill in hap-sign-tool's passwords for signingConfig `config` from the environment variables home config.toml names (`[signing.<config>]`); never a password.",
        params: &[Param { name: "config", ty: "string", doc: "a signingConfig of build-profile.json5, e.g. \"default\"" }],
        returns: &[Returns { ty: "rein.proc.SigningStatus", doc: "" }],
        make: Make::Raising(|lua| lua.create_function(signing_status)),
    },
    Native {
        name: "hdc_servers",
        doc: "The hdc servers that are the person's own: this machine's (`local`, at the port OHOS_HDC_SERVER_PORT names, else 8710) and the labs home config.toml names (`[devices.<name>] server`). hdc commands to them are judged as the commands are; to any other server (`hdc -s`), they ask.",
        params: &[],
        returns: &[Returns { ty: "rein.proc.HdcServer[]", doc: "local first" }],
        make: Make::Raising(|lua| lua.create_function(hdc_servers)),
    },
    Native {
        name: "keep",
        doc: "Starts `program args` kept: it outlives this call (only what the toolchain names, e.g. `emulator -start <name>`; always a person's yes or their rule, never --yes). Returns its record at once; `rein.proc.kept(id)` says whether it still runs. Raises PROGRAM_NOT_ALLOWED for any other command line.",
        params: &[
            Param { name: "program", ty: "string", doc: "the program's name, e.g. \"emulator\"" },
            Param { name: "args", ty: "string[]", doc: "the arguments, one string each" },
        ],
        returns: &[Returns { ty: "rein.proc.Kept", doc: "" }],
        make: Make::Raising(|lua| lua.create_async_function(keep)),
    },
    Native {
        name: "kept",
        doc: "The programs rein keeps running for this workspace, running or ended (`rein ps`), oldest first; with `id`, that one (KEPT_NOT_FOUND when there is none).",
        params: &[Param { name: "id", ty: "string?", doc: "one kept program's id" }],
        returns: &[Returns { ty: "rein.proc.Kept[]|rein.proc.Kept", doc: "" }],
        make: Make::Raising(|lua| lua.create_function(kept)),
    },
    Native {
        name: "stop_kept",
        doc: "Ends kept program `id`: its own stop first (asked about as that command is), then its process group after a bounded wait (`rein stop`).",
        params: &[Param { name: "id", ty: "string", doc: "" }],
        returns: &[Returns { ty: "rein.proc.Stopped", doc: "" }],
        make: Make::Raising(|lua| lua.create_async_function(stop_kept)),
    },
    Native {
        name: "host_os",
        doc: "The operating system the programs run on: `linux`, `macos` or `windows` (a tool whose program does not support every OS says so before running it).",
        params: &[],
        returns: &[Returns { ty: "string", doc: "" }],
        make: Make::Raising(|lua| lua.create_function(host_os)),
    }],
    classes: &[
        Class {
            name: "rein.proc.RunOptions",
            doc: "",
            fields: &[
                Field { name: "cwd", ty: "string?", doc: "working directory inside the workspace (default its root)" },
                Field { name: "timeout_ms", ty: "integer?", doc: "lower or raise the program's deadline, up to a cap" },
                Field { name: "stdin", ty: "string?", doc: "text on the program's stdin (default: closed)" },
                Field { name: "env", ty: "table<string, string>?", doc: "only LANG, LC_*, TZ, NO_COLOR and TERM may be set" },
                Field {
                    name: "signing",
                    ty: "string?",
                    doc: "a signingConfig name: the kernel appends hap-sign-tool's -keystorePwd and -keyPwd from the variables home config.toml names (the script never sees them), only when -keystoreFile and -keyAlias are the keystore and alias that config names (signing_status gives them)",
                },
                Field {
                    name: "on_line",
                    ty: "(fun(line: string, stream: \"stdout\"|\"stderr\"))?",
                    doc: "called for each line as it comes; an error in it stops the program",
                },
            ],
        },
        Class {
            name: "rein.proc.RunResult",
            doc: "",
            fields: &[
                Field { name: "code", ty: "integer?", doc: "exit status (nil when a signal ended it)" },
                Field { name: "signal", ty: "integer?", doc: "" },
                Field { name: "stdout", ty: "string", doc: "" },
                Field { name: "stderr", ty: "string", doc: "" },
                Field { name: "timed_out", ty: "boolean", doc: "" },
                Field { name: "duration_ms", ty: "integer", doc: "" },
                Field { name: "truncated", ty: "boolean", doc: "the middle of a long output was dropped" },
                Field { name: "dropped_bytes", ty: "integer", doc: "how much of it" },
                Field {
                    name: "stragglers",
                    ty: "integer",
                    doc: "processes the program left running, killed when it ended (nothing outlives a spawn)",
                },
            ],
        },
        Class {
            name: "rein.proc.Kept",
            doc: "A program rein keeps running past its call.",
            fields: &[
                Field { name: "id", ty: "string", doc: "what `rein stop` takes" },
                Field { name: "program", ty: "string", doc: "" },
                Field { name: "args", ty: "string[]", doc: "" },
                Field { name: "command", ty: "string", doc: "the command line as the question showed it" },
                Field { name: "holder_pid", ty: "integer", doc: "the holder (`rein hold`), whose process group it runs in" },
                Field { name: "started_at", ty: "string", doc: "RFC 3339" },
                Field { name: "workspace", ty: "string", doc: "" },
                Field { name: "approved_by", ty: "any", doc: "who said yes" },
                Field { name: "confinement", ty: "string", doc: "what it runs under" },
                Field { name: "log", ty: "string", doc: "its log, relative to the workspace" },
                Field { name: "tmp", ty: "string", doc: "its own temp folder" },
                Field { name: "stopped", ty: "table?", doc: "{at, how} once `rein stop` ended it" },
                Field { name: "state", ty: "\"running\"|\"ended\"?", doc: "whether its holder still runs (not in keep's answer)" },
                Field { name: "log_tail", ty: "string[]?", doc: "the last lines of its log (not in keep's answer)" },
            ],
        },
        Class {
            name: "rein.proc.Stopped",
            doc: "",
            fields: &[
                Field { name: "id", ty: "string", doc: "" },
                Field { name: "was_running", ty: "boolean", doc: "" },
                Field { name: "how", ty: "string?", doc: "own_stop, term or kill" },
            ],
        },
        Class {
            name: "rein.proc.SigningStatus",
            doc: "",
            fields: &[
                Field { name: "config", ty: "string", doc: "" },
                Field { name: "configured", ty: "boolean", doc: "home config.toml names variables for it" },
                Field { name: "keystore_password", ty: "rein.proc.SigningSecret?", doc: "" },
                Field { name: "key_password", ty: "rein.proc.SigningSecret?", doc: "" },
                Field {
                    name: "keystore",
                    ty: "string?",
                    doc: "the keystore the passwords open (home config.toml's, else build-profile.json5's material), resolved; the signing option refuses any other",
                },
                Field { name: "key_alias", ty: "string?", doc: "the key alias the key password opens; the signing option refuses any other" },
            ],
        },
        Class {
            name: "rein.proc.HdcServer",
            doc: "",
            fields: &[
                Field { name: "name", ty: "string", doc: "`local`, or the lab's name in home config.toml" },
                Field { name: "server", ty: "string", doc: "host:port, as `hdc -s` takes it" },
                Field { name: "is_local", ty: "boolean", doc: "this machine's own server (rein passes no -s)" },
            ],
        },
        Class {
            name: "rein.proc.SigningSecret",
            doc: "Where one password comes from, never its value.",
            fields: &[
                Field { name: "env", ty: "string", doc: "the variable's name" },
                Field { name: "set", ty: "boolean", doc: "" },
                Field { name: "ciphertext", ty: "boolean", doc: "it holds DevEco's encrypted form, which hap-sign-tool cannot use" },
            ],
        },
    ],
};

fn signing_status(lua: &Lua, config: String) -> mlua::Result<MultiValue> {
    outcome(lua, Ok(state::kernel(lua).signing_status(&config)))
}

#[derive(serde::Serialize)]
struct HdcServer {
    name: String,
    server: String,
    is_local: bool,
}

fn hdc_servers(lua: &Lua, (): ()) -> mlua::Result<MultiValue> {
    let kernel = state::kernel(lua);
    let servers = kernel.hdc_servers();
    let local =
        HdcServer { name: "local".into(), server: format!("127.0.0.1:{}", servers.local_port()), is_local: true };
    let labs = servers.named().iter().map(|(name, server)| HdcServer {
        name: name.clone(),
        server: server.clone(),
        is_local: false,
    });
    outcome(lua, Ok(std::iter::once(local).chain(labs).collect::<Vec<_>>()))
}

async fn keep(lua: Lua, (program, args): (String, Vec<String>)) -> mlua::Result<MultiValue> {
    let call = match current_call::get() {
        Ok(call) => call,
        Err(failure) => return outcome::<()>(&lua, Err(failure)),
    };
    let result = state::kernel(&lua).keep(&call, &program, args).await.map_err(Failure::from);
    let result = super::awake(&lua).and(result);
    outcome(&lua, result)
}

fn kept(lua: &Lua, id: Option<String>) -> mlua::Result<MultiValue> {
    let kernel = state::kernel(lua);
    match id {
        Some(id) => outcome(lua, kernel.kept_one(&id).map_err(Failure::from)),
        None => outcome(lua, kernel.kept().map_err(Failure::from)),
    }
}

#[derive(serde::Serialize)]
struct StoppedKept {
    id: String,
    was_running: bool,
    how: Option<String>,
}

async fn stop_kept(lua: Lua, id: String) -> mlua::Result<MultiValue> {
    let call = match current_call::get() {
        Ok(call) => call,
        Err(failure) => return outcome::<()>(&lua, Err(failure)),
    };
    let result =
        state::kernel(&lua).stop_kept(&call, &id).await.map_err(Failure::from).map(|(record, was_running)| {
            StoppedKept { id: record.id, was_running, how: record.stopped.map(|s| s.how) }
        });
    let result = super::awake(&lua).and(result);
    outcome(&lua, result)
}

fn host_os(lua: &Lua, (): ()) -> mlua::Result<MultiValue> {
    outcome(lua, Ok(std::env::consts::OS))
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
    let call = match current_call::get() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lua::api::declare::drift::{class_fields, serde_fields};

    #[test]
    fn run_options_name_exactly_the_fields_run_reads() {
        let mut read = serde_fields::<RunOpts>();
        read.push("on_line".into()); // taken out of the options before the rest is read
        read.sort();
        assert_eq!(class_fields(&AREA, "rein.proc.RunOptions"), read);
    }
}
