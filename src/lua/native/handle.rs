//! What a native function may do: the kernel's own operations, for the call it serves. The
//! handle holds the kernel privately and hands out no path, file or process of its own, so a
//! native module cannot step around the scope, the approvals, the pack permissions acting in
//! the call, or the journal.

use std::path::Path;
use std::sync::Arc;

use crate::error::Failure;
use crate::kernel::process::spawn::SpawnOutput;
use crate::kernel::{
    Call, Edit, EditOptions, EditOutput, Kernel, ListOptions, ListOutput, ReadOptions, ReadOutput, RunOptions,
    TextFile, WriteOutput,
};

/// The call a native function serves, and the kernel acting for it. Not Clone: a function
/// acts for the call it was given, while it runs.
pub struct NativeCall {
    kernel: Arc<Kernel>,
    call: Call,
}

impl NativeCall {
    pub(crate) fn new(kernel: Arc<Kernel>, call: Call) -> NativeCall {
        NativeCall { kernel, call }
    }

    /// The tool or recipe that called the function (`team-kit.greet`), if any. A name only:
    /// the project's and packs' tools replace the embedder's by name, so before trusting a
    /// caller more because it is one of yours, ask [`NativeCall::caller_is_embedders`].
    pub fn caller(&self) -> Option<&str> {
        self.call.actor().map(|a| a.name.as_str())
    }

    /// Whether the tool or recipe that called the function is one the embedder gave as text
    /// ([`HostBuilder::tool_source`](crate::HostBuilder::tool_source)), not a project's or
    /// pack's tool that took its name.
    pub fn caller_is_embedders(&self) -> bool {
        self.call.actor().is_some_and(|a| a.is_embedders())
    }

    /// The workspace root (to show, or to tell the embedder's UI which project this is).
    pub fn workspace(&self) -> &Path {
        self.kernel.scope().workspace()
    }

    /// Numbered lines of a text file, as `rein.fs.read`.
    pub fn read(&self, path: &str, opts: ReadOptions) -> Result<ReadOutput, Failure> {
        Ok(self.kernel.read(&self.call, path, opts)?)
    }

    /// A whole text file and its sha256, as `rein.fs.read_text`.
    pub fn read_text(&self, path: &str) -> Result<TextFile, Failure> {
        Ok(self.kernel.read_text(&self.call, path)?)
    }

    /// Writes a file atomically, as `rein.fs.write`: outside the workspace it needs an
    /// approval, home needs a person, and the journal keeps the old content.
    pub fn write(&self, path: &str, content: &[u8], expected_sha256: Option<&str>) -> Result<WriteOutput, Failure> {
        Ok(self.kernel.write(&self.call, path, content, expected_sha256)?)
    }

    /// Replaces one exact, unique occurrence, as `rein.fs.edit`.
    pub fn edit(&self, path: &str, edit: Edit, opts: &EditOptions) -> Result<EditOutput, Failure> {
        Ok(self.kernel.edit(&self.call, path, edit, opts)?)
    }

    /// The entries of a folder, as `rein.fs.list`.
    pub fn list(&self, path: &str, opts: ListOptions) -> Result<ListOutput, Failure> {
        Ok(self.kernel.list(&self.call, path, opts)?)
    }

    /// Whether something exists at `path` (checked like a read), as `rein.fs.exists`.
    pub fn exists(&self, path: &str) -> Result<bool, Failure> {
        Ok(self.kernel.exists(&self.call, path)?)
    }

    /// Runs a toolchain program, as `rein.proc.run`: found by rein, checked by the policy,
    /// within the call's spawn budget. Use it from a function made with
    /// [`NativeFunction::new_async`](super::NativeFunction::new_async).
    pub async fn run(&self, program: &str, args: Vec<String>, opts: RunOptions) -> Result<SpawnOutput, Failure> {
        let mut ignore = |_: crate::kernel::process::spawn::Stream, _: &str| Ok(());
        Ok(self.kernel.run(&self.call, program, args, opts, &mut ignore).await?)
    }
}
