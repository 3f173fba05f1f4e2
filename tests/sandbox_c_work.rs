//! Work a script makes Lua's library do in C, where the budget hook never runs, is counted: each
//! of these scripts once ran for hours or for ever (the hook sees one instruction per call,
//! whatever the call does), and each now ends with BUDGET_EXCEEDED within a few seconds. So do
//! `<close>` handlers that Lua would otherwise run with hooks off, and the host serves the next
//! call. the book's "Limits" (docs/src/lua-api.md) has the table of every library function and what bounds it.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::sandbox_limits::{host_with, limits};
use rein::Host;

/// Far beyond what any of them takes once metered (well under a second each); before, each ran
/// for hours.
const ENDS_WITHIN: Duration = Duration::from_secs(60);

/// `tool` ends with BUDGET_EXCEEDED for `limit` within [`ENDS_WITHIN`]; then `ok` is served.
fn ends_with_breach(host: &Arc<Host>, tool: &str, limit: &str) {
    let (done, ended) = mpsc::channel();
    let (caller, name) = (host.clone(), tool.to_string());
    std::thread::spawn(move || {
        let _ = done.send(caller.call(&name, json!({})));
    });
    let result = ended
        .recv_timeout(ENDS_WITHIN)
        .unwrap_or_else(|_| panic!("{tool} still runs after {ENDS_WITHIN:?}: its work escapes the budget"));
    let err = result.expect_err("the script must be stopped");
    assert_eq!(err.code.as_str(), "BUDGET_EXCEEDED", "{tool}: {err}");
    assert_eq!(err.details["limit"], json!(limit), "{tool}: {err}");
    assert_eq!(host.call("ok", json!({})).unwrap(), json!({"fine": true}), "the host serves the next call");
}

/// Small enough that a debug build spends it in well under a second, so whatever stops the
/// scripts below is the count, not the clock.
fn budget() -> rein::Limits {
    rein::Limits { instructions: 5_000_000, wall_time: 2 * ENDS_WITHIN, ..limits() }
}

fn host(tools: &[(&str, &str)]) -> (tempfile::TempDir, Arc<Host>) {
    let (dir, host) = host_with(tools, budget());
    (dir, Arc::new(host))
}

/// A table whose length (`#t`) is 2^40, as its `__len` says.
const LONG: &str = "local t = setmetatable({}, { __len = function() return 2 ^ 40 // 1 end })\n";

#[test]
fn table_functions_that_loop_over_indices_are_charged_per_element() {
    let tools = [
        ("move_all", "local t = {}\ntable.move(t, 1, math.maxinteger, 1)"),
        ("move_caught", "local t = {}\nwhile true do pcall(table.move, t, 1, math.maxinteger, 1) end"),
        ("insert_front", &format!("{LONG}table.insert(t, 1, 0)")),
        ("remove_front", &format!("{LONG}table.remove(t, 1)")),
        (
            // `#t` says 2^31 - 2 and every element reads as a number, without any Lua running.
            "sort_invented",
            "local t = setmetatable({}, { __len = function() return 2 ^ 31 // 1 - 2 end, __index = rawlen, __newindex = rawequal })\n\
             table.sort(t)",
        ),
        ("unpack_loop", "local t = {}\nfor i = 1, 100000 do t[i] = i end\nwhile true do local _ = select('#', table.unpack(t)) end"),
        ("concat_empties", "local t = {}\nfor i = 1, 200000 do t[i] = '' end\nwhile true do table.concat(t) end"),
    ];
    let (_d, host) = host(&tools);
    for (tool, _) in tools {
        ends_with_breach(&host, tool, "instructions");
    }
}

#[test]
fn string_and_utf8_functions_pay_for_what_they_scan_or_repeat() {
    let big = "local big = string.rep('7', 4 * 1024 * 1024)\n";
    let tools = [
        ("rep_nothing", "string.rep('', math.maxinteger)".to_string()),
        ("rep_nothing_with_empty_sep", "while true do string.rep('', 1e9, '') end".to_string()),
        ("utf8_len", format!("{big}while true do utf8.len(big) end")),
        ("to_number", format!("{big}while true do tonumber(big) end")),
        ("string_arithmetic", format!("{big}while true do local _ = big + 0 end")),
        ("byte_all", "local s = string.rep('a', 100000)\nwhile true do string.byte(s, 1, -1) end".to_string()),
        ("pack_spaces", "local fmt = string.rep(' ', 4 * 1024 * 1024)\nwhile true do string.pack(fmt) end".to_string()),
    ];
    let tools: Vec<(&str, &str)> = tools.iter().map(|(n, b)| (*n, b.as_str())).collect();
    let (_d, host) = host(&tools);
    for (tool, _) in tools {
        ends_with_breach(&host, tool, "instructions");
    }
}

