//! Where Lua source files come from: the built-ins embedded in the binary, then the tools and
//! recipes the embedding program gave as text, then each installed pack, then the project's own
//! folders. Later layers win. The embedder's native modules travel with the sources, so every
//! state loaded from them (a reload, a check's scratch host) has them too.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::declared_names::Wanted;
use super::project_files::{is_top_level_in, ProjectFiles, SourceError};
use crate::kernel::PackGrant;
use crate::lua::native::NativeModules;
use crate::lua::{Chunk, Modules};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}

/// The Lua files shipped in the binary: `(path, text)`, e.g. `("prelude/harmony/hdc.lua", …)`.
pub fn builtin_files() -> &'static [(&'static str, &'static str)] {
    embedded::BUILTIN_FILES
}

/// Where a tool, recipe or module comes from (the kernel's actors carry it too).
pub use crate::kernel::Origin;

/// One Lua file and where it came from.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub origin: Origin,
    /// Path inside its layer, e.g. `tools/read_file.lua`.
    pub rel: String,
    /// How errors name the file: `tools/x.lua` for the project, `<built-in>/tools/x.lua`.
    pub label: String,
    /// Shared with every copy of the file (each `require` of a module finds it again).
    pub text: Arc<str>,
    /// The pack it comes from; its tools and modules are named `<pack>.<name>`.
    pub pack: Option<String>,
}

impl SourceFile {
    /// The file as the scripting host compiles it.
    pub fn chunk(&self) -> Chunk {
        Chunk { label: self.label.clone(), text: self.text.clone() }
    }
}

/// An installed pack: its name, folder, and what its manifest lets its code run.
#[derive(Debug, Clone)]
pub struct PackLayer {
    pub name: String,
    pub root: PathBuf,
    pub grant: Arc<PackGrant>,
}

#[derive(Debug, Clone)]
enum Layer {
    Embedded,
    /// Files the embedder gave as text: `(path, text)`, e.g. `("tools/open.lua", …)`.
    Memory(Arc<Vec<(String, String)>>),
    Pack(PackLayer),
    /// The project's own code, as read for this generation.
    Project {
        root: PathBuf,
        files: Arc<ProjectFiles>,
    },
}

#[derive(Debug, Clone)]
pub struct Sources {
    /// In load order: built-ins first, the project last.
    layers: Vec<Layer>,
    /// Names the project's rein.toml lets a pack tool take over: name → `<pack>.<tool>`.
    overrides: std::collections::BTreeMap<String, String>,
    /// The embedder's native modules (`rein.<name>`).
    natives: NativeModules,
    /// When only some names are served: the files that may declare them are all that loads.
    only: Option<Arc<Wanted>>,
}

impl Sources {
    /// Built-ins, then each installed pack, then the project's code as it is on disk now.
    pub fn with_packs(workspace: &Path, packs: Vec<PackLayer>) -> Result<Sources, SourceError> {
        Ok(Sources::with_packs_and_files(workspace, packs, ProjectFiles::read(workspace)?))
    }

    /// Built-ins, then each installed pack, then the project's code `files` read from `workspace`.
    pub fn with_packs_and_files(workspace: &Path, packs: Vec<PackLayer>, files: ProjectFiles) -> Sources {
        let mut layers = vec![Layer::Embedded];
        layers.extend(packs.into_iter().map(Layer::Pack));
        layers.push(Layer::Project { root: workspace.to_path_buf(), files: Arc::new(files) });
        Sources { layers, overrides: Default::default(), natives: NativeModules::default(), only: None }
    }

    /// Built-ins, then the project's code as it is on disk now.
    pub fn new(workspace: &Path) -> Result<Sources, SourceError> {
        Sources::with_packs(workspace, Vec::new())
    }

    /// The project folder holding tools/, recipes/ and prelude/, if any.
    pub fn project_root(&self) -> Option<&Path> {
        self.project().map(|(root, _)| root)
    }

