//! Embeds the built-in Lua (tools/, prelude/, recipes/) so an installed `rein` works anywhere.

use std::path::Path;

const EMBEDDED_DIRS: [&str; 3] = ["tools", "prelude", "recipes"];

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&root);
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
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("builtin_files.rs");
    std::fs::write(dest, out).expect("write builtin_files.rs");
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
