//! The per-call context. Whoever starts a call (the host for a tool call, the recipe engine for
//! a step) makes a [`Call`] and every kernel operation takes it: who is acting (the tool or
//! recipe, its pack and the pack's declared permissions), the spawn budget, the capture of
//! what the call journals (a recipe step's rollback), who hears its events (see `events`),
//! the session's read ledger, and the token that cancels it (an MCP client's cancel).
//!
//! A nested call (`rein.tool`) is a child: it adds an actor and shares everything else with
//! its parent. Nothing here is shared between calls that did not derive from each other, so
//! concurrent calls (parallel branches, another generation after a reload) cannot cross wires.

use std::collections::HashMap;
use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use std::path::{Path, PathBuf};

use super::events::{CallId, EventKind, Listener, Listeners};
pub use tokio_util::sync::CancellationToken;

use super::entry::Entry;
pub use super::origin::Origin;
pub use super::policy::packs::PackGrant;
use super::policy::{Approver, Bound, Restriction};
use super::secrets::Secrets;

/// One tool or recipe in the chain of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// As it is called: `read_file`, `team-kit.greet`, `sign-install-launch`.
    pub name: String,
    /// The pack it comes from (also when a project's `[overrides]` serves it under another
    /// name): its permissions bound everything the call does.
    pub pack: Option<Arc<PackGrant>>,
    /// Whose code it is: a project or pack tool may take the name of rein's own or the
    /// embedder's, so only this says whose code is acting. An actor made without a file is
    /// the least trusted kind, the project's.
    origin: Origin,
    /// The file that defines it, as `rein tools` names files (`tools/x.lua`,
    /// `<built-in>/tools/x.lua`, `team-kit/tools/x.lua`), when it is code.
    file: Option<Arc<str>>,
}

impl Actor {
    pub fn new(name: impl Into<String>, pack: Option<Arc<PackGrant>>) -> Actor {
        Actor { name: name.into(), pack, origin: Origin::Project, file: None }
    }

    /// The same actor, as the code of `file`, of layer `origin`.
    pub(crate) fn of_file(mut self, origin: Origin, file: &str) -> Actor {
        self.origin = origin;
        self.file = Some(Arc::from(file));
        self
    }

    /// Whether the embedding program gave this tool or recipe (`HostBuilder::tool_source`).
    pub fn is_embedders(&self) -> bool {
        self.origin == Origin::Embedder
    }

    /// Whether this is rein's own code or the embedding program's (a built-in or embedder's
    /// tool or recipe): the tools it calls by name are theirs too, whatever a project or pack
    /// defines under those names.
    pub fn is_reins_own(&self) -> bool {
        self.origin.is_reins_own()
    }

    /// Whose code it is.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The file that defines it, when it is code.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }
}

/// What one session has read (or written): path → sha256 (the checks are `files::ledger`'s).
#[derive(Debug, Default)]
pub struct ReadLedger {
    seen: Mutex<HashMap<PathBuf, String>>,
}

impl ReadLedger {
    pub fn new() -> ReadLedger {
        ReadLedger::default()
    }

    /// The sha256 the session last knew `real` by.
    pub(crate) fn seen(&self, real: &Path) -> Option<String> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).get(real).cloned()
    }

    /// The session now knows `real` as having `sha256`.
    pub(crate) fn note(&self, real: &Path, sha256: &str) {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(real.to_path_buf(), sha256.to_string());
    }
}

/// The leases a call tree holds; dropping the last clone of the tree releases them.
#[derive(Debug, Default)]
pub struct Leases {
    held: Mutex<Vec<(String, Vec<File>)>>,
}

impl Leases {
    pub(crate) fn holds(&self, key: &str) -> bool {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|(k, _)| k == key)
    }

    pub(crate) fn keep(&self, key: String, files: Vec<File>) {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).push((key, files));
    }
}

/// The names a call tree reserved in the transit folder (`harmony::received`, which gives them
/// meaning): for each, whether its hdc received it yet.
#[derive(Debug, Default)]
pub(crate) struct Receipts {
    names: Mutex<HashMap<String, bool>>,
}