    /// The project's code as this generation loads it.
    pub fn project_files(&self) -> Option<&ProjectFiles> {
        self.project().map(|(_, files)| files)
    }

    fn project(&self) -> Option<(&Path, &ProjectFiles)> {
        self.layers.iter().rev().find_map(|layer| match layer {
            Layer::Project { root, files } => Some((root.as_path(), files.as_ref())),
            _ => None,
        })
    }

    /// The same sources with the project's code replaced by `files`.
    pub fn with_project_files(&self, files: ProjectFiles) -> Sources {
        let mut changed = self.clone();
        for layer in &mut changed.layers {
            if let Layer::Project { files: current, .. } = layer {
                *current = Arc::new(files.clone());
            }
        }
        changed
    }

    /// The same sources with the packs replaced by `packs` (a moved rein.lock).
    pub fn with_pack_layers(&self, packs: Vec<PackLayer>) -> Sources {
        let mut layers: Vec<Layer> =
            self.layers.iter().filter(|l| matches!(l, Layer::Embedded | Layer::Memory(_))).cloned().collect();
        layers.extend(packs.into_iter().map(Layer::Pack));
        layers.extend(self.layers.iter().filter(|l| matches!(l, Layer::Project { .. })).cloned());
        Sources { layers, overrides: self.overrides.clone(), natives: self.natives.clone(), only: self.only.clone() }
    }

    /// The installed packs served, by name and folder.
    pub fn packs(&self) -> impl Iterator<Item = &PackLayer> {
        self.layers.iter().filter_map(|layer| match layer {
            Layer::Pack(pack) => Some(pack),
            _ => None,
        })
    }

    /// Lets pack tools take over built-in or project names (`[overrides]` in rein.toml).
    pub fn with_overrides(mut self, overrides: std::collections::BTreeMap<String, String>) -> Sources {
        self.overrides = overrides;
        self
    }

    /// The overrides of the names served (all of them, unless only some names are).
    pub fn overrides_served(&self) -> impl Iterator<Item = (&String, &String)> {
        self.overrides.iter().filter(|(name, _)| self.only.as_ref().is_none_or(|only| only.contains(name)))
    }

    /// The same sources serving only `names` (and the tools `[overrides]` maps them to): only
    /// the files that may declare one of them load ([`Wanted::may_declare`]).
    pub fn serving_only(mut self, names: impl IntoIterator<Item = String>) -> Sources {
        self.only = Some(Arc::new(wanted(names, &self.overrides)));
        self
    }

    /// Whether the project's code was read only in part ([`ProjectFiles::read_scanning`]).
    pub fn project_files_partial(&self) -> bool {
        self.project_files().is_some_and(|files| files.left_out() > 0)
    }

    /// What an installed pack's code may run.
    pub fn pack_grant(&self, name: &str) -> Option<Arc<PackGrant>> {
        self.layers.iter().find_map(|layer| match layer {
            Layer::Pack(pack) if pack.name == name => Some(pack.grant.clone()),
            _ => None,
        })
    }

    /// Only the built-ins (for embedders that want no project code).
    pub fn built_in_only() -> Sources {
        Sources {
            layers: vec![Layer::Embedded],
            overrides: Default::default(),
            natives: NativeModules::default(),
            only: None,
        }
    }

    /// The same sources with the embedder's native modules and its tools and recipes given as
    /// text (`(path, text)`, `tools/x.lua` or `recipes/x.lua`), loaded after the built-ins.
    pub fn with_embedder(mut self, natives: NativeModules, files: Vec<(String, String)>) -> Sources {
        self.natives = natives;
        self.layers.retain(|l| !matches!(l, Layer::Memory(_)));
        if !files.is_empty() {
            let at = self.layers.iter().position(|l| matches!(l, Layer::Embedded)).map_or(0, |i| i + 1);
            self.layers.insert(at, Layer::Memory(Arc::new(files)));
        }
        self
    }

    /// The embedder's native modules.
    pub fn natives(&self) -> &NativeModules {
        &self.natives
    }

