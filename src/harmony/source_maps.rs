//! Crash frames back to the workspace's `.ets` lines, through the build's own source map and,
//! for a release build, its name cache (shared/HARMONY-VERIFY.md §7, HWSTACK): rein reads them
//! itself (hstack needs Node and the command-line tools). Each file is read through the kernel
//! for the call (scope, journal), like any other read of the agent's.
//!
//! - sourceMaps.map: `<module>/build/<product>/cache/default/default@CompileArkTS/esmodule/
//!   <debug|release>/sourceMaps.map`, one JSON object whose keys are a raw frame's
//!   `<entry>|<package>|<version>|<path>.ts` and whose values are version-3 source maps with
//!   `sources` naming `<module>/src/main/ets/….ets`.
//! - nameCache.json: `…/esmodule/release/obfuscation/nameCache.json`; per source file,
//!   `IdentifierCache` and `MemberMethodCache` map `"<scope#>name[:first:last line]"` to the
//!   obfuscated name (HWSTACK's worked example: `"callHarFunction:24:26": "i"`).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use sourcemap::SourceMap;

use super::crash_frames::{self, Form, Frame};
use crate::kernel::{Call, Kernel, KernelError};

/// The product whose build rein reads (a frame does not say; DevEco's default product).
const PRODUCT: &str = "default";
/// The build modes whose maps rein tries, in this order.
const MODES: [&str; 2] = ["debug", "release"];

/// Why a frame that names no app code is not placed.
const NOT_APP_CODE: &str = "not a frame of the app's ArkTS code (a native, system or library frame)";

/// Why a test HAP's compiled frame has no entry: rein reads the app's maps only.
const TEST_MAP_UNKNOWN: &str = "this is the test HAP's compiled code, whose build (ohosTest@OhosTestCompileArkTS, \
     shared/HARMONY-VERIFY.md §1.5) writes its source map where no source says: rein does not read it";

/// The folders of one build's maps under a module's folder (hstack's `-s` and `-n`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BuildMaps {
    /// The folder holding `sourceMaps.map`.
    pub source_maps: String,
    /// The folder holding a release build's `nameCache.json`.
    pub name_cache: String,
}

impl BuildMaps {
    /// The maps of `mode` (`debug` or `release`); None for another mode.
    pub fn of(module_dir: &str, mode: &str) -> Option<BuildMaps> {
        let esmodule = format!("{module_dir}/build/{PRODUCT}/cache/default/default@CompileArkTS/esmodule");
        MODES.contains(&mode).then(|| BuildMaps {
            source_maps: format!("{esmodule}/{mode}"),
            name_cache: format!("{esmodule}/release/obfuscation"),
        })
    }
}

/// Where the source map of `mode` lies, under a module's folder.
fn map_path(module_dir: &str, mode: &str) -> String {
    let dir = BuildMaps::of(module_dir, mode).map(|m| m.source_maps).unwrap_or_default();
    format!("{dir}/sourceMaps.map")
}

/// Where a release build's name cache lies, under a module's folder.
fn name_cache_path(module_dir: &str) -> String {
    let dir = BuildMaps::of(module_dir, "release").map(|m| m.name_cache).unwrap_or_default();
    format!("{dir}/nameCache.json")
}

/// One frame, mapped (or why not).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SourceFrame {
    /// The function: the source name when the name cache restored it, else the device's.
    pub name: Option<String>,
    /// The workspace file, line and column (1-based) the frame comes from.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub mapped: bool,
    /// Why it could not be mapped (or what was left as the device wrote it).
    pub why: Option<String>,
    /// The source map it was read from.
    pub source_map: Option<String>,
    /// The frame as the device named it (`<path>:<line>:<column>`).
    pub device: String,
}

impl SourceFrame {
    fn unmapped(frame: &Frame, why: String) -> SourceFrame {
        SourceFrame {
            name: frame.name.clone(),
            file: None,
            line: None,
            column: None,
            mapped: false,
            why: Some(why),
            source_map: None,
            device: device_place(frame),
        }
    }
}