impl Receipts {
    /// None: not reserved (or no longer); Some(received).
    pub(crate) fn get(&self, name: &str) -> Option<bool> {
        self.names.lock().unwrap_or_else(|e| e.into_inner()).get(name).copied()
    }

    /// Records `name` as reserved (`Some(false)`), received (`Some(true)`) or gone (None).
    pub(crate) fn set(&self, name: &str, received: Option<bool>) {
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        match received {
            Some(received) => names.insert(name.to_string(), received),
            None => names.remove(name),
        };
    }
}

/// The context of one call: who is acting, the spawn budget, who hears its events, the
/// session's read ledger, and the token that cancels it. [`Host::new_call`](crate::Host::new_call) makes one
/// for the host's session; pass it to [`Host::call_with`](crate::Host::call_with).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let workspace = tempfile::tempdir()?;
/// # let home = tempfile::tempdir()?;
/// # let host = rein::Host::builder().workspace(workspace.path()).home(home.path()).build()?;
/// # let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// # runtime.block_on(async {
/// let shown: rein::Listener = std::sync::Arc::new(|event: &rein::Event| eprintln!("{event:?}"));
/// let cancel = rein::CancellationToken::new();
/// let call = host.new_call().with_listener(shown).with_spawn_budget(Some(3)).with_cancel(cancel);
/// let listed = host.call_with(call, "list_dir", serde_json::json!({"path": "."})).await?;
/// # let _ = listed;
/// # Ok::<(), rein::Failure>(())
/// # })?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Call {
    /// Outermost first.
    actors: Vec<Actor>,
    spawns: Option<Arc<AtomicU64>>,
    capture: Option<Arc<Mutex<Vec<Entry>>>>,
    /// Who hears what this call and its children do, and the call's id.
    listeners: Listeners,
    reads: Option<Arc<ReadLedger>>,
    /// Cancelled when whoever started the call gives up on it; shared by the whole tree, so a
    /// nested tool stops with its caller. Checked where work cannot simply be dropped (a Lua
    /// script spinning in the VM checks it with its budget).
    cancel: Option<CancellationToken>,
    /// Shared by the whole tree of calls: a secret one tool received stays out of what its
    /// callers show too.
    secrets: Arc<Secrets>,
    /// Who answers this call's questions instead of the host's approver (an MCP request asks
    /// the person behind its own client), for the whole tree.
    approver: Option<Arc<dyn Approver>>,
    /// The devices the tree holds (`lease`): taken by the first program that changes one,
    /// released when the last call of the tree is gone.
    leases: Arc<Leases>,
    /// The names the tree reserved in the transit folder (`harmony::received`): only its own hdc
    /// receives into them, and only it takes them.
    receipts: Arc<Receipts>,
    /// What a tool acting in this call (or one that called it) declared it does not do: the
    /// kernel holds every file access and program of the call to it (`policy::annotated`).
    bound: Option<Arc<Bound>>,
    /// Fallbacks a yes in this tree already covers: the same launch in the form an older
    /// program understands (`aa start` after `aa start -W`), each once, with who said yes.
    fallbacks: Arc<Mutex<Vec<Fallback>>>,
}

/// A command a yes given for another covers, once.
#[derive(Debug, Clone)]
struct Fallback {
    program: String,
    args: Vec<String>,
    by: super::policy::DecidedBy,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.actors.iter().map(|a| a.name.as_str()).collect();
        f.debug_struct("Call")
            .field("id", &self.listeners.id)
            .field("actors", &names)
            .field("spawns_left", &self.spawns.as_ref().map(|s| s.load(Ordering::Relaxed)))
            .field("capturing", &self.capture.is_some())
            .field("read_before_edit", &self.reads.is_some())
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// The journal entries a call recorded while it was being captured.
pub struct Captured(Arc<Mutex<Vec<Entry>>>);

impl Captured {
    /// Everything recorded so far, in order; the capture starts empty again.
    pub fn take(&self) -> Vec<Entry> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Call {
    /// A call with nobody acting yet, no budget, no capture, no listener, no read ledger and no
    /// cancel.
    pub fn new() -> Call {
        Call::default()
    }

    /// Existing files may be changed only after a read recorded in `ledger`, and only while
    /// unchanged since (NOT_READ, STALE_FILE). Reads and writes of this call are recorded.
    pub(crate) fn with_read_ledger(mut self, ledger: Arc<ReadLedger>) -> Call {
        self.reads = Some(ledger);
        self
    }

    /// `listener` hears the events of this call and of every call derived from it (nested
    /// tools, recipe steps). The first listener gives the call its id.
    pub fn with_listener(mut self, listener: Listener) -> Call {
        self.listeners.id.get_or_insert_with(CallId::next);
        self.listeners.list.push(listener);
        self
    }

    /// Which call this is, once it has a listener (events name it).
    pub fn id(&self) -> Option<CallId> {
        self.listeners.id
    }

    /// The call (and everything derived from it) stops once `token` is cancelled.
    pub fn with_cancel(mut self, token: CancellationToken) -> Call {
        self.cancel = Some(token);
        self
    }

    /// Whether whoever started the call has cancelled it.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancellationToken::is_cancelled)
    }

