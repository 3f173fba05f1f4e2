//! The source map a build writes for the ArkTS it compiles (shared/HARMONY-VERIFY.md §7,
//! HWSTACK): `<module>/build/<product>/cache/default/default@CompileArkTS/esmodule/<mode>/
//! sourceMaps.map`, one JSON object keyed by a raw frame's `<module>|<module>|<version>|
//! src/main/ets/<page>.ts`, each value a version-3 source map whose `sources` name
//! `<module>/src/main/ets/<page>.ets`. The fake compiles a page to itself moved down
//! [`LINE_SHIFT`] lines and right [`COLUMN_SHIFT`] columns (the fake's own stand-in for what
//! the real compiler's output adds), mapping the first code column of every line, so a raw
//! frame maps back to a real line of the page and a wrong map gives a wrong line.

use std::path::Path;

use serde_json::{Map, Value};
use sourcemap::SourceMapBuilder;

/// How far the fake's compiled `.ts` moves a page's lines down and columns right.
pub const LINE_SHIFT: u32 = 2;
pub const COLUMN_SHIFT: u32 = 4;

/// The raw frame's `line:column` (1-based) of a page's `line:column`.
pub fn compiled_place(line: u32, column: u32) -> (u32, u32) {
    (line + LINE_SHIFT, column + COLUMN_SHIFT)
}

/// Writes the module's sourceMaps.map for the `.ets` pages under `src/main/ets`.
pub fn write(module_dir: &Path, module: &str, version: &str, product: &str, mode: &str) -> std::io::Result<()> {
    let ets = module_dir.join("src").join("main").join("ets");
    let mut maps = Map::new();
    let mut pages = Vec::new();
    collect(&ets, &mut pages);
    pages.sort();
    for page in pages {
        let Ok(text) = std::fs::read_to_string(&page) else { continue };
        let rel = page.strip_prefix(&ets).unwrap_or(&page).to_string_lossy().replace('\\', "/");
        let stem = rel.strip_suffix(".ets").unwrap_or(&rel);
        let mut builder = SourceMapBuilder::new(Some(&format!("{stem}.ts")));
        let source = builder.add_source(&format!("{module}/src/main/ets/{rel}"));
        for (n, line) in text.lines().enumerate() {
            let Some(first) = line.find(|c: char| !c.is_whitespace()) else { continue };
            let (line0, column0) = (n as u32, line[..first].chars().count() as u32);
            builder.add_raw(line0 + LINE_SHIFT, column0 + COLUMN_SHIFT, line0, column0, Some(source), None, false);
        }
        let mut bytes = Vec::new();
        builder.into_sourcemap().to_writer(&mut bytes).map_err(std::io::Error::other)?;
        let map: Value = serde_json::from_slice(&bytes).map_err(std::io::Error::other)?;
        maps.insert(format!("{module}|{module}|{version}|src/main/ets/{stem}.ts"), map);
    }
    let dir = module_dir
        .join("build")
        .join(product)
        .join("cache")
        .join("default")
        .join("default@CompileArkTS")
        .join("esmodule")
        .join(mode);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("sourceMaps.map"), serde_json::to_vec_pretty(&Value::Object(maps))?)
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "ets") {
            out.push(path);
        }
    }
}