fn device_place(frame: &Frame) -> String {
    format!("{}:{}:{}", frame.key.as_deref().unwrap_or(&frame.path), frame.line, frame.column)
}

/// Why a source map file gave nothing.
#[derive(Debug, Clone)]
enum MapFile {
    /// It is not there: that build was never made (or was cleaned).
    Missing,
    /// It is there but cannot be used: the words say why.
    Unusable(String),
}

/// The files of one mapping, each read once.
#[derive(Default)]
struct Reads {
    modules: Option<HashMap<String, String>>,
    maps: HashMap<String, Result<Value, MapFile>>,
    parsed: HashMap<(String, String), Option<SourceMap>>,
    caches: HashMap<String, Option<Value>>,
}

impl Kernel {
    /// Each of `frames` mapped to its workspace source ([`SourceFrame`]); a frame that cannot
    /// be says why. Never fails as a whole: a stack is shown either way.
    pub fn map_frames(&self, call: &Call, frames: &[Frame]) -> Vec<SourceFrame> {
        let mut reads = Reads::default();
        frames.iter().map(|frame| self.map_frame(call, frame, &mut reads)).collect()
    }

    /// Each stack line parsed ([`crash_frames::parse`]) and mapped; a line that is no frame of
    /// the app says so.
    pub fn map_stack(&self, call: &Call, lines: &[String]) -> Vec<SourceFrame> {
        let mut reads = Reads::default();
        lines
            .iter()
            .map(|line| match crash_frames::parse(line) {
                Some(frame) => self.map_frame(call, &frame, &mut reads),
                None => SourceFrame {
                    name: None,
                    file: None,
                    line: None,
                    column: None,
                    mapped: false,
                    why: Some(NOT_APP_CODE.into()),
                    source_map: None,
                    device: line.trim().to_string(),
                },
            })
            .collect()
    }

    /// One frame placed by [`Frame::form`]: a source as it is, compiled code through its map.
    fn map_frame(&self, call: &Call, frame: &Frame, reads: &mut Reads) -> SourceFrame {
        match frame.form() {
            Form::Source => self.restored(call, frame, reads),
            Form::Compiled => self.compiled(call, frame, reads),
            Form::Other => SourceFrame::unmapped(frame, NOT_APP_CODE.into()),
        }
    }

    fn compiled(&self, call: &Call, frame: &Frame, reads: &mut Reads) -> SourceFrame {
        let Some(module_dir) = self.module_dir(call, &frame.module, reads) else {
            return SourceFrame::unmapped(
                frame,
                format!("{} is not a module of this project's build-profile.json5", frame.module),
            );
        };
        let key = frame.key.as_deref().unwrap_or(&frame.path);
        // What the maps that exist said; the missing ones matter only when none exists.
        let (mut misses, mut missing) = (Vec::new(), Vec::new());
        for mode in MODES {
            let path = map_path(&module_dir, mode);
            let map = match self.source_map(call, &path, key, reads) {
                Ok(Some(map)) => map,
                Ok(None) => {
                    misses.push(format!("{path} has no entry for {key}"));
                    continue;
                }
                Err(MapFile::Missing) => {
                    missing.push(path);
                    continue;
                }
                Err(MapFile::Unusable(why)) => {
                    misses.push(why);
                    continue;
                }
            };
            let (line0, column0) = (frame.line.saturating_sub(1), frame.column.saturating_sub(1));
            let token = map.lookup_token(line0, column0).filter(|t| t.get_dst_line() == line0);
            let Some(token) = token else {
                misses.push(format!(
                    "{path} has no code at line {} of {}: the build is not the one that ran it (rebuilt since, or older)",
                    frame.line, frame.path
                ));
                continue;
            };
            let Some(source) = token.get_source() else {
                misses.push(format!("{path} names no source for line {} of {}", frame.line, frame.path));
                continue;
            };
            let file = self.workspace_file(call, source, reads);
            // The map is a build output the project's hvigorfile.ts can write: a source it names
            // outside the workspace (or in .rein/) is no place of the project's code.
            if !self.is_workspace_path(&file) {
                misses.push(format!(
                    "{path} names {source} for line {} of {}, which is not a file of the workspace",
                    frame.line, frame.path
                ));
                continue;
            }
            let line = token.get_src_line() + 1;
            let name = if mode == "release" {
                self.restored_name(call, &module_dir, source, frame.name.as_deref(), line, reads)
            } else {
                frame.name.clone()
            };
            return SourceFrame {
                name,
                file: Some(file),
                line: Some(line),
                column: Some(token.get_src_col() + 1),
                mapped: true,
                why: None,
                source_map: Some(path),
                device: device_place(frame),
            };
        }
        if misses.is_empty() {
            misses.push(format!("no source map for this build ({} missing: build the module)", missing.join(" and ")));
        }
        if frame.is_test_code() {
            misses.push(TEST_MAP_UNKNOWN.into());
        }
        SourceFrame::unmapped(frame, misses.join("; "))
    }

