//! A person's review of the project's policy files: [`Host::policy_review`] gives the files as
//! they are now next to what a person last approved, with their diffs and digests, and
//! [`Host::approve_policy`] records exactly the texts of that review — never the files as
//! they are by then. A file changed since it was shown refuses the approval (`STALE_FILE`),
//! so the caller shows the review again.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::json;

use super::policy_files;
use super::Host;
use crate::error::{Code, Failure};
use crate::kernel::digest::sha256_hex;
use crate::kernel::edit::diff::unified_diff;
use crate::kernel::scope::protected::{LOCK_FILE, PROJECT_FILE};
use crate::visible;

/// The project's policy files as they wait for a person ([`Host::policy_review`]). Show
/// [`PolicyReview::text`] (or [`PolicyReview::pending`] and each file's diff) to the person,
/// and pass this same value to [`Host::approve_policy`] when they say yes.
///
/// Its contents cannot be changed after it is made: what is approved is what was shown.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyReview {
    workspace: PathBuf,
    pending: Vec<String>,
    files: Vec<ReviewedFile>,
}

/// One policy file in a [`PolicyReview`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewedFile {
    /// `rein.toml` or `rein.lock`.
    pub name: String,
    /// Its text now (None: there is no such file).
    pub current: Option<String>,
    /// The sha256 of `current` (None with it).
    pub sha256: Option<String>,
    /// What a person approved before (empty when they never did).
    pub approved: String,
    /// From `approved` to `current`, as a unified diff; empty when they are equal.
    pub diff: String,
}

impl PolicyReview {
    /// The workspace the files belong to.
    pub fn workspace(&self) -> &std::path::Path {
        &self.workspace
    }

    /// Each change that waits for a person, in words; empty when nothing waits. These hold the
    /// files' own texts: show [`PolicyReview::text`], or pass each through
    /// [`visible::line`](crate::visible::line).
    pub fn pending(&self) -> &[String] {
        &self.pending
    }

    /// rein.toml and rein.lock, as they are now and as a person last approved them.
    pub fn files(&self) -> &[ReviewedFile] {
        &self.files
    }

    /// Whether nothing waits for a person.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// What to show the person before they approve: each change in words, then each file's
    /// diff from what they approved before — everything a screen would act on or hide shown
    /// escaped ([`visible`](crate::visible)), so the person reads what the files hold.
    pub fn text(&self) -> String {
        let pending: Vec<_> = self.pending.iter().map(|change| visible::line(change)).collect();
        let mut text = format!(
            "The project's policy files changed in ways a person has not approved:\n  {}\n",
            pending.join("\n  ")
        );
        for file in self.files.iter().filter(|f| !f.diff.is_empty()) {
            text.push('\n');
            text.push_str(&visible::lines(&file.diff));
        }
        text.push_str(&format!("\nApprove rein.toml and rein.lock of {} as shown?", visible::path(&self.workspace)));
        text
    }
}

impl Host {
    /// The project's rein.toml and rein.lock as a person would review them: what waits for
    /// approval (rein serves the approved versions until then) and each file's diff.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let workspace = tempfile::tempdir()?;
    /// # let home = tempfile::tempdir()?;
    /// // An agent pointed a built-in tool at a pack's.
    /// std::fs::write(workspace.path().join("rein.toml"), "[overrides]\nlist_dir = \"kit.list_dir\"\n")?;
    /// let host = rein::Host::builder().workspace(workspace.path())
    /// #   .home(home.path())
    ///     .build()?;
    /// let review = host.policy_review()?;
    /// assert!(review.pending()[0].contains("[overrides]"));
    /// // Show review.text() to the person; with their yes, exactly what it showed is approved:
    /// host.approve_policy(&review)?;
    /// assert!(host.policy_review()?.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn policy_review(&self) -> Result<PolicyReview, Failure> {
        let (workspace, home) = (self.workspace(), self.kernel.scope().home());
        let current: Vec<Option<String>> = [PROJECT_FILE, LOCK_FILE]
            .iter()
            .map(|name| policy_files::current_text(workspace, name))
            .collect::<Result<_, _>>()?;
        // What waits is worked out from the very texts the review shows.
        let pending = policy_files::settle(workspace, home, current[0].as_deref(), current[1].as_deref())?.pending;
        let mut files = Vec::new();
        for (name, current) in [PROJECT_FILE, LOCK_FILE].into_iter().zip(current) {
            let approved = policy_files::approved_text(workspace, home, name)?.unwrap_or_default();
            let diff = unified_diff(name, approved.as_bytes(), current.as_deref().unwrap_or("").as_bytes());
            let sha256 = current.as_deref().map(|text| sha256_hex(text.as_bytes()));
            files.push(ReviewedFile { name: name.to_string(), current, sha256, approved, diff });
        }
        Ok(PolicyReview { workspace: workspace.to_path_buf(), pending, files })
    }

    /// Records the policy files exactly as `review` showed them as what a person approved;
    /// rein serves them from then on. Call it only with a person's yes to that review, never
    /// on an agent's behalf. A file that changed since the review was made is refused with
    /// `STALE_FILE` and nothing is recorded: show the person a new review.
    pub fn approve_policy(&self, review: &PolicyReview) -> Result<(), Failure> {
        let (workspace, home) = (self.workspace(), self.kernel.scope().home());
        if review.workspace != workspace {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("this review is of {}, not of {}", visible::path(&review.workspace), visible::path(workspace)),
            ));
        }
        for file in &review.files {
            let now = policy_files::current_text(workspace, &file.name)?;
            if now != file.current {
                return Err(changed_since_shown(file, now.as_deref()));
            }
        }
        for file in &review.files {
            policy_files::record(workspace, home, &file.name, file.current.as_deref())?;
        }
        Ok(())
    }
}

fn changed_since_shown(file: &ReviewedFile, now: Option<&str>) -> Failure {
    let actual = now.map(|text| sha256_hex(text.as_bytes()));
    Failure::new(
        Code::StaleFile,
        format!(
            "{} changed after it was shown for approval, so nothing was approved; review it again (`rein approvals policy`)",
            file.name
        ),
    )
    .with_details(json!({"path": file.name, "expected_sha256": file.sha256, "actual_sha256": actual}))
}
