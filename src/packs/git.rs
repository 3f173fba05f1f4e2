//! Packs from git repositories, fetched with the `git` program through the kernel (local
//! paths are allowed; network fetches need a person's yes) into rein's own `.rein/pack-src/`.

use std::path::PathBuf;

use crate::error::{Code, Failure};
use crate::kernel::{Actor, Call, Kernel, RunOptions};

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

    /// A git repository: a URL, an scp-like address, or a local folder holding `.git`.
    pub fn is_git(&self) -> bool {
        let l = &self.location;
        l.contains("://")
            || l.starts_with("git@")
            || l.ends_with(".git")
            || std::path::Path::new(l).join(".git").exists()
    }

    pub fn display(&self) -> String {
        match &self.rev {
            Some(rev) => format!("{}@{rev}", self.location),
            None => self.location.clone(),
        }
    }
}

/// A checkout of the pack, and the full commit id it is at.
pub struct Fetched {
    pub dir: PathBuf,
    pub commit: String,
}

impl Drop for Fetched {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Clones `source` (at its rev) into `.rein/pack-src/`, as `rein pack` acting for the person
/// who runs it.
pub async fn fetch(kernel: &Kernel, source: &Source) -> Result<Fetched, Failure> {
    let call = Call::new().acting_as(Actor::new("rein pack", None));
    let scratch = kernel.scope().workspace().join(".rein/pack-src");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Failure::new(Code::IoError, format!("{}: {e}", scratch.display())))?;
    let name = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
    );
    let rel = format!(".rein/pack-src/{name}");
    let location = match std::fs::canonicalize(&source.location) {
        Ok(local) => local.display().to_string(),
        Err(_) => source.location.clone(),
    };
    // Removed again on every error path, and by the caller once installed.
    let mut fetched = Fetched { dir: scratch.join(&name), commit: String::new() };
    git(kernel, &call, &["clone", "--quiet", &location, &rel]).await?;
    if let Some(rev) = &source.rev {
        git(kernel, &call, &["-C", &rel, "checkout", "--quiet", rev]).await?;
    }
    fetched.commit = git(kernel, &call, &["-C", &rel, "rev-parse", "HEAD"]).await?.trim().to_string();
    Ok(fetched)
}

async fn git(kernel: &Kernel, call: &Call, args: &[&str]) -> Result<String, Failure> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = kernel
        .run(call, "git", args.clone(), RunOptions::default(), &mut |_, _| Ok(()))
        .await
        .map_err(Failure::from)?;
    if out.code != Some(0) {
        return Err(Failure::new(Code::InvalidArgs, format!("git {} failed: {}", args.join(" "), out.stderr.trim())));
    }
    Ok(out.stdout)
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
    }
}
