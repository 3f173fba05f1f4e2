//! The `rein` namespace as scripts use it: structured errors, JSON, require, tools calling
//! tools.

use rein::Host;
use serde_json::json;

fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Host) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join("ws").join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    let host = Host::builder().workspace(dir.path().join("ws")).home(dir.path().join("home")).build().unwrap();
    (dir, host)
}

fn tool(name: &str, body: &str) -> (String, String) {
    (
        format!("tools/{name}.lua"),
        format!("return {{ name = {name:?}, description = \"test\", run = function(args, ctx)\n{body}\nend }}\n"),
    )
}

fn host_of(tools: &[(String, String)], extra: &[(&str, &str)]) -> (tempfile::TempDir, Host) {
    let mut files: Vec<(&str, &str)> = tools.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    files.extend_from_slice(extra);
    let (dir, host) = workspace(&files);
    assert!(host.problems().is_empty(), "{:?}", host.problems());
    (dir, host)
}

#[test]
fn kernel_refusals_reach_scripts_as_tables_with_a_code() {
    let (_d, host) = host_of(
        &[tool(
            "probe",
            "local ok, err = pcall(rein.fs.read, 'missing.txt')\n\
             return { ok = ok, code = err.code, has_message = #err.message > 0, path = err.details.path, text = tostring(err) }",
        )],
        &[],
    );
    let out = host.call("probe", json!({})).unwrap();
    assert_eq!(out["ok"], json!(false));
    assert_eq!(out["code"], json!("FILE_NOT_FOUND"));
    assert_eq!(out["path"], json!("missing.txt"));
    assert!(out["text"].as_str().unwrap().starts_with("FILE_NOT_FOUND: "));
}

#[test]
fn uncaught_refusals_and_script_errors_become_failures() {
    let (_d, host) = host_of(
        &[
            tool("passes_through", "return rein.fs.edit('a.txt', 'x', 'x')"),
            tool("custom", "rein.error('HAP_NOT_FOUND', 'build first', { module = 'entry' })"),
            tool("boom", "error('boom')"),
            tool("bad_table", "error({ reason = 'no code' })"),
        ],
        &[],
    );
    assert_eq!(host.call("passes_through", json!({})).unwrap_err().code.as_str(), "NO_CHANGE");
    let custom = host.call("custom", json!({})).unwrap_err();
    assert_eq!((custom.code.as_str(), custom.message.as_str()), ("HAP_NOT_FOUND", "build first"));
    assert_eq!(custom.details, json!({"module": "entry"}));
    let boom = host.call("boom", json!({})).unwrap_err();
    assert_eq!(boom.code.as_str(), "LUA_ERROR");
    assert_eq!(boom.message, "tools/boom.lua:2: boom");
    let bad = host.call("bad_table", json!({})).unwrap_err();
    assert_eq!(bad.code.as_str(), "LUA_ERROR");
    assert_eq!(bad.details["value"], json!({"reason": "no code"}));
}

#[test]
fn json_round_trips_and_keeps_null() {
    let (_d, host) = host_of(
        &[tool(
            "j",
            "local v = rein.json.decode('{\"a\":[1,null,3],\"b\":{\"c\":true}}')\n\
             local ok, err = pcall(rein.json.decode, '{broken')\n\
             return { second_is_null = v.a[2] == rein.json.null, n = #v.a, c = v.b.c,\n\
                      text = rein.json.encode({ x = 1 }), bad = err.code }",
        )],
        &[],
    );
    let out = host.call("j", json!({})).unwrap();
    assert_eq!(out, json!({"second_is_null": true, "n": 3, "c": true, "text": "{\"x\":1}", "bad": "INVALID_ARGS"}));
}

#[test]
fn require_finds_prelude_and_tool_modules_only() {
    let (_d, host) = host_of(
        &[tool("req", "local m = require('team.util')\nlocal h = require('helpers.fmt')\nreturn { v = m.twice(21), h = h.name, same = require('team.util') == m }")],
        &[
            ("prelude/team/util.lua", "return { twice = function(x) return x * 2 end }"),
            ("tools/helpers/fmt.lua", "return { name = 'fmt' }"),
        ],
    );
    assert_eq!(host.call("req", json!({})).unwrap(), json!({"v": 42, "h": "fmt", "same": true}));
}

#[test]
fn require_cycles_are_reported() {
    let (_d, host) = host_of(
        &[tool("cyc", "return require('a')")],
        &[("prelude/a.lua", "return require('b')"), ("prelude/b.lua", "return require('a')")],
    );
    let err = host.call("cyc", json!({})).unwrap_err();
    assert!(err.message.contains("require cycle"), "{err}");
}