    /// The token that cancels this call, if it can be cancelled.
    pub fn cancel_token(&self) -> Option<&CancellationToken> {
        self.cancel.as_ref()
    }

    /// The questions of this call and of every call derived from it go to `approver` instead
    /// of the host's (a server with a client per request: each call asks its own person).
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Call {
        self.approver = Some(approver);
        self
    }

    /// Who answers this call's questions, when not the host's approver.
    pub(crate) fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.approver.as_ref()
    }

    /// At most `spawns` programs for this call and everything derived from it (None: no limit).
    pub fn with_spawn_budget(mut self, spawns: Option<u64>) -> Call {
        self.spawns = spawns.map(|n| Arc::new(AtomicU64::new(n)));
        self
    }

    /// A child whose journal entries are also kept for the caller (a recipe step's rollback).
    pub(crate) fn capturing(&self) -> (Call, Captured) {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let mut child = self.clone();
        child.capture = Some(buffer.clone());
        (child, Captured(buffer))
    }

    /// A child in which `actor` acts (a tool called by a tool, a recipe running its steps).
    pub(crate) fn acting_as(&self, actor: Actor) -> Call {
        let mut child = self.clone();
        child.actors.push(actor);
        child
    }

    /// The same call held to `restriction`, which `tool` declared, unless it is held to a
    /// stricter one already (a tool called by a read-only tool stays read-only).
    pub(crate) fn bound_by(mut self, restriction: Restriction, tool: &str) -> Call {
        if self.bound.as_ref().is_none_or(|held| held.restriction < restriction) {
            self.bound = Some(Arc::new(Bound { restriction, tool: tool.to_string() }));
        }
        self
    }

    /// The same call, held to no tool's annotations: for what rein itself does in it (a failed
    /// step's rollback puts back only what the step changed).
    pub(crate) fn reins_own(&self) -> Call {
        let mut own = self.clone();
        own.bound = None;
        own
    }

    /// What the call is held to, and which tool declared it.
    pub(crate) fn bound(&self) -> Option<&Bound> {
        self.bound.as_deref()
    }

    /// The innermost actor.
    pub(crate) fn actor(&self) -> Option<&Actor> {
        self.actors.last()
    }

    /// How many tools and recipes are acting, nested.
    pub(crate) fn depth(&self) -> usize {
        self.actors.len()
    }

    /// Every pack acting anywhere in the chain, outermost first, each once.
    pub(crate) fn packs(&self) -> Vec<&PackGrant> {
        let mut packs: Vec<&PackGrant> = Vec::new();
        for grant in self.actors.iter().filter_map(|a| a.pack.as_deref()) {
            if !packs.iter().any(|p| p.name == grant.name) {
                packs.push(grant);
            }
        }
        packs
    }

    /// Tells this call's listeners that what `kind` makes happened, as the innermost actor.
    /// `kind` is made only when someone listens (most calls have nobody listening).
    pub(crate) fn emit(&self, kind: impl FnOnce() -> EventKind) {
        if !self.listeners.list.is_empty() {
            self.listeners.tell(self.actor().map(|a| a.name.as_str()), kind());
        }
    }

