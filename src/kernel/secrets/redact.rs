//! Secrets never leave rein: hap-sign-tool passwords are replaced before a command line
//! reaches a log, a journal, an error, a rule or a result, and scrubbed from what the program
//! prints.

use std::sync::{Arc, Mutex};

use super::scrub::{scrub_values, Secrets, REDACTED};
use super::signing::PASSWORD_FLAGS;

/// Every secret some command line in this process holds right now: each program's output is
/// scrubbed of all of them, not only its own (a build running beside a signing could print the
/// signing's passwords, had it found them).
static LIVE: Mutex<Vec<(u64, Vec<String>)>> = Mutex::new(Vec::new());

/// Keeps a command line's secrets in [`LIVE`] while it lives.
#[derive(Debug)]
struct Live(u64);

impl Live {
    fn register(secrets: &[String]) -> Option<Arc<Live>> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        if secrets.is_empty() {
            return None;
        }
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).push((id, secrets.to_vec()));
        Some(Arc::new(Live(id)))
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| *id != self.0);
    }
}

/// A command line with its secrets found once: what may be shown, and what to scrub.
#[derive(Debug, Clone)]
pub struct Redacted {
    /// The arguments with every secret replaced by [`REDACTED`].
    pub args: Vec<String>,
    /// `program args...` for people to read, secrets replaced.
    pub line: String,
    secrets: Vec<String>,
    /// Which arguments are secrets.
    secret_at: Vec<bool>,
    _live: Option<Arc<Live>>,
}

impl Redacted {
    pub fn new(program: &str, args: &[String]) -> Redacted {
        let mut shown = Vec::with_capacity(args.len());
        let mut secrets = Vec::new();
        let mut secret_at = Vec::with_capacity(args.len());
        let mut hide_next = false;
        for arg in args {
            secret_at.push(hide_next);
            if hide_next {
                shown.push(REDACTED.to_string());
                secrets.push(arg.clone());
                hide_next = false;
                continue;
            }
            hide_next = PASSWORD_FLAGS.contains(&arg.as_str());
            shown.push(arg.clone());
        }
        let line = std::iter::once(program).chain(shown.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
        let live = Live::register(&secrets);
        Redacted { args: shown, line, secrets, secret_at, _live: live }
    }

    /// Argument patterns that match exactly this command again, with any value where a secret
    /// was (so a rule never holds a password).
    pub fn rule_args(&self) -> Vec<String> {
        self.args
            .iter()
            .zip(&self.secret_at)
            .map(|(arg, secret)| if *secret { "*".to_string() } else { glob::Pattern::escape(arg) })
            .collect()
    }

    /// Also hides the call's secret values, wherever they stand in the command line.
    pub fn with_secrets(mut self, call_secrets: &Secrets) -> Redacted {
        if call_secrets.is_empty() {
            return self;
        }
        self.line = call_secrets.scrub(&self.line);
        for (arg, secret) in self.args.iter_mut().zip(self.secret_at.iter_mut()) {
            let scrubbed = call_secrets.scrub(arg);
            *secret |= scrubbed != *arg;
            *arg = scrubbed;
        }
        self.secrets.extend(call_secrets.values());
        self._live = Live::register(&self.secrets);
        self
    }

    /// Removes every secret value from `text` (output of a program that echoed its arguments):
    /// this command line's, and every other one live in the process.
    pub fn scrub(&self, text: &str) -> String {
        let live: Vec<String> =
            LIVE.lock().unwrap_or_else(|e| e.into_inner()).iter().flat_map(|(_, values)| values.clone()).collect();
        scrub_values(text, self.secrets.iter().chain(&live))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_replaced_everywhere() {
        let args: Vec<String> = ["sign-app", "-keyPwd", "s3cret!", "-inFile", "a.hap", "-keystorePwd", "0000001BAD"]
            .map(String::from)
            .to_vec();
        let redacted = Redacted::new("hap-sign-tool", &args);
        assert_eq!(redacted.line, "hap-sign-tool sign-app -keyPwd *** -inFile a.hap -keystorePwd ***");
        assert_eq!(redacted.args[2], REDACTED);
        assert_eq!(redacted.scrub("bad password s3cret! for 0000001BAD"), "bad password *** for ***");
        assert_eq!(redacted.rule_args(), ["sign-app", "-keyPwd", "*", "-inFile", "a.hap", "-keystorePwd", "*"]);
    }

    #[test]
    fn another_command_lines_secrets_are_scrubbed_while_it_lives() {
        let signing: Vec<String> = ["sign-app", "-keyPwd", "live-pw-4711"].map(String::from).to_vec();
        let build = Redacted::new("hvigorw", &["assembleHap".to_string()]);
        let live = Redacted::new("hap-sign-tool", &signing);
        assert_eq!(build.scrub("found live-pw-4711 in /proc"), "found *** in /proc");
        drop(live);
        assert_eq!(build.scrub("found live-pw-4711 in /proc"), "found live-pw-4711 in /proc");
    }

    /// A password that contains the other (`-keyPwd pass -keystorePwd password`) is scrubbed
    /// whole from output, not as `***word`.
    #[test]
    fn a_password_containing_another_is_scrubbed_whole() {
        let args: Vec<String> = ["sign-app", "-keyPwd", "pass", "-keystorePwd", "password"].map(String::from).to_vec();
        let redacted = Redacted::new("hap-sign-tool", &args);
        assert_eq!(redacted.scrub("keystore password was password"), "keystore *** was ***");
    }

    /// Every flag hap-sign-tool takes a password with is hidden: the one list signing reads.
    #[test]
    fn every_password_flag_hides_its_value() {
        for flag in PASSWORD_FLAGS {
            let args: Vec<String> = ["sign-profile", flag, "s3cret"].map(String::from).to_vec();
            assert_eq!(Redacted::new("hap-sign-tool", &args).args[2], REDACTED, "{flag}");
        }
    }
}
