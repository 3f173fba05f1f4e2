//! The engine against C Lua 5.4 itself: each case runs through the engine's own string
//! functions and through ours, in a plain state, and must give the same results or the same
//! error message.

use mlua::{Lua, Table};

/// (function, Lua argument list).
const CASES: &[(&str, &str)] = &[
    ("find", r#""hello world", "o""#),
    ("find", r#""hello world", "o", 6"#),
    ("find", r#""hello world", "o", -3"#),
    ("find", r#""hello world", "o", -100"#),
    ("find", r#""hello world", "o", 0"#),
    ("find", r#""hello world", "", 12"#),
    ("find", r#""hello world", "", 13"#),
    ("find", r#""hello", "l+""#),
    ("find", r#""a.b", ".", 1, true"#),
    ("find", r#""a.b", "%.""#),
    ("find", r#""a+b", "+", 1, true"#),
    ("find", r#""hello", "(l)(l)""#),
    ("find", r#""hello", "()ll()""#),
    ("find", r#""hello", "^h""#),
    ("find", r#""hello", "^e""#),
    ("find", r#""hello", "o$""#),
    ("find", r#""hello", "l$""#),
    ("find", r#""a$b", "$b""#),
    ("find", r#"12345, 3"#),
    ("find", r#""x", "x", 1.0"#),
    ("find", r#""x", "x", "1""#),
    ("match", r#""key = value", "(%w+)%s*=%s*(%w+)""#),
    ("match", r#""  trim  ", "^%s*(.-)%s*$""#),
    ("match", r#""2024-01-02", "(%d+)-(%d+)-(%d+)""#),
    ("match", r#""abc", ".-""#),
    ("match", r#""abc", "a*""#),
    ("match", r#""aaab", "a-b""#),
    ("match", r#""aaab", "a?a?b""#),
    ("match", r#""xyz", "[^x]+""#),
    ("match", r#""a-b", "[a%-]+""#),
    ("match", r#""a]b", "[]a]+""#),
    ("match", r#""a]b", "[%]a]+""#),
    ("match", r#""-x", "[-x]+""#),
    ("match", r#""f(a(b)c)d", "%b()""#),
    ("match", r#""f(a(b c)d", "%b()""#),
    ("match", r#""THE (quick) fox", "%f[%a]%a+""#),
    ("match", r#""hello world", "%f[%w]%w+$""#),
    ("match", r#""hello hello", "(h%a+) %1""#),
    ("match", r#""hello hellx", "(h%a+) %1""#),
    ("match", r#""abc", "()b()""#),
    ("match", "\"\\0a\\0\", \"%z\""),
    ("match", "\"a\\0b\", \"a%zb\""),
    ("match", "\"a\\0b\", \"[\\0]\""),
    ("match", "\"\\v\\t x\", \"%s+\""),
    ("match", "\"caf\\xe9\", \"%a+\""),
    ("match", "\"\\xff\\xfe\", \"[\\xf0-\\xff]+\""),
    ("match", r#""Hello, World!", "%p""#),
    ("match", r#""Hello, World!", "%P+""#),
    ("match", r#""Hello", "%u%l+""#),
    ("match", r#""0x1F", "0x(%x+)""#),
    ("match", r#""a\1b", "%c""#),
    ("match", r#""ab", "%g+""#),
    ("match", r#""x", "%""#),
    ("match", r#""x", "[a""#),
    ("match", r#""x", "[a%""#),
    ("match", r#""x", "[^""#),
    ("match", r#""x", "(x""#),
    ("match", r#""x", "x)""#),
    ("match", r#""x", "%1""#),
    ("match", r#""x", "(x)%2""#),
    ("match", r#""x", "(x%1)""#),
    ("match", r#""x", "%0""#),
    ("match", r#""x", "%f""#),
    ("match", r#""x", "%fx""#),
    ("match", r#""x", "%b""#),
    ("match", r#""x", "%bx""#),
    ("match", r#"string.rep("a", 40), string.rep("(a)", 33)"#),
    ("match", r#"string.rep("a", 40), string.rep("(a)", 32)"#),
    ("match", r#"string.rep("a", 300), string.rep("a?", 300)"#),
    ("match", r#""x", nil"#),
    ("match", r#"nil, "x""#),
    ("match", r#""x", "x", "z""#),
    ("match", r#""x", "x", 1.5"#),
    ("match", r#""x", {}"#),
    ("gsub", r#""hello world", "o", "0""#),
    ("gsub", r#""hello world", "o", "0", 1"#),
    ("gsub", r#""hello world", "o", "0", 0"#),
    ("gsub", r#""hello world", "(o)", "[%1%1]""#),
    ("gsub", r#""hello world", "%w+", "<%0>""#),
    ("gsub", r#""hello", "", "-""#),
    ("gsub", r#""hello", "x*", "-""#),
    ("gsub", r#""abc", "%w", "%%""#),
    ("gsub", r#""abc", "%w", "%""#),
    ("gsub", r#""abc", "%w", "%x""#),
    ("gsub", r#""abc", "%w", "%2""#),
    ("gsub", r#""abc", "()b", "%1""#),
    ("gsub", r#""abc", "^a", "X""#),
    ("gsub", r#""aaa", "^a", "X""#),
    ("gsub", r#""abc", "%w", {a = "1", b = true and "2", c = false}"#),
    ("gsub", r#""abc", "(%w)", {a = 1.5}"#),
    ("gsub", r#""abc", "%w", {a = {}}"#),
    ("gsub", r#""abc", "%w", function(c) if c == "b" then return nil end return c:upper() end"#),
    ("gsub", r#""k=v, x=y", "(%w+)=(%w+)", function(k, v) return v .. "=" .. k end"#),
    ("gsub", r#""abc", "%w", function() error("boom", 0) end"#),
    ("gsub", r#""abc", "%w", function() error({}) end"#),
    ("gsub", r#""abc", "%w", 7"#),
    ("gsub", r#"123, "2", "x""#),
    ("gsub", r#"123, "x", "y""#),
    ("gsub", r#""abc", "%w", true"#),
    ("gsub", r#""abc", "%w""#),
    ("gsub", r#""abc", "(", "x""#),
    ("gmatch", r#""one two  three", "%a+""#),
    ("gmatch", r#""k1=v1, k2=v2", "(%w+)=(%w+)""#),
    ("gmatch", r#""abc", """#),
    ("gmatch", r#""abc", "x*""#),
    ("gmatch", r#""a,b,,c", "([^,]*)""#),
    ("gmatch", r#""^a^a", "^a""#),
    ("gmatch", r#""hello world", "%a+", 3"#),
    ("gmatch", r#""hello world", "%a+", -5"#),
    ("gmatch", r#""hello", "()l""#),
    ("gmatch", r#""x", "[x""#),
    ("gmatch", r#""abc", "()", 10"#),
    ("gmatch", r#""abc", "()", 4"#),
    ("gmatch", r#""abc", "(a)%2""#),
    ("find", r#""abc", "b", 10"#),
    ("find", r#""abc", "", 4"#),
    ("find", r#""abc", "", 5"#),
    ("find", r#""abc", "c", -1"#),
    ("match", r#""[[x]]", "%[(%b[])%]""#),
    ("match", r#""a.b.c", "^(.-)%.(.*)$""#),
    ("match", r#""a.b.c", "^(.*)%.(.-)$""#),
    ("match", r#""abab", "^(ab)%1$""#),
    ("match", r#""  x", "^%s*()""#),
    ("match", r#""x", "()""#),
    ("match", r#""ABC", "%f[%l]""#),
    ("match", r#""abc", "%f[%z]""#),
    ("match", r#""a b", "%f[%S]%S+$""#),
    ("match", r#""abc", "[%a-z]+""#),
    ("match", r#""a-z", "[z-a]""#),
    ("match", r#""x^", "[x^]+""#),
    ("match", r#""$x", "$x""#),
    ("match", r#""x$$", "x$$""#),
    ("gsub", r#""hello world", "%f[%w]%w+", string.upper"#),
    ("gsub", r#""abc", "", "-", 2"#),
    ("gsub", r#""abc", "b*", "X""#),
    ("gsub", r#""abc", ".", {a = 1, b = 2}, -1"#),
    ("gsub", r#""abc", "%w", "%1""#),
    ("gsub", r#""abc", "(%w)(%w)", "%2%1%0""#),
];

/// Runs `function(args)` with the functions in `strings`; the results, or the error, as text.
const PROBE: &str = r##"
local strings, name, args = ...
local function show(...)
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    out[#out + 1] = math.type(v) and (math.type(v) .. ":" .. tostring(v))
      or type(v) == "string" and string.format("%q", v)
      or tostring(v)
  end
  return table.concat(out, ",")
end
local chunk = load("return " .. args)
local ok, result = pcall(function()
  if name == "gmatch" then
    local parts = {}
    for a, b in strings.gmatch(chunk()) do
      parts[#parts + 1] = show(a, b)
    end
    return table.concat(parts, " | ")
  end
  return show(strings[name](chunk()))
end)
if ok then
  return result
end
return "error: " .. (type(result) == "table" and "table" or tostring(result))
"##;

fn probe(lua: &Lua, strings: &Table, name: &str, args: &str) -> String {
    let shown: mlua::String = lua.load(PROBE).call((strings.clone(), name, args)).unwrap();
    shown.as_bytes().escape_ascii().to_string()
}

#[test]
fn every_case_gives_what_c_lua_gives() {
    let lua = Lua::new();
    let c_strings: Table = lua.globals().get("string").unwrap();
    let ours = lua.create_table().unwrap();
    super::install(&lua, &ours).unwrap();
    let mut differences = Vec::new();
    for (name, args) in CASES {
        let (want, got) = (probe(&lua, &c_strings, name, args), probe(&lua, &ours, name, args));
        // C Lua names the function in argument errors from the call site (here it has none:
        // '?'); ours always name it.
        let comparable = |s: &str| {
            ["find", "match", "gmatch", "gsub"]
                .iter()
                .fold(s.to_string(), |s, n| s.replace(&format!("to \\'{n}\\'"), "to \\'?\\'"))
        };
        if comparable(&want) != comparable(&got) {
            differences.push(format!("string.{name}({args}):\n  C Lua: {want}\n  ours:  {got}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

#[test]
fn steps_are_counted_and_a_meter_stops_the_match() {
    use super::matcher::{MatchError, Matcher};
    let subject = vec![b'a'; 3000];
    let mut spent = 0u64;
    let mut meter = |steps: u64| {
        spent += steps;
        spent < 1_000_000
    };
    {
        let mut matcher = Matcher::new(&subject, b".-.-.-.-b", &mut meter);
        assert_eq!(matcher.try_at(0), Err(MatchError::Stopped));
    }
    assert!((1_000_000..1_100_000).contains(&spent), "{spent}");
}
