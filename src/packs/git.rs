//! Packs from git repositories. The pack installer runs git itself — never through the
//! script-facing `Kernel::run` — with an invocation that nothing outside rein can steer:
//!
//! - no system or global git config (`GIT_CONFIG_NOSYSTEM=1`, `GIT_CONFIG_GLOBAL=/dev/null`),
//!   an environment cleared down to what git and ssh need to reach a remote;
//! - `-c core.hooksPath=/dev/null -c core.fsmonitor=false`, so no hook or fsmonitor command
//!   runs, whatever a repository's config says;
//! - a protocol allow-list (https, ssh, local files): `ext::`, plain `git://` and `http://`
//!   are refused, by rein before git runs and by git itself;
//! - no option from the caller: a source or rev that could be read as an option is refused,
//!   and positional arguments follow `--` / `--end-of-options`;
//! - the clone goes only into rein's own folder (`<home>/packs/.fetch/`), and git runs only
//!   there, never in the source repository or the workspace.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Code, Failure};
use crate::harmony::programs::Program;
use crate::kernel::process::spawn::{self, SpawnRequest};
use crate::kernel::scope::protected::GIT_DIR;
use crate::kernel::Kernel;
use crate::visible::shown_path;

/// Config every git command of the installer runs with.
const HARDENED: [&str; 14] = [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.https.allow=always",
    "-c",
    "protocol.ssh.allow=always",
    "-c",
    "protocol.file.allow=always",
    "-c",
    "submodule.recurse=false",
];
/// Variables passed to git from rein's environment (what ssh and proxies need).
const PASSED_ENV: [&str; 9] =
    ["PATH", "HOME", "SSH_AUTH_SOCK", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"];
const GIT_DEADLINE: Duration = Duration::from_secs(300);

/// A source as given to `rein pack add`: a folder, or a git repository with an optional `@rev`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub location: String,
    pub rev: Option<String>,
}

impl Source {
    pub fn parse(text: &str) -> Source {
        match text.rsplit_once('@') {
            Some((base, rev)) if !base.is_empty() && base != "git" && !rev.contains('/') && !rev.contains(':') => {
                Source { location: base.to_string(), rev: Some(rev.to_string()) }
            }
            _ => Source { location: text.to_string(), rev: None },
        }
    }

    /// A remote git repository: an https or ssh URL, or an scp-like `user@host:path`.
    pub fn is_remote(&self) -> bool {
        let l = &self.location;
        l.contains("://") || scp_like(l)
    }

    /// A git repository: remote, or a local folder holding `.git`.
    pub fn is_git(&self) -> bool {
        self.is_remote() || Path::new(&self.location).join(GIT_DIR).exists()
    }

    /// Refuses what could steer git: option-like text, transports other than https, ssh and
    /// local files, and revs that are not plain names.
    pub fn check(&self) -> Result<(), Failure> {
        let l = &self.location;
        let refuse = |why: String| Err(Failure::new(Code::InvalidArgs, why));
        if l.starts_with('-') || l.chars().any(char::is_control) {
            return refuse(format!("pack source {l:?} is not a path or URL rein accepts"));
        }
        if l.contains("::") {
            return refuse(format!(
                "pack source {l:?} names a git transport helper; use an https:// or ssh:// URL, or a local folder"
            ));
        }
        if let Some((scheme, _)) = l.split_once("://") {
            if !["https", "ssh", "file"].contains(&scheme) {
                return refuse(format!(
                    "pack source {l:?} uses {scheme}://; rein fetches packs only over https://, ssh:// or from a local folder"
                ));
            }
            let authority = l[scheme.len() + 3..].split('/').next().unwrap_or_default();
            if authority.split('@').any(|part| part.starts_with('-')) {
                return refuse(format!("pack source {l:?} has a host that reads as an option"));
            }
        } else if scp_like(l) && (l.contains("@-") || l.split(':').next().is_some_and(|h| h.starts_with('-'))) {
            return refuse(format!("pack source {l:?} has a host that reads as an option"));
        }
        if let Some(rev) = &self.rev {
            if !valid_rev(rev) {
                return refuse(format!(
                    "rev {rev:?} is not a plain tag, branch or commit name (letters, digits, . _ -, not starting with - or .)"
                ));
            }
        }
        Ok(())
    }

    pub fn display(&self) -> String {
        match &self.rev {
            Some(rev) => format!("{}@{rev}", self.location),
            None => self.location.clone(),
        }
    }
}

