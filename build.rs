//! Embeds the built-in Lua (tools/, prelude/, recipes/) so an installed `rein` works anywhere,
//! and compiles it, with the host's own Lua code, to bytecode now rather than in every process
//! (`build/bytecode.rs`; `src/lua/compiled.rs` loads it).

use std::path::Path;

#[path = "build/bytecode.rs"]
mod bytecode;

const EMBEDDED_DIRS: [&str; 3] = ["tools", "prelude", "recipes"];

/// The host's own chunks outside those folders, as `src/lua` labels and loads them.
const HOST_CHUNKS: [(&str, &str); 2] =
    [("<rein>/bootstrap.lua", "src/lua/bootstrap.lua"), ("<rein>/pattern/wrap.lua", "src/lua/pattern/wrap.lua")];

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&root);
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out_dir = Path::new(&out_dir);
    let mut files = Vec::new();
    for dir in EMBEDDED_DIRS {
        println!("cargo:rerun-if-changed={dir}");
        collect(root, &root.join(dir), &mut files);
    }
    files.sort();
    let mut out = String::from("pub static BUILTIN_FILES: &[(&str, &str)] = &[\n");
    for rel in &files {
        out.push_str(&format!("    ({rel:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/\", {rel:?}))),\n"));
    }
    out.push_str("];\n");
    std::fs::write(out_dir.join("builtin_files.rs"), out).expect("write builtin_files.rs");

    let mut chunks: Vec<(String, String)> =
        files.iter().map(|rel| (format!("<built-in>/{rel}"), rel.clone())).collect();
    for (label, rel) in HOST_CHUNKS {
        println!("cargo:rerun-if-changed={rel}");
        chunks.push((label.to_string(), rel.to_string()));
    }
    bytecode::write_table(root, out_dir, &chunks);
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "lua") {
            let rel = path.strip_prefix(root).expect("under root");
            files.push(rel.to_string_lossy().into_owned());
        }
    }
}
