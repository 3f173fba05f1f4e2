//! The SDK's own truth for an agent: its declaration files (`.d.ts`, `.d.ets`) read for a
//! lookup (`api_lookup`) and for a check of a file's SDK uses (`api_check`).
//!
//! - `layout`: where the SDK and a module's file are
//! - `jsdoc`: one JSDoc block's tags; `reader`: a file's declarations with their blocks
//! - `lookup`: a module or symbol, kits followed; `uses`, `check`: an ArkTS file's uses judged
//!
//! The SDK is outside the workspace and read here, not through the workspace scope: only a
//! module name reaches it (`layout::is_module_name`: no `/`, no `..`), only plain files under
//! the SDK's declaration folders are opened (never a link), each read is journaled, and nothing is written.

pub mod check;
pub mod jsdoc;
pub mod layout;
pub mod lookup;
pub mod reader;
pub mod uses;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::kernel::files::read::{read_optional_text, Links};
use crate::kernel::{Action, Call, Kernel, KernelError};
use lookup::Source;

/// The largest declaration file read (the largest in interface_sdk-js is under 1 MB).
const FILE_LIMIT: u64 = 8 * 1024 * 1024;

/// Declarations read from the SDK folder, each read journaled for the call.
struct Disk<'a> {
    root: &'a Path,
    kernel: &'a Kernel,
    call: &'a Call,
    /// Each module read once per call: a file that uses one module's names thousands of times
    /// read (and journaled) it as often, for minutes.
    read: std::cell::RefCell<std::collections::HashMap<String, Option<(String, String)>>>,
}

impl<'a> Disk<'a> {
    fn new(root: &'a Path, kernel: &'a Kernel, call: &'a Call) -> Disk<'a> {
        Disk { root, kernel, call, read: Default::default() }
    }
}

impl Source for Disk<'_> {
    fn module(&self, name: &str) -> Option<(String, String)> {
        if let Some(known) = self.read.borrow().get(name) {
            return known.clone();
        }
        let found = self.module_from_disk(name);
        self.read.borrow_mut().insert(name.to_string(), found.clone());
        found
    }

    fn modules_like(&self, name: &str) -> Vec<String> {
        layout::modules_like(self.root, name)
    }
}

impl Disk<'_> {
    fn module_from_disk(&self, name: &str) -> Option<(String, String)> {
        if !layout::is_module_name(name) {
            return None;
        }
        let file = layout::files(self.root, name).into_iter().find(|f| is_plain_file(f))?;
        let target = format!("sdk:{}", file.display());
        let read = self.kernel.journaled(self.call, Action::Read, &target, |_| read_declaration(&file));
        let shown = file.strip_prefix(self.root).unwrap_or(&file).display().to_string();
        read.ok().map(|text| (shown, text))
    }
}

/// A declaration file is the SDK's own plain file: a link in the SDK's folders (to a file of
/// the person's elsewhere) is not followed, since its text would be shown to the agent.
fn is_plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

fn read_declaration(file: &Path) -> Result<String, KernelError> {
    let failed = |e| KernelError::io("read", file.display().to_string(), e);
    let size = std::fs::symlink_metadata(file).map_err(failed)?.len();
    if size > FILE_LIMIT {
        return Err(KernelError::invalid(format!("{} is larger than {FILE_LIMIT} bytes", file.display())));
    }
    // Opened without following a link at its name, as a plain file only (a FIFO is not waited on).
    read_optional_text(file, Links::Refuse)
        .map_err(failed)?
        .ok_or_else(|| failed(std::io::Error::from(std::io::ErrorKind::NotFound)))
}

impl Kernel {
    /// The SDK's root, or `{no_sdk: {tried, fix}}`.
    fn sdk_root(&self) -> Result<PathBuf, Value> {
        let place = &self.toolchain().sdk;
        place.root.clone().ok_or_else(|| json!({"no_sdk": {"tried": place.tried, "fix": layout::FIX}}))
    }

    /// A module (`module` alone) or a symbol (in `module`, or found by its first word):
    /// `{sdk, module}` / `{sdk, symbol}`, or `{not_found: {missing, closest}}`, or `{no_sdk}`.
    pub fn sdk_lookup(&self, call: &Call, module: Option<&str>, symbol: Option<&str>) -> Result<Value, KernelError> {
        let root = match self.sdk_root() {
            Ok(root) => root,
            Err(no_sdk) => return Ok(no_sdk),
        };
        let src = Disk::new(&root, self, call);
        let sdk = root.display().to_string();
        let found = match (module, symbol) {
            (Some(module), None) => lookup::module(&src, module).map(|m| json!({"sdk": sdk, "module": m})),
            (Some(module), Some(symbol)) => {
                lookup::symbol(&src, module, symbol).map(|s| json!({"sdk": sdk, "symbol": s}))
            }
            (None, Some(symbol)) => {
                let mut last = None;
                let mut hit = None;
                for module in lookup::modules_for(&src, symbol) {
                    match lookup::symbol(&src, &module, symbol) {
                        Ok(found) => {
                            hit = Some(found);
                            break;
                        }
                        Err(missing) => last = Some(missing),
                    }
                }
                match hit {
                    Some(found) => Ok(json!({"sdk": sdk, "symbol": found})),
                    None => Err(last.unwrap_or(lookup::NotFound {
                        missing: format!("{symbol}: no module whose last word is its first; name the module"),
                        closest: Vec::new(),
                    })),
                }
            }
            (None, None) => {
                return Err(KernelError::invalid(
                    "name a module (@ohos.vibrator, @kit.SensorServiceKit) or a symbol (vibrator.startVibration)",
                ))
            }
        };
        Ok(found.unwrap_or_else(|missing| json!({"not_found": missing})))
    }

    /// `text` (an ArkTS file) checked against the SDK and the project: `{sdk, findings}` or
    /// `{no_sdk}`.
    pub fn sdk_check(&self, call: &Call, text: &str, project: &check::Project) -> Result<Value, KernelError> {
        let root = match self.sdk_root() {
            Ok(root) => root,
            Err(no_sdk) => return Ok(no_sdk),
        };
        let src = Disk::new(&root, self, call);
        let findings = check::check(&src, text, project);
        Ok(json!({"sdk": root.display().to_string(), "findings": findings}))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