#[test]
fn tools_call_tools_with_validation() {
    let (_d, host) = host_of(
        &[
            tool("outer", "local r = rein.tool('inner', { n = 2 })\nlocal ok, err = pcall(rein.tool, 'inner', { n = 'x' })\nreturn { r = r.doubled, bad = err.code, depth = ctx.depth }"),
            (
                "tools/inner.lua".into(),
                "return { name = 'inner', description = 'doubles', params = { n = { type = 'integer' } }, run = function(a, ctx) return { doubled = a.n * 2, depth = ctx.depth } end }".into(),
            ),
        ],
        &[],
    );
    assert_eq!(host.call("outer", json!({})).unwrap(), json!({"r": 4, "bad": "INVALID_ARGS", "depth": 1}));
}

#[test]
fn arguments_are_validated_before_run() {
    let (_d, host) = host_of(
        &[(
            "tools/typed.lua".into(),
            "return { name = 'typed', description = 'typed', params = { n = { type = 'integer' }, mode = { type = 'string', enum = { 'a', 'b' }, default = 'a' } }, run = function(a) return a end }".into(),
        )],
        &[],
    );
    assert_eq!(host.call("typed", json!({"n": 3})).unwrap(), json!({"n": 3, "mode": "a"}));
    let err = host.call("typed", json!({"n": "3"})).unwrap_err();
    assert_eq!(err.code.as_str(), "INVALID_ARGS");
    assert!(err.message.contains("`n`"), "{err}");
    assert!(host.call("typed", json!({"n": 1, "mode": "c"})).unwrap_err().message.contains("`mode`"));
}

#[test]
fn project_tools_override_built_ins_and_show_their_origin() {
    let (_d, host) = host_of(
        &[(
            "tools/my_read.lua".into(),
            "return { name = 'read_file', description = 'team read', run = function() return { team = true } end }"
                .into(),
        )],
        &[],
    );
    let info = host.tool("read_file").unwrap();
    assert_eq!(info.origin, rein::Origin::Project);
    assert_eq!(info.overrides.as_deref(), Some("<built-in>/tools/read_file.lua"));
    assert_eq!(host.call("read_file", json!({})).unwrap(), json!({"team": true}));
    assert_eq!(host.tool("edit_file").unwrap().origin, rein::Origin::BuiltIn);
}

#[test]
fn two_files_defining_one_name_is_an_error_naming_both() {
    let (_d, host) = workspace(&[
        ("tools/a.lua", "return { name = 'dup', description = 'a', run = function() return {} end }"),
        ("tools/b.lua", "return { name = 'dup', description = 'b', run = function() return {} end }"),
    ]);
    let problem = &host.problems()[0];
    assert!(problem.message.contains("tools/a.lua") && problem.message.contains("tools/b.lua"), "{}", problem.message);
    let err = host.call("dup", json!({})).unwrap_err();
    assert_eq!(err.code.as_str(), "TOOL_INVALID");
}

#[test]
fn invalid_tool_files_are_reported_with_file_and_line() {
    let (_d, host) = workspace(&[
        ("tools/syntax.lua", "return { name = 'syntax',, }"),
        ("tools/norun.lua", "return { name = 'norun', description = 'x' }"),
        ("tools/typo.lua", "return { name = 'typo', description = 'x', run = function() end, parms = {} }"),
        (
            "tools/badparam.lua",
            "return { name = 'badparam', description = 'x', run = function() end, params = { n = { type = 'int' } } }",
        ),
    ]);
    let problems = host.problems();
    let find = |file: &str| {
        problems.iter().find(|p| p.file == file).unwrap_or_else(|| panic!("no problem for {file}: {problems:?}"))
    };
    assert!(find("tools/syntax.lua").to_string().contains("tools/syntax.lua:1:"), "{:?}", find("tools/syntax.lua"));
    assert!(find("tools/norun.lua").message.contains("`run`"));
    assert!(find("tools/typo.lua").message.contains("unknown field `parms`"));
    assert!(find("tools/badparam.lua").message.contains("params"));
    assert_eq!(host.call("syntax", json!({})).unwrap_err().code.as_str(), "TOOL_INVALID");
    assert!(host.call("read_file", json!({"path": "tools/norun.lua"})).is_ok(), "built-ins keep working");
}