    /// A frame that names its `.ets` source already: that source, as a workspace path.
    fn restored(&self, call: &Call, frame: &Frame, reads: &mut Reads) -> SourceFrame {
        let source = frame.module_path();
        let module = source.split_once('/').map_or(source.as_str(), |(module, _)| module);
        if self.module_dir(call, module, reads).is_none() {
            return SourceFrame::unmapped(
                frame,
                format!("{module} is not a module of this project's build-profile.json5"),
            );
        }
        let file = self.workspace_file(call, &source, reads);
        if !self.is_workspace_path(&file) {
            return SourceFrame::unmapped(frame, format!("{} is not a file of the workspace", frame.path));
        }
        SourceFrame {
            name: frame.name.clone(),
            file: Some(file),
            line: Some(frame.line),
            column: Some(frame.column),
            mapped: true,
            why: None,
            source_map: None,
            device: device_place(frame),
        }
    }

    /// `<module>/src/…` (as a map's `sources` and a restored frame name it) → the workspace path,
    /// through the module's `srcPath`.
    fn workspace_file(&self, call: &Call, source: &str, reads: &mut Reads) -> String {
        let Some((module, rest)) = source.split_once('/') else { return source.to_string() };
        match self.module_dir(call, module, reads) {
            Some(dir) if dir == "." => rest.to_string(),
            Some(dir) => format!("{dir}/{rest}"),
            None => source.to_string(),
        }
    }

    /// A module's folder (build-profile.json5 `modules[].srcPath`, without `./`).
    fn module_dir(&self, call: &Call, module: &str, reads: &mut Reads) -> Option<String> {
        let modules = reads.modules.get_or_insert_with(|| {
            let text = self.read_text(call, "build-profile.json5").map(|f| f.text).unwrap_or_default();
            let profile: Value = super::json5_value::parse(&text).unwrap_or(Value::Null);
            let list = profile["modules"].as_array().cloned().unwrap_or_default();
            list.iter()
                .filter_map(|m| {
                    let name = m["name"].as_str()?;
                    let src = m["srcPath"].as_str().unwrap_or(name);
                    let dir = src.trim_start_matches("./").trim_end_matches('/');
                    Some((name.to_string(), if dir.is_empty() { ".".into() } else { dir.to_string() }))
                })
                .collect()
        });
        // `<m>_test` is module m's test code (its ohosTest HAP).
        modules.get(module).or_else(|| modules.get(module.strip_suffix("_test")?)).cloned()
    }

    /// The file at `path` when it is the workspace's own, else refused without asking anyone.
    fn workspace_text(&self, call: &Call, path: &str) -> Result<crate::kernel::TextFile, KernelError> {
        if !self.is_workspace_path(path) {
            return Err(KernelError::invalid(format!(
                "{path} is not inside the workspace (build-profile.json5's srcPath leads outside it): rein reads only this project's build"
            )));
        }
        self.read_text(call, path)
    }

