//! Fake `hstack` (shared/HARMONY-VERIFY.md §7, from Huawei's ide-command-line-hstack and
//! HWSTACK): `hstack -c "<one stack>" -s <sourcemapDir> [-n <nameCacheDir>] [--so <soDir>]`
//! prints the stack restored, each raw frame `at <fn> (<entry>|<pkg>|<version>|<path>.ts:<l>:<c>)`
//! as the documented restored form `at <fn> (<module>/src/main/ets/….ets:<l>:<c>)`, read from
//! `<sourcemapDir>/sourceMaps.map` (the real source map the fake hvigorw writes). The rules it
//! checks are §7's: exactly one of `-i`/`-c`, at least one of `-s`/`--so`.
//!
//! GUESS (never seen from the real tool): what `-v` prints (`hstack 5.0.0`), the words and exit
//! code of a usage error (`error: …`, 1), lines it cannot restore printed as given, and the
//! fake restores no names from `-n` (rein's own mapping does, src/harmony/source_maps.rs).

use std::path::Path;

use serde_json::Value;
use sourcemap::SourceMap;

use super::common::outln;

pub fn main(argv: &[String]) -> i32 {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    if matches!(words.as_slice(), ["-v"] | ["--version"]) {
        outln("hstack 5.0.0");
        return 0;
    }
    let (mut crash, mut input, mut maps, mut so) = (None, None, None, None);
    let mut at = 0;
    while at < words.len() {
        let value = words.get(at + 1).copied();
        let slot = match words[at] {
            "-c" | "--crash" => &mut crash,
            "-i" | "--input" => &mut input,
            "-s" | "--sourcemapDir" => &mut maps,
            "--so" | "--soDir" => &mut so,
            "-n" | "--nameObfuscation" | "-o" | "--output" => &mut None,
            other => return usage(&format!("unknown option '{other}'")),
        };
        let Some(value) = value else { return usage(&format!("option '{}' argument missing", words[at])) };
        *slot = Some(value);
        at += 2;
    }
    if crash.is_some() == input.is_some() {
        return usage("exactly one of -i and -c");
    }
    if maps.is_none() && so.is_none() {
        return usage("at least one of -s and --so");
    }
    let Some(stack) = crash else { return usage("the fake restores -c stacks only") };
    let map: Value = maps
        .and_then(|dir| std::fs::read_to_string(Path::new(dir).join("sourceMaps.map")).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    for line in stack.lines() {
        outln(&restore(line, &map).unwrap_or_else(|| line.to_string()));
    }
    0
}

fn usage(what: &str) -> i32 {
    outln(&format!("error: {what}"));
    1
}

/// One raw frame restored through the map, or None.
fn restore(line: &str, maps: &Value) -> Option<String> {
    let rest = line.trim().strip_prefix("at ")?;
    let (name, place) = rest.split_once(" (")?;
    let place = place.strip_suffix(')')?;
    let (place, column) = place.rsplit_once(':')?;
    let (key, row) = place.rsplit_once(':')?;
    let (row, column): (u32, u32) = (row.parse().ok()?, column.parse().ok()?);
    let map = SourceMap::from_slice(maps.get(key)?.to_string().as_bytes()).ok()?;
    let token = map.lookup_token(row.checked_sub(1)?, column.checked_sub(1)?)?;
    if token.get_dst_line() != row - 1 {
        return None;
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    Some(format!(
        "{indent}at {name} ({}:{}:{})",
        token.get_source()?,
        token.get_src_line() + 1,
        token.get_src_col() + 1
    ))
}