/// `user@host:path` (not a URL, not a Windows drive, not a local path that exists).
fn scp_like(l: &str) -> bool {
    !l.contains("://")
        && l.split_once(':').is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
        && !Path::new(l).exists()
}

fn valid_rev(rev: &str) -> bool {
    !rev.is_empty()
        && rev.len() <= 200
        && !rev.starts_with(['-', '.'])
        && !rev.contains("..")
        && rev.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// A full commit id (sha-1 or sha-256).
pub fn is_commit_id(text: &str) -> bool {
    (text.len() == 40 || text.len() == 64) && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// A checkout of the pack, and the full commit id it is at. Removed when dropped.
pub struct Fetched {
    pub dir: PathBuf,
    pub commit: String,
    _scratch: tempfile::TempDir,
}

/// What the installer fetches: the source's rev (default branch when None), or exactly a
/// locked commit.
pub enum Wanted<'a> {
    Rev(Option<&'a str>),
    Commit(&'a str),
}

/// Clones `source` into `<home>/packs/.fetch/` and checks out what is `wanted`.
pub async fn fetch(kernel: &Kernel, source: &Source, wanted: Wanted<'_>) -> Result<Fetched, Failure> {
    source.check()?;
    if let Wanted::Commit(commit) = wanted {
        if !is_commit_id(commit) {
            return Err(Failure::new(Code::InvalidConfig, format!("rein.lock: {commit:?} is not a full commit id")));
        }
    }
    let git = git_program(kernel)?;
    let parent = kernel.scope().home().join("packs/.fetch");
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    let scratch = tempfile::Builder::new().prefix("clone-").tempdir_in(&parent).map_err(|e| io(&parent, e))?;
    let dir = scratch.path().join("repo");
    let url = if source.is_remote() {
        source.location.clone()
    } else {
        let local = std::fs::canonicalize(&source.location)
            .map_err(|e| Failure::new(Code::InvalidArgs, format!("pack source {}: {e}", source.location)))?;
        local.display().to_string()
    };
    let dest = dir.display().to_string();
    run(&git, scratch.path(), &["clone", "--quiet", "--no-checkout", "--no-local", "--", &url, &dest]).await?;
    let commit = match wanted {
        Wanted::Commit(commit) => {
            let found = format!("{commit}^{{commit}}");
            run(&git, &dir, &["rev-parse", "--verify", "--quiet", "--end-of-options", &found]).await.map_err(|_| {
                Failure::new(
                    Code::PackTampered,
                    format!("{} no longer has the locked commit {commit}; ask whoever moved it, or run `rein pack update` to lock another", source.location),
                )
            })?
        }
        Wanted::Rev(rev) => resolve_rev(&git, &dir, rev).await?,
    };
    let commit = commit.trim().to_string();
    run(&git, &dir, &["checkout", "--quiet", "--detach", &commit]).await?;
    let head = run(&git, &dir, &["rev-parse", "--verify", "HEAD"]).await?;
    if head.trim() != commit {
        return Err(Failure::new(Code::PackTampered, format!("checked out {} instead of {commit}", head.trim())));
    }
    Ok(Fetched { dir, commit, _scratch: scratch })
}

/// The commit `rev` names: a tag or local name, else the remote's branch of that name.
async fn resolve_rev(git: &Path, dir: &Path, rev: Option<&str>) -> Result<String, Failure> {
    let Some(rev) = rev else { return run(git, dir, &["rev-parse", "--verify", "HEAD^{commit}"]).await };
    for candidate in [format!("{rev}^{{commit}}"), format!("refs/remotes/origin/{rev}^{{commit}}")] {
        if let Ok(commit) = run(git, dir, &["rev-parse", "--verify", "--quiet", "--end-of-options", &candidate]).await {
            return Ok(commit);
        }
    }
    Err(Failure::new(Code::InvalidArgs, format!("the repository has no tag, branch or commit {rev:?}")))
}

fn git_program(kernel: &Kernel) -> Result<PathBuf, Failure> {
    match kernel.toolchain().get(&Program::Git) {
        Some(Ok(located)) => Ok(located.path.clone()),
        Some(Err(missing)) => Err(Failure::new(
            Code::ToolchainNotFound,
            format!("git was not found ({}); {}", missing.tried.join(", "), missing.fix),
        )),
        None => Err(Failure::new(Code::ToolchainNotFound, "git was not found; install git")),
    }
}

/// Runs git with the hardened invocation in `cwd` (inside rein's fetch folder); its stdout.
async fn run(git: &Path, cwd: &Path, args: &[&str]) -> Result<String, Failure> {
    let request = SpawnRequest {
        program: git.to_path_buf(),
        args: HARDENED.iter().chain(args).map(|a| a.to_string()).collect(),
        cwd: cwd.to_path_buf(),
        env: git_env(std::env::vars()),
        stdin: None,
        timeout: GIT_DEADLINE,
        output_limit: 1024 * 1024,
        restricted: None,
    };
    let shown = format!("git {}", args.join(" "));
    let output = spawn::run(&request, &mut |_, _| Ok(()))
        .await
        .map_err(|e| Failure::new(Code::IoError, format!("{shown}: {e}")))?;
    if output.timed_out {
        return Err(Failure::new(Code::Timeout, format!("{shown} took longer than {} s", GIT_DEADLINE.as_secs())));
    }
    if output.code != Some(0) {
        let said = output.stderr.trim();
        return Err(Failure::new(
            Code::PackFetchFailed,
            format!(
                "{shown} failed: {said}. Check that the pack's source is right and that you can reach it (`git ls-remote` \
                 with the same URL), then run the command again"
            ),
        )
        .with_details(serde_json::json!({"command": shown, "exit_code": output.code, "stderr": said})));
    }
    Ok(output.stdout.trim().to_string())
}

/// The environment git runs with: no config but rein's, no prompts, and only what reaching a
/// remote needs from rein's own environment.
fn git_env(parent: impl Iterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = parent.filter(|(name, _)| PASSED_ENV.contains(&name.as_str())).collect();
    for (name, value) in [
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_ALLOW_PROTOCOL", "https:ssh:file"),
        ("LANG", "C"),
    ] {
        env.push((name.to_string(), value.to_string()));
    }
    env.sort();
    env
}

fn io(path: &Path, e: std::io::Error) -> Failure {
    Failure::new(Code::IoError, format!("{}: {e}", shown_path(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_keep_their_rev_apart() {
        assert_eq!(Source::parse("../kit@v1.2").rev.as_deref(), Some("v1.2"));
        assert_eq!(Source::parse("git@host:team/kit.git").rev, None);
        assert_eq!(Source::parse("git@host:team/kit.git@abc123").rev.as_deref(), Some("abc123"));
        assert_eq!(Source::parse("https://host/team/kit.git").rev, None);
        assert!(Source::parse("https://host/team/kit.git").is_git());
        assert!(Source::parse("git@host:team/kit.git").is_remote());
    }

    #[test]
    fn sources_and_revs_that_could_steer_git_are_refused() {
        for bad in [
            "--upload-pack=touch /tmp/x",
            "-uhttps://x",
            "ext::sh -c touch% /tmp/x",
            "fd::17",
            "http://host/kit.git",
            "git://host/kit.git",
            "ssh://-oProxyCommand=touch/x",
            "-oProxyCommand=x:kit",
            "user@-oProxyCommand=x:kit",
        ] {
            assert!(Source::parse(bad).check().is_err(), "{bad} must be refused");
        }
        for bad_rev in ["--output=/x", "-b", ".hidden", "a..b", "a b"] {
            let source = Source { location: "https://host/kit.git".into(), rev: Some(bad_rev.into()) };
            assert!(source.check().is_err(), "rev {bad_rev} must be refused");
        }
        for good in ["https://host/team/kit.git", "ssh://git@host/kit.git", "git@host:team/kit.git", "../kit"] {
            assert!(Source::parse(good).check().is_ok(), "{good}");
        }
        assert!(Source::parse("https://host/kit.git@v1.2.0").check().is_ok());
    }

    #[test]
    fn git_sees_no_outside_config_and_no_secrets() {
        let parent = [
            ("PATH", "/bin"),
            ("GIT_DIR", "/evil"),
            ("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='x'"),
            ("AWS_SECRET", "s"),
        ];
        let env = git_env(parent.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert!(
            !names.contains(&"GIT_DIR") && !names.contains(&"GIT_CONFIG_PARAMETERS") && !names.contains(&"AWS_SECRET")
        );
        assert!(env.contains(&("GIT_CONFIG_GLOBAL".into(), "/dev/null".into())));
        assert!(env.contains(&("GIT_CONFIG_NOSYSTEM".into(), "1".into())));
    }
}