    /// Takes one program from the budget; false when it is spent.
    pub(crate) fn take_spawn(&self) -> bool {
        match &self.spawns {
            None => true,
            Some(left) => left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok(),
        }
    }

    pub(crate) fn capture(&self, entry: &Entry) {
        if let Some(buffer) = &self.capture {
            buffer.lock().unwrap_or_else(|e| e.into_inner()).push(entry.clone());
        }
    }

    pub(crate) fn receipts(&self) -> &Receipts {
        &self.receipts
    }

    /// After a yes for a command, its fallback (`program args`) is covered by the same yes,
    /// once, in this tree.
    pub(crate) fn cover_fallback(&self, program: &str, args: Vec<String>, by: super::policy::DecidedBy) {
        let mut fallbacks = self.fallbacks.lock().unwrap_or_else(|e| e.into_inner());
        fallbacks.push(Fallback { program: program.to_string(), args, by });
    }

    /// Who already said yes to `program args` as another command's fallback; taken, so it
    /// covers one run.
    pub(crate) fn take_covered(&self, program: &str, args: &[String]) -> Option<super::policy::DecidedBy> {
        let mut fallbacks = self.fallbacks.lock().unwrap_or_else(|e| e.into_inner());
        let at = fallbacks.iter().position(|f| f.program == program && f.args == args)?;
        Some(fallbacks.remove(at).by)
    }

    pub(crate) fn reads(&self) -> Option<&ReadLedger> {
        self.reads.as_deref()
    }

    /// The values this call tree must never show (add the arguments tools declare secret).
    pub(crate) fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    pub(crate) fn leases(&self) -> &Leases {
        &self.leases
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::entry::Action;

    fn grant(name: &str) -> Option<Arc<PackGrant>> {
        Some(Arc::new(PackGrant::new(name, &[])))
    }

    #[test]
    fn children_share_the_budget_and_the_capture_but_not_their_actors() {
        let (step, captured) = Call::new().with_spawn_budget(Some(1)).capturing();
        let a = step.acting_as(Actor::new("a", grant("kit")));
        let b = step.acting_as(Actor::new("b", None));
        assert_eq!(a.packs().len(), 1);
        assert!(b.packs().is_empty(), "a sibling does not see another branch's pack");
        assert!(a.take_spawn());
        assert!(!b.take_spawn(), "one budget for the whole step");
        b.capture(&Entry::new(Action::Read, "x"));
        assert_eq!(captured.take().len(), 1);
        assert!(Call::new().take_spawn(), "an unrelated call has its own budget");
    }

    #[test]
    fn a_cancel_reaches_every_call_derived_from_the_cancelled_one() {
        let token = CancellationToken::new();
        let call = Call::new().with_cancel(token.clone());
        let (step, _captured) = call.capturing();
        let nested = step.acting_as(Actor::new("a", None));
        assert!(!nested.is_cancelled());
        token.cancel();
        assert!(call.is_cancelled() && step.is_cancelled() && nested.is_cancelled());
        assert!(!Call::new().is_cancelled(), "a call without a token is never cancelled");
    }

    #[test]
    fn a_restriction_only_tightens_down_the_chain() {
        let read_only = Call::new().bound_by(Restriction::ReadOnly, "peek");
        let nested = read_only.acting_as(Actor::new("write_file", None)).bound_by(Restriction::NotDestructive, "add");
        assert_eq!(nested.bound().map(|b| (b.restriction, b.tool.as_str())), Some((Restriction::ReadOnly, "peek")));
        let adds = Call::new().bound_by(Restriction::NotDestructive, "add").bound_by(Restriction::ReadOnly, "peek");
        assert_eq!(adds.bound().map(|b| b.restriction), Some(Restriction::ReadOnly));
        assert!(Call::new().bound().is_none());
    }

    #[test]
    fn a_pack_acting_twice_in_the_chain_is_listed_once() {
        let call =
            Call::new().acting_as(Actor::new("kit.a", grant("kit"))).acting_as(Actor::new("kit.b", grant("kit")));
        assert_eq!(call.packs().len(), 1);
        assert_eq!(call.depth(), 2);
        assert_eq!(call.actor().unwrap().name, "kit.b");
    }
}
