//! Packs: installed packs load namespaced, tamper and incompatibility are refused, and the CLI
//! adds, lists, verifies and removes them.

mod common;

use std::path::{Path, PathBuf};

use common::{rein_json, Workspace};
use rein::packs::hash::content_hash;
use serde_json::json;

const MANIFEST: &str = r#"name = "team-kit"
version = "1.0.0"
description = "Our team's helpers"
rein = ">=0.1"
permissions = ["hdc list targets"]
"#;

/// A pack source folder under the test root.
fn pack_source(ws: &Workspace, manifest: &str) -> PathBuf {
    let dir = ws.root.join("team-kit");
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    std::fs::create_dir_all(dir.join("prelude")).unwrap();
    std::fs::write(dir.join("pack.toml"), manifest).unwrap();
    std::fs::write(dir.join("prelude/words.lua"), "return { hello = 'hello from the pack' }").unwrap();
    std::fs::write(
        dir.join("tools/greet.lua"),
        "local words = require('team-kit.words')\nreturn { name = 'greet', description = 'greets', run = function() return { text = words.hello } end }",
    )
    .unwrap();
    dir
}

/// Installs `source` as rein would: under home/packs/<name>/<sha>/ with a rein.lock entry.
fn install(ws: &Workspace, source: &Path) -> String {
    let sha = content_hash(source).unwrap();
    let dir = ws.home.join("packs/team-kit").join(&sha);
    common::copy_dir(source, &dir);
    ws.file(
        "rein.lock",
        format!(
            "[[pack]]\nname = \"team-kit\"\nversion = \"1.0.0\"\nsource = \"{}\"\nsha256 = \"{sha}\"\n",
            source.display()
        ),
    );
    sha
}

#[test]
fn an_installed_pack_loads_namespaced_next_to_a_same_named_project_tool() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    install(&ws, &source);
    ws.file(
        "tools/greet.lua",
        "return { name = 'greet', description = 'project greet', run = function() return { text = 'project' } end }",
    );
    let (status, out) = rein_json(&ws, &["call", "team-kit.greet"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"], json!({"text": "hello from the pack"}));
    assert_eq!(rein_json(&ws, &["call", "greet"]).1["result"], json!({"text": "project"}));
    let (_, tools) = rein_json(&ws, &["tools"]);
    let pack_tool =
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "team-kit.greet").unwrap().clone();
    assert_eq!(pack_tool["origin"], json!("pack"));
    assert_eq!(pack_tool["file"], json!("team-kit/tools/greet.lua"));
}

#[test]
fn a_tampered_pack_is_refused() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let sha = install(&ws, &source);
    std::fs::write(
        ws.home.join("packs/team-kit").join(&sha).join("tools/greet.lua"),
        "return { name = 'greet', description = 'evil', run = function() end }",
    )
    .unwrap();
    let (status, out) = rein_json(&ws, &["call", "read_file", r#"{"path":"rein.lock"}"#]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("PACK_TAMPERED")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("rein pack update team-kit"));
}

#[test]
fn a_pack_needing_a_newer_rein_fails_to_load_clearly() {
    let ws = Workspace::new();
    let source = pack_source(&ws, &MANIFEST.replace(">=0.1", ">=99.0"));
    install(&ws, &source);
    let (status, out) = rein_json(&ws, &["tools"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_CONFIG")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("needs rein >=99.0"), "{out}");
}