    /// The source map of `key` in the map file at `path`; Ok(None) when the file has none for it.
    fn source_map(&self, call: &Call, path: &str, key: &str, reads: &mut Reads) -> Result<Option<SourceMap>, MapFile> {
        let cached = (path.to_string(), key.to_string());
        if let Some(map) = reads.parsed.get(&cached) {
            return Ok(map.clone());
        }
        // The map's place follows build-profile.json5's srcPath, a workspace file: only this
        // project's own build is read (Kernel::is_workspace_path).
        let whole = reads.maps.entry(path.to_string()).or_insert_with(|| match self.workspace_text(call, path) {
            Ok(file) => serde_json::from_str(&file.text)
                .map_err(|e| MapFile::Unusable(format!("{path} is not a source map file: {e}"))),
            Err(KernelError::FileNotFound { .. }) => Err(MapFile::Missing),
            Err(e) => Err(MapFile::Unusable(format!("{path} could not be read: {e}"))),
        });
        // Looked up where it lies: a copy of the whole file for each frame of a long stack was
        // minutes of work (a 6 MB map and 3,000 frames the device printed).
        let whole = whole.as_ref().map_err(Clone::clone)?;
        let map = match whole.get(key) {
            Some(entry) => Some(SourceMap::from_slice(entry.to_string().as_bytes()).map_err(|e| {
                MapFile::Unusable(format!("{path}'s entry for {key} is not a version-3 source map: {e}"))
            })?),
            None => None,
        };
        reads.parsed.insert(cached, map.clone());
        Ok(map)
    }

    /// The source name of the obfuscated `name` at `line` of `source`, from the release name
    /// cache; the device's name when the cache does not have it.
    fn restored_name(
        &self,
        call: &Call,
        module_dir: &str,
        source: &str,
        name: Option<&str>,
        line: u32,
        reads: &mut Reads,
    ) -> Option<String> {
        let name = name?;
        let path = name_cache_path(module_dir);
        let cache = reads
            .caches
            .entry(path.clone())
            .or_insert_with(|| self.workspace_text(call, &path).ok().and_then(|f| serde_json::from_str(&f.text).ok()));
        let restored = cache.as_ref().and_then(|cache| original_name(&cache[source], name, line));
        Some(restored.unwrap_or_else(|| name.to_string()))
    }
}

/// In one file's name-cache entry, the source name obfuscated as `obfuscated` whose line range
/// (when the key has one) holds `line`.
fn original_name(entry: &Value, obfuscated: &str, line: u32) -> Option<String> {
    let mut fallback = None;
    for table in ["MemberMethodCache", "IdentifierCache"] {
        let Some(pairs) = entry[table].as_object() else { continue };
        for (key, value) in pairs {
            if value.as_str() != Some(obfuscated) {
                continue;
            }
            let scoped = key.rsplit('#').next().unwrap_or(key);
            let mut parts = scoped.split(':');
            let original = parts.next().unwrap_or(scoped).to_string();
            let range: Vec<u32> = parts.filter_map(|p| p.parse().ok()).collect();
            match range.as_slice() {
                [first, last] if (*first..=*last).contains(&line) => return Some(original),
                [_, _] => {}
                _ => fallback = fallback.or(Some(original)),
            }
        }
    }
    fallback.filter(|n| !n.is_empty() && n != "__function")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_cache_restores_by_name_and_line_range_as_hwstack_does() {
        let entry: Value = serde_json::from_str(
            r##"{"IdentifierCache":{"Index#initialRender#__function":"o","#testObfuscation:6:9":"g2"},
                "MemberMethodCache":{"initialRender:6:20":"initialRender","callHarFunction:24:26":"i","other:40:50":"i"}}"##,
        )
        .unwrap();
        assert_eq!(original_name(&entry, "i", 25).as_deref(), Some("callHarFunction"));
        assert_eq!(original_name(&entry, "i", 45).as_deref(), Some("other"));
        assert_eq!(original_name(&entry, "i", 30), None);
        assert_eq!(original_name(&entry, "g2", 7).as_deref(), Some("testObfuscation"));
        assert_eq!(original_name(&entry, "o", 7), None);
    }
}
