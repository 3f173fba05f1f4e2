//! Where Lua source files come from: the built-ins embedded in the binary, then the project's
//! own folders. Later layers win.

use std::path::{Path, PathBuf};

use serde::Serialize;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    BuiltIn,
    /// An installed pack (see [`SourceFile::pack`] for which).
    Pack,
    Project,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Origin::BuiltIn => "built-in",
            Origin::Pack => "pack",
            Origin::Project => "project",
        })
    }
}

/// One Lua file and where it came from.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub origin: Origin,
    /// Path inside its layer, e.g. `tools/read_file.lua`.
    pub rel: String,
    /// How errors name the file: `tools/x.lua` for the project, `<built-in>/tools/x.lua`.
    pub label: String,
    pub text: String,
    /// The pack it comes from; its tools and modules are named `<pack>.<name>`.
    pub pack: Option<String>,
}

#[derive(Debug, Clone)]
enum Layer {
    Embedded,
    Pack { name: String, root: PathBuf },
    Dir { origin: Origin, root: PathBuf },
}

#[derive(Debug, Clone)]
pub struct Sources {
    /// In load order: built-ins first, the project last.
    layers: Vec<Layer>,
    /// Names the project's rein.toml lets a pack tool take over: name → `<pack>.<tool>`.
    overrides: std::collections::BTreeMap<String, String>,
}

impl Sources {
    /// Built-ins, then each installed pack (name, folder), then the project.
    pub fn with_packs(workspace: &Path, packs: Vec<(String, PathBuf)>) -> Sources {
        let mut layers = vec![Layer::Embedded];
        layers.extend(packs.into_iter().map(|(name, root)| Layer::Pack { name, root }));
        layers.push(Layer::Dir { origin: Origin::Project, root: workspace.to_path_buf() });
        Sources { layers, overrides: Default::default() }
    }

    pub fn new(workspace: &Path) -> Sources {
        Sources {
            layers: vec![Layer::Embedded, Layer::Dir { origin: Origin::Project, root: workspace.to_path_buf() }],
            overrides: Default::default(),
        }
    }

    /// The project folder holding tools/, recipes/ and prelude/, if any.
    pub fn project_root(&self) -> Option<&Path> {
        self.layers.iter().rev().find_map(|layer| match layer {
            Layer::Dir { origin: Origin::Project, root } => Some(root.as_path()),
            _ => None,
        })
    }

    /// Lets pack tools take over built-in or project names (`[overrides]` in rein.toml).
    pub fn with_overrides(mut self, overrides: std::collections::BTreeMap<String, String>) -> Sources {
        self.overrides = overrides;
        self
    }

    pub fn overrides(&self) -> &std::collections::BTreeMap<String, String> {
        &self.overrides
    }

    /// The folder of an installed pack.
    pub fn pack_root(&self, name: &str) -> Option<&Path> {
        self.layers.iter().find_map(|layer| match layer {
            Layer::Pack { name: pack, root } if pack == name => Some(root.as_path()),
            _ => None,
        })
    }

    /// Only the built-ins (for embedders that want no project code).
    pub fn built_in_only() -> Sources {
        Sources { layers: vec![Layer::Embedded], overrides: Default::default() }
    }

    /// Tool files of every layer, in load order; inside a layer sorted by path. Tools are the
    /// `*.lua` files directly in `tools/`; subfolders hold modules for `require`.
    pub fn tool_files(&self) -> Result<Vec<SourceFile>, String> {
        self.files_in("tools")
    }

    /// Recipe files of every layer, in load order: the `*.lua` files directly in `recipes/`.
    pub fn recipe_files(&self) -> Result<Vec<SourceFile>, String> {
        self.files_in("recipes")
    }

    fn files_in(&self, folder: &str) -> Result<Vec<SourceFile>, String> {
        let mut files = Vec::new();
        for layer in &self.layers {
            match layer {
                Layer::Embedded => files.extend(
                    embedded::BUILTIN_FILES
                        .iter()
                        .filter(|(rel, _)| is_top_level_in(rel, folder))
                        .map(|(rel, text)| embedded_file(rel, text)),
                ),
                Layer::Dir { origin, root } => files.extend(dir_lua_files(*origin, root, folder)?),
                Layer::Pack { name, root } => {
                    files.extend(dir_lua_files(Origin::Pack, root, folder)?.into_iter().map(|f| in_pack(f, name)))
                }
            }
        }
        Ok(files)
    }

    /// Finds module `name` (`a.b` → `a/b.lua` or `a/b/init.lua`): prelude/ of every layer,
    /// the project's first, then the tools/ folders.
    pub fn find_module(&self, name: &str) -> Result<Option<SourceFile>, String> {
        // `<pack>.<module>` is that pack's own module, and pack modules are reachable only so.
        for layer in &self.layers {
            if let Layer::Pack { name: pack, root } = layer {
                if let Some(rest) = name.strip_prefix(pack.as_str()).and_then(|r| r.strip_prefix('.')) {
                    let stem = rest.replace('.', "/");
                    for rel in
                        [format!("prelude/{stem}.lua"), format!("prelude/{stem}/init.lua"), format!("tools/{stem}.lua")]
                    {
                        let path = root.join(&rel);
                        if path.is_file() {
                            return read_dir_file(Origin::Pack, &rel, &path).map(|f| Some(in_pack(f, pack)));
                        }
                    }
                    return Ok(None);
                }
            }
        }
        let stem = name.replace('.', "/");
        let candidates = [format!("{stem}.lua"), format!("{stem}/init.lua")];
        for folder in ["prelude", "tools"] {
            for layer in self.layers.iter().rev() {
                for candidate in &candidates {
                    let rel = format!("{folder}/{candidate}");
                    if let Some(file) = layer_file(layer, &rel)? {
                        return Ok(Some(file));
                    }
                }
            }
        }
        Ok(None)
    }
}

fn in_pack(mut file: SourceFile, pack: &str) -> SourceFile {
    file.label = format!("{pack}/{}", file.rel);
    file.pack = Some(pack.to_string());
    file
}

fn is_top_level_in(rel: &str, folder: &str) -> bool {
    rel.strip_prefix(folder)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.contains('/') && name.ends_with(".lua"))
}

fn embedded_file(rel: &str, text: &str) -> SourceFile {
    SourceFile {
        origin: Origin::BuiltIn,
        rel: rel.to_string(),
        label: format!("<built-in>/{rel}"),
        text: text.to_string(),
        pack: None,
    }
}

fn layer_file(layer: &Layer, rel: &str) -> Result<Option<SourceFile>, String> {
    match layer {
        Layer::Embedded => {
            Ok(embedded::BUILTIN_FILES.iter().find(|(r, _)| *r == rel).map(|(r, text)| embedded_file(r, text)))
        }
        Layer::Dir { origin, root } => {
            let path = root.join(rel);
            if !path.is_file() {
                return Ok(None);
            }
            read_dir_file(*origin, rel, &path).map(Some)
        }
        // Pack modules are found only by their namespaced name.
        Layer::Pack { .. } => Ok(None),
    }
}

fn dir_lua_files(origin: Origin, root: &Path, folder: &str) -> Result<Vec<SourceFile>, String> {
    let dir = root.join(folder);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "lua"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            read_dir_file(origin, &format!("{folder}/{name}"), path)
        })
        .collect()
}

fn read_dir_file(origin: Origin, rel: &str, path: &Path) -> Result<SourceFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(SourceFile { origin, rel: rel.to_string(), label: rel.to_string(), text, pack: None })
}

/// Module names are dotted identifiers, so a name can never walk out of its folder.
pub fn valid_module_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
}