    /// Tool files of every layer, in load order; inside a layer sorted by path. Tools are the
    /// `*.lua` files directly in `tools/`; subfolders hold modules for `require`.
    pub fn tool_files(&self) -> Result<Vec<SourceFile>, SourceError> {
        self.files_in("tools")
    }

    /// Recipe files of every layer, in load order: the `*.lua` files directly in `recipes/`.
    pub fn recipe_files(&self) -> Result<Vec<SourceFile>, SourceError> {
        self.files_in("recipes")
    }

    fn files_in(&self, folder: &str) -> Result<Vec<SourceFile>, SourceError> {
        let mut files = self.all_files_in(folder)?;
        if let Some(only) = &self.only {
            files.retain(|file| only.may_declare(&file.rel, file.pack.as_deref(), &file.text));
        }
        Ok(files)
    }

    fn all_files_in(&self, folder: &str) -> Result<Vec<SourceFile>, SourceError> {
        let mut files = Vec::new();
        for layer in &self.layers {
            match layer {
                Layer::Embedded => files.extend(
                    (0..embedded::BUILTIN_FILES.len())
                        .filter(|&index| is_top_level_in(embedded::BUILTIN_FILES[index].0, folder))
                        .map(embedded_file),
                ),
                Layer::Memory(given) => files.extend(
                    given
                        .iter()
                        .filter(|(rel, _)| is_top_level_in(rel, folder))
                        .map(|(rel, text)| memory_file(rel, text)),
                ),
                Layer::Project { files: project, .. } => {
                    files.extend(project.top_level(folder).map(|(rel, text)| project_file(rel, text.clone())))
                }
                Layer::Pack(pack) => files.extend(
                    dir_lua_files(Origin::Pack, &pack.root, folder)?.into_iter().map(|f| in_pack(f, &pack.name)),
                ),
            }
        }
        Ok(files)
    }

