//! The frames of an ArkTS stack as the device writes them (shared/HARMONY-VERIFY.md §7, HWSTACK):
//! a frame the device could not restore names the compiled `.ts` inside the HAP,
//! `at i (entry|entry|1.0.0|src/main/ets/pages/Index.ts:71:71)`
//! (`<entry package>|<package>|<version>|<path>:<line>:<column>`); one it restored names the
//! source, `at callHarFunction (entry/src/main/ets/pages/Index.ets:25:3)`. Release builds write
//! the raw form after `Cannot get SourceMap info, dump raw stack:`. A test's stack (Hypium's
//! `stack=`, §1.3) is the same `error.stack`, and may name a source in the first form
//! (`entry|entry|1.0.0|src/ohosTest/ets/test/List.test.ets:12:5`, a module-relative path).
//!
//! [`Frame::form`] is the one rule for what a frame names (every stack rein shows is placed by
//! it: crashes, fault logs, test failures): a `.ets` path is source already, a `.ts` path with
//! its `<entry>|…` key is compiled code its build's source map places, anything else (a `.js` of
//! a library, a system frame) is not the app's ArkTS code.

use serde::{Deserialize, Serialize};

/// One frame, parsed. Built from a stack line ([`parse`]) or by any other parser of stacks
/// (a test failure's), then mapped with [`crate::kernel::Kernel::map_frames`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The function as the device named it (an obfuscated name in a release build).
    #[serde(default)]
    pub name: Option<String>,
    /// The HAP's module (the entry package): the module whose build holds the source map.
    pub module: String,
    /// The file as the frame names it: the compiled `src/main/ets/pages/Index.ts` of a raw
    /// frame, or the restored `entry/src/main/ets/pages/Index.ets`.
    pub path: String,
    /// 1-based, as the device writes them.
    pub line: u32,
    pub column: u32,
    /// The whole `<entry>|<package>|<version>|<path>` of a raw frame: its source map's key.
    #[serde(default)]
    pub key: Option<String>,
}

/// What a frame names ([`Frame::form`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A `.ets` source: its line and column are the source's already.
    Source,
    /// The compiled `.ts` of a raw frame, with the key of its source map entry.
    Compiled,
    /// Neither: a library's `.js`, a compiled `.ts` without its key, a system frame.
    Other,
}

impl Frame {
    /// What the frame names: the one rule for every stack rein shows.
    pub fn form(&self) -> Form {
        if self.path.ends_with(".ets") {
            Form::Source
        } else if self.key.is_some() && self.path.ends_with(".ts") {
            Form::Compiled
        } else {
            Form::Other
        }
    }

    /// The file as `<module>/<path>` (how a source map's `sources` and a restored path-form
    /// frame name it): a keyed frame's path is relative to its module.
    pub fn module_path(&self) -> String {
        match self.key {
            Some(_) => format!("{}/{}", self.module, self.path),
            None => self.path.clone(),
        }
    }

    /// Whether the frame is in a module's test code (the `<m>_test` package of its ohosTest
    /// HAP, or a path under `src/ohosTest/`).
    pub fn is_test_code(&self) -> bool {
        self.module.ends_with("_test") || self.path.contains("src/ohosTest/")
    }
}

/// `at <name> (<where>:<line>:<column>)` → a frame; None for any other line (a native frame
/// `at anonymous (native)`, a message line).
pub fn parse(line: &str) -> Option<Frame> {
    let rest = line.trim().strip_prefix("at ")?;
    let (name, place) = match rest.rfind(" (") {
        Some(open) => (Some(rest[..open].trim()), rest[open + 2..].strip_suffix(')')?),
        None => (None, rest),
    };
    let (place, column) = place.rsplit_once(':')?;
    let (place, line) = place.rsplit_once(':')?;
    let (line, column) = (line.parse().ok()?, column.parse().ok()?);
    let name = name.filter(|n| !n.is_empty()).map(String::from);
    let fields: Vec<&str> = place.split('|').collect();
    match fields.as_slice() {
        [entry, _package, _version, path] if !entry.is_empty() && !path.is_empty() => Some(Frame {
            name,
            module: entry.to_string(),
            path: path.to_string(),
            line,
            column,
            key: Some(place.to_string()),
        }),
        [path] => {
            let (module, _) = path.split_once('/')?;
            Some(Frame { name, module: module.to_string(), path: path.to_string(), line, column, key: None })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_and_the_restored_forms_of_the_sheet_parse() {
        let raw = parse("    at i (entry|entry|1.0.0|src/main/ets/pages/Index.ts:71:71)").unwrap();
        assert_eq!(raw.name.as_deref(), Some("i"));
        assert_eq!(
            (raw.module.as_str(), raw.path.as_str(), raw.line, raw.column),
            ("entry", "src/main/ets/pages/Index.ts", 71, 71)
        );
        assert_eq!(raw.key.as_deref(), Some("entry|entry|1.0.0|src/main/ets/pages/Index.ts"));
        assert_eq!(raw.form(), Form::Compiled);
        let restored = parse("at callHarFunction (entry/src/main/ets/pages/Index.ets:25:3)").unwrap();
        assert_eq!(restored.form(), Form::Source);
        assert_eq!(restored.module_path(), "entry/src/main/ets/pages/Index.ets");
        // A test's frame names the source in the keyed form: a source all the same.
        let keyed = parse("at divides (entry_test|entry_test|1.0.0|src/ohosTest/ets/test/Math.test.ets:9:7)").unwrap();
        assert_eq!(keyed.form(), Form::Source);
        assert_eq!(keyed.module_path(), "entry_test/src/ohosTest/ets/test/Math.test.ets");
        assert!(keyed.is_test_code() && !raw.is_test_code());
        let library = parse("at run (oh_modules/@ohos/hypium/index.js:1:1)").unwrap();
        assert_eq!(library.form(), Form::Other);
        assert_eq!((restored.module.as_str(), restored.line, restored.column), ("entry", 25, 3));
        assert_eq!(parse("at anonymous (native)"), None);
        assert_eq!(parse("Error message:Cannot read property 'length' of undefined"), None);
        assert_eq!(parse("at f (a|b|c:1:x)"), None);
    }
}
