//! Forged evidence through the transit folder `.rein-received/`, where hdc puts a screenshot or
//! a UI tree before the kernel takes it into a run's folder: a person reviewing report.html must
//! see the screen the device showed, never a file the agent put there. Neither the agent's file
//! tools, nor a program rein runs for it, nor its own hdc command may write there; the kernel
//! names each file it receives (a reservation of the call, with an unguessable part) and takes
//! only a name it gave that call, received by the hdc it ran for that name.

use std::path::Path;

use crate::common::lab::{lab, Lab, KEY};
use crate::containment::build_script;
use serde_json::json;

/// A JPEG's first bytes: what a forger would put there.
const FORGED: &[u8] = &[0xFF, 0xD8, 0xFF, 0xE0, b'f', b'o', b'r', b'g', b'e', b'd', 0xFF, 0xD9];

fn transit(lab: &Lab) -> std::path::PathBuf {
    lab.ws.path(".rein-received")
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A project tool `name` running `body` (Lua, given `args`), answering what it returns.
fn agent_tool(lab: &Lab, name: &str, body: &str) {
    let tool = format!(
        "return {{ name = \"{name}\", description = \"the agent's\", params = {{ name = {{ type = \"string\", optional = true }} }},\n  run = function(args)\n{body}\n  end }}"
    );
    std::fs::create_dir_all(lab.ws.path("tools")).unwrap();
    std::fs::write(lab.ws.path(&format!("tools/{name}.lua")), tool).unwrap();
}

#[test]
fn the_agents_file_tools_cannot_write_the_transit_folder() {
    let Some(lab) = lab() else { return };
    std::fs::create_dir_all(transit(&lab)).unwrap();
    std::os::unix::fs::symlink(".rein-received", lab.ws.path("alias")).unwrap();
    let paths = [
        ".rein-received/rein-screen-1.jpeg",
        ".REIN-RECEIVED/rein-screen-1.jpeg",
        ".Rein-Received/rein-ui-1.json",
        "alias/rein-screen-1.jpeg",
        "src/../.rein-received/rein-screen-1.jpeg",
        ".rein-received",
    ];
    for path in paths {
        for flags in [&[][..], &["--yes"][..]] {
            let (status, out) = lab.call(flags, "write_file", json!({"path": path, "content": "forged"}));
            assert_ne!(status, 0, "{path} {flags:?}: {out}");
            assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"), "{path}: {out}");
            assert_eq!(out["error"]["details"]["class"], json!("protected"), "{path}: {out}");
        }
    }
    assert_eq!(entries(&transit(&lab)), Vec::<String>::new(), "nothing was written there");
    assert!(!lab.ws.path(".REIN-RECEIVED").exists() && !lab.ws.path(".Rein-Received").exists());
}

/// A program rein runs for the agent (hvigorw running the project's hvigorfile.ts) may write
/// the project, never the transit folder: not a file, not a link, not the folder's name.
#[test]
fn a_build_script_cannot_write_the_transit_folder() {
    let Some(lab) = lab() else { return };
    std::fs::create_dir_all(transit(&lab)).unwrap();
    let script = "printf forged > .rein-received/rein-screen-1.jpeg\n\
                  mkdir .rein-received/rein-sub\n\
                  ln -s ../entry .rein-received/rein-link.jpeg\n\
                  ln entry/src/main/module.json5 .rein-received/rein-hard.json\n\
                  mv .rein-received .rein-moved\n\
                  mkdir .REIN-RECEIVED\n\
                  echo ran > entry/src/ran.txt";
    build_script(&lab, script);
    lab.build();
    assert!(lab.ws.path("entry/src/ran.txt").exists(), "the script ran");
    assert_eq!(entries(&transit(&lab)), Vec::<String>::new(), "the build wrote into the transit folder");
    assert!(!lab.ws.path(".rein-moved").exists() && !lab.ws.path(".REIN-RECEIVED").exists());
}

/// A file in the transit folder that rein did not receive for this call — left there before,
/// by whoever — is never taken as evidence, whatever its name.
#[test]
fn a_file_rein_did_not_receive_is_never_taken() {
    let Some(lab) = lab() else { return };
    std::fs::create_dir_all(transit(&lab)).unwrap();
    for name in ["rein-screen-1.jpeg", "rein-screen-00000000deadbeef.jpeg", "rein-ui-1.json"] {
        std::fs::write(transit(&lab).join(name), FORGED).unwrap();
    }
    agent_tool(&lab, "take", "return { bytes = rein.fs.take_received(args.name) }");
    for name in ["rein-screen-1.jpeg", "rein-screen-00000000deadbeef.jpeg", "rein-ui-1.json"] {
        let (status, out) = lab.call(&[], "take", json!({"name": name}));
        assert_ne!(status, 0, "{name} was taken though rein never received it: {out}");
        assert_eq!(out["error"]["code"], json!("INVALID_ARGS"), "{out}");
    }
    // rein's own screen taking works beside them and leaves them alone.
    lab.one_device();
    let dump = lab.ok(&[], "ui_dump", json!({}));
    assert!(dump["text"].as_str().unwrap().starts_with("window "), "{dump}");
    assert_eq!(entries(&transit(&lab)).len(), 3);
}

/// The agent's own tool runs hdc: a screenshot under a name rein uses, then `file recv` of it
/// into the transit folder — which only the kernel's own recv of a name it reserved may write.
#[test]
fn the_agents_hdc_cannot_receive_into_the_transit_folder() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    std::fs::create_dir_all(transit(&lab)).unwrap();
    let body = r#"
    local key = "@KEY@"
    local remote = "/data/local/tmp/rein-screen-1.jpeg"
    local shot = rein.proc.run("hdc", { "-t", key, "shell", "snapshot_display", "-f", remote })
    local ok, err = pcall(rein.proc.run, "hdc",
      { "-t", key, "file", "recv", remote, ".rein-received/" .. args.name })
    local taken = pcall(rein.fs.take_received, args.name)
    return { shot = shot.stdout, received = ok, code = (not ok) and err.code or nil, taken = taken }"#;
    agent_tool(&lab, "forge", &body.replace("@KEY@", KEY));
    for name in ["rein-screen-1.jpeg", "rein-forged.jpeg"] {
        let out = lab.ok(&["--yes"], "forge", json!({"name": name}));
        assert!(out["shot"].as_str().unwrap().contains("success"), "{out}");
        assert_eq!(out["received"], json!(false), "the agent's hdc wrote into the transit folder: {out}");
        assert_eq!(out["taken"], json!(false), "{out}");
    }
    assert_eq!(entries(&transit(&lab)), Vec::<String>::new());
    let recvs: Vec<String> = lab.command_lines("hdc").into_iter().filter(|c| c.contains("file recv")).collect();
    assert_eq!(recvs, Vec::<String>::new(), "hdc never ran the recv");
}