#[test]
fn what_c_builds_is_charged_by_its_size() {
    let big = "local big = string.rep('a', 4 * 1024 * 1024)\n";
    let tools = [
        ("concat_operator", format!("{big}while true do local _ = big .. 'x' end")),
        ("upper", format!("{big}while true do local _ = big:upper() end")),
        ("format", format!("{big}while true do local _ = string.format('%s', big) end")),
        ("sub", format!("{big}while true do local _ = big:sub(2) end")),
        ("load", "local src = string.rep('local a = 1 ', 300000)\nwhile true do load(src) end".to_string()),
        (
            "collect",
            "local keep = {}\nfor i = 1, 100000 do keep[i] = {} end\nwhile true do collectgarbage() end".to_string(),
        ),
    ];
    let tools: Vec<(&str, &str)> = tools.iter().map(|(n, b)| (*n, b.as_str())).collect();
    let (_d, host) = host(&tools);
    for (tool, _) in tools {
        ends_with_breach(&host, tool, "instructions");
    }
}

#[test]
fn close_handlers_run_under_the_budget_whatever_thread_they_are_on() {
    // The budget hook's error leaves the coroutine it escapes with hooks off; coroutine.wrap
    // and coroutine.close then run the coroutine's <close> handlers on it.
    let spin_closed = "local guard <close> = setmetatable({}, { __close = function() while true do end end })\n\
                       while true do end";
    let tools = [
        ("wrapped", format!("coroutine.wrap(function()\n{spin_closed}\nend)()")),
        (
            // The call's own <close> handler closes the coroutine the budget stopped.
            "closed",
            format!(
                "local co = coroutine.create(function()\n{spin_closed}\nend)\n\
                 local closer <close> = setmetatable({{}}, {{ __close = function() coroutine.close(co) end }})\n\
                 coroutine.resume(co)"
            ),
        ),
        (
            "for_loop_closing_value",
            "local closing = setmetatable({}, { __close = function() while true do end end })\n\
             coroutine.wrap(function()\nfor _ in function() while true do end end, nil, nil, closing do end\nend)()"
                .to_string(),
        ),
    ];
    let tools: Vec<(&str, &str)> = tools.iter().map(|(n, b)| (*n, b.as_str())).collect();
    let (_d, host) = host(&tools);
    for (tool, _) in tools {
        ends_with_breach(&host, tool, "instructions");
    }
}

#[test]
fn a_budget_error_as_a_call_starts_never_leaves_the_next_call_unmetered() {
    // Each call trips at the budget hook's first run. Lua's count of instructions to the next
    // hook carries over on a thread used again: where it ran out in the few instructions
    // before the call's own error handler, the error would leave that thread with hooks off,
    // and the next call on it would run with no budget at all. Each call runs on a fresh
    // thread (mlua reuses threads only with a thread pool, which rein does not turn on), so
    // this guards a choice rather than a past hole.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let count = "return { name = 'count', description = 'counts to n', params = { n = { type = 'integer' } },\n\
                 run = function(args) for i = 1, args.n do end return { n = args.n } end }";
    let host = Host::builder()
        .workspace(dir.path().join("ws"))
        .home(dir.path().join("home"))
        .limits(rein::Limits { instructions: 500, ..budget() })
        .tool_source("count", count)
        .tool_source("spin", "return { name = 'spin', description = 'spins', run = function() while true do end end }")
        .tool_source("ok", "return { name = 'ok', description = 'fine', run = function() return { fine = true } end }")
        .build()
        .unwrap();
    let host = Arc::new(host);
    for n in 0..400 {
        let _ = host.call("count", json!({"n": n}));
        let _ = host.call("count", json!({"n": 0}));
        ends_with_breach(&host, "spin", "instructions");
    }
}