    /// Finds module `name` (`a.b` → `a/b.lua` or `a/b/init.lua`): prelude/ of the built-ins,
    /// then of the other layers, the project's first; then the tools/ folders likewise.
    pub fn find_module(&self, name: &str) -> Result<Option<SourceFile>, SourceError> {
        let stem = name.replace('.', "/");
        let candidates = [format!("{stem}.lua"), format!("{stem}/init.lua")];
        // A built-in module's name means the built-in for every file, before anything else: a
        // pack may be called `harmony` or `rein` (valid pack names), and its `<pack>.<module>`
        // must not answer rein's own `require("harmony.hvigor")`.
        for layer in self.layers.iter().filter(|l| matches!(l, Layer::Embedded)) {
            for candidate in &candidates {
                if let Some(file) = layer_file(layer, &format!("prelude/{candidate}"))? {
                    return Ok(Some(file));
                }
            }
        }
        // `<pack>.<module>` is that pack's own module, and pack modules are reachable only so.
        for layer in &self.layers {
            if let Layer::Pack(PackLayer { name: pack, root, .. }) = layer {
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
        for folder in ["prelude", "tools"] {
            // A built-in module's name means the built-in for every file: rein's own tools parse
            // what the toolchain prints with them, and no project file may swap that parser
            // (`project_modules_named_like_built_ins` reports a project file that tries).
            let built_in_first = self.layers.iter().filter(|l| matches!(l, Layer::Embedded));
            let then_latest_first = self.layers.iter().rev().filter(|l| !matches!(l, Layer::Embedded));
            for layer in built_in_first.chain(then_latest_first) {
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

impl Sources {
    /// The project's modules under `prelude/` that have the name of a built-in module
    /// (`prelude/harmony/hdc.lua`), as `(file, module)`. `require` never serves them (the
    /// built-in wins); the registry reports each so the author learns why.
    pub fn project_modules_named_like_built_ins(&self) -> Vec<(String, String)> {
        let Some(files) = self.project_files() else { return Vec::new() };
        files
            .paths()
            .filter_map(|rel| {
                let stem = rel.strip_prefix("prelude/")?.strip_suffix(".lua")?;
                let stem = stem.strip_suffix("/init").unwrap_or(stem);
                let built_in = [format!("prelude/{stem}.lua"), format!("prelude/{stem}/init.lua")]
                    .iter()
                    .any(|candidate| embedded::BUILTIN_FILES.iter().any(|(r, _)| r == candidate));
                built_in.then(|| (rel.to_string(), stem.replace('/', ".")))
            })
            .collect()
    }
}

/// The names a host serving only `names` loads: those, and the tools `overrides` (rein.toml's
/// `[overrides]`) maps them to.
pub fn wanted(
    names: impl IntoIterator<Item = String>,
    overrides: &std::collections::BTreeMap<String, String>,
) -> Wanted {
    let mut wanted = Wanted::new(names);
    for (name, target) in overrides {
        if wanted.contains(name) {
            wanted.add(target);
        }
    }
    wanted
}

fn in_pack(mut file: SourceFile, pack: &str) -> SourceFile {
    file.label = format!("{pack}/{}", file.rel);
    file.pack = Some(pack.to_string());
    file
}

fn embedded_file(index: usize) -> SourceFile {
    let (rel, _) = embedded::BUILTIN_FILES[index];
    SourceFile {
        origin: Origin::BuiltIn,
        rel: rel.to_string(),
        label: format!("<built-in>/{rel}"),
        text: embedded_text(index),
        pack: None,
    }
}

/// The built-in file at `index` of [`builtin_files`], as one shared text per process: every
/// tool file requires its own copy of the prelude modules, and copying their texts for each
/// was a tenth of a host's start.
fn embedded_text(index: usize) -> Arc<str> {
    static TEXTS: std::sync::OnceLock<Vec<Arc<str>>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| embedded::BUILTIN_FILES.iter().map(|(_, text)| Arc::from(*text)).collect())[index].clone()
}

fn memory_file(rel: &str, text: &str) -> SourceFile {
    SourceFile {
        origin: Origin::Embedder,
        rel: rel.to_string(),
        label: format!("<embedder>/{rel}"),
        text: Arc::from(text),
        pack: None,
    }
}

fn layer_file(layer: &Layer, rel: &str) -> Result<Option<SourceFile>, SourceError> {
    match layer {
        Layer::Embedded => Ok(embedded::BUILTIN_FILES.iter().position(|(r, _)| *r == rel).map(embedded_file)),
        Layer::Memory(given) => Ok(given.iter().find(|(r, _)| r == rel).map(|(r, text)| memory_file(r, text))),
        Layer::Project { files, .. } => Ok(files.shared(rel).map(|text| project_file(rel, text))),
        // Pack modules are found only by their namespaced name.
        Layer::Pack(_) => Ok(None),
    }
}

fn dir_lua_files(origin: Origin, root: &Path, folder: &str) -> Result<Vec<SourceFile>, SourceError> {
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

fn project_file(rel: &str, text: Arc<str>) -> SourceFile {
    SourceFile { origin: Origin::Project, rel: rel.to_string(), label: rel.to_string(), text, pack: None }
}

fn read_dir_file(origin: Origin, rel: &str, path: &Path) -> Result<SourceFile, SourceError> {
    let text = std::fs::read_to_string(path).map_err(|source| SourceError { path: path.to_path_buf(), source })?;
    Ok(SourceFile { origin, rel: rel.to_string(), label: rel.to_string(), text: text.into(), pack: None })
}

impl Modules for Sources {
    fn find(&self, name: &str) -> std::io::Result<Option<Chunk>> {
        match self.find_module(name) {
            Ok(found) => Ok(found.map(|file| file.chunk())),
            Err(err) => Err(std::io::Error::new(err.source.kind(), err.to_string())),
        }
    }

    fn looked_in(&self, name: &str) -> String {
        let stem = name.replace('.', "/");
        format!("prelude/{stem}.lua and tools/{stem}.lua in the project and the built-ins (a pack's modules are `<pack>.<module>`)")
    }
}