#[test]
fn a_host_works_from_async_code_and_refuses_blocking_calls_there() {
    let (_d, host) = host_of(&[tool("hi", "return { hi = true }")], &[]);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        assert_eq!(host.call_async("hi", json!({})).await.unwrap(), json!({"hi": true}));
        let err = host.call("hi", json!({})).unwrap_err();
        assert!(err.message.contains("call_async"), "{err}");
        drop(host);
    });
}

#[test]
fn nulls_inside_arrays_survive_encoding_and_results() {
    let (_d, host) = host_of(
        &[tool(
            "nulls",
            "local v = rein.json.decode('[1,null,3]')\nreturn { text = rein.json.encode(v), v = v, empty = rein.json.decode('[]'), f = function() end }",
        )],
        &[],
    );
    let out = host.call("nulls", json!({})).unwrap();
    assert_eq!(out, json!({"text": "[1,null,3]", "v": [1, null, 3], "empty": []}));
}

#[test]
fn a_read_reaches_scripts_as_a_plain_table_of_its_seven_fields() {
    // What the generic conversion of a kernel result makes (a struct: a table without a
    // metatable; counts as integers), which rein.fs.read builds in one call of its own.
    let (_d, host) = host_of(
        &[tool(
            "probe",
            "local t = rein.fs.read('a.txt', { offset = 2, limit = 1 })\n\
             local kinds = {}\n\
             for k, v in pairs(t) do kinds[k] = math.type(v) or type(v) end\n\
             return { kinds = kinds, metatable = getmetatable(t) == nil, read = t }",
        )],
        &[("a.txt", "one\ntwo\nthree\n")],
    );
    let out = host.call("probe", json!({})).unwrap();
    assert_eq!(
        out["kinds"],
        json!({"path": "string", "content": "string", "total_lines": "integer", "start_line": "integer",
               "end_line": "integer", "truncated": "boolean", "sha256": "string"})
    );
    assert_eq!(out["metatable"], true);
    assert_eq!(out["read"]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(out["read"]["content"], "     2\ttwo");
    assert_eq!((out["read"]["total_lines"].clone(), out["read"]["start_line"].clone()), (json!(3), json!(2)));
    assert_eq!((out["read"]["end_line"].clone(), out["read"]["truncated"].clone()), (json!(2), json!(true)));
    assert_eq!(out["read"]["path"], "a.txt");
    let direct = host.call("read_file", json!({"path": "a.txt", "offset": 2, "limit": 1})).unwrap();
    assert_eq!(out["read"], direct, "the tool returns what rein.fs.read gave");
}

/// Issue 40: an error raised inside a library function (`ipairs`' iterator indexing nil) came
/// out as `attempt to index a nil value` with no place; every LUA_ERROR names the innermost
/// line of the tool's own file, and `details.traceback` holds the way there.
#[test]
fn a_lua_error_names_the_innermost_line_of_the_tools_own_file_and_carries_the_traceback() {
    let (_d, host) = host_of(
        &[
            tool("modules", "local doc = {}\nfor _, m in ipairs(doc.modulez) do end"),
            tool("deep", "local util = require('team.util')\nlocal first = util.first(nil)\nreturn first"),
            tool("bare", "error('no place', 0)"),
            tool("boom", "error('boom')"),
        ],
        &[("prelude/team/util.lua", "return {\n  first = function(doc)\n    return doc.modules[1]\n  end,\n}\n")],
    );
    let nil = host.call("modules", json!({})).unwrap_err();
    assert_eq!(nil.code.as_str(), "LUA_ERROR");
    assert!(nil.message.starts_with("tools/modules.lua:3: "), "{nil}");
    assert!(nil.message.contains("attempt to index a nil value"), "{nil}");
    let traceback = nil.details["traceback"].as_str().unwrap_or_else(|| panic!("a traceback: {}", nil.details));
    assert!(traceback.contains("tools/modules.lua:3:"), "{traceback}");
    assert!(!traceback.contains("<rein>/"), "rein's own bootstrap is not the script's: {traceback}");

    let deep = host.call("deep", json!({})).unwrap_err();
    assert!(deep.message.starts_with("tools/deep.lua:3: prelude/team/util.lua:3: "), "{deep}");
    let traceback = deep.details["traceback"].as_str().unwrap();
    assert!(traceback.contains("prelude/team/util.lua:3:") && traceback.contains("tools/deep.lua:3:"), "{traceback}");

    let bare = host.call("bare", json!({})).unwrap_err();
    assert_eq!(bare.message, "tools/bare.lua:2: no place");
    // A message that already names a line of the tool's file keeps it as Lua wrote it.
    assert_eq!(host.call("boom", json!({})).unwrap_err().message, "tools/boom.lua:2: boom");
}
