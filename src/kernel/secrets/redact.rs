//! Secrets never leave rein: the values of the flags a toolchain profile names secret
//! (`process::toolchain::ToolchainProfile::secret_flags`: hap-sign-tool's passwords) are replaced before a command line
//! reaches a log, a journal, an error, a rule or a result, and scrubbed from what the program
//! prints. A program's output loses its own secrets only: scrubbing it of another program's
//! would tell it, by the `***`, which of its guesses is that program's password (findings/10).
//! No program runs beside one whose command line holds a secret (`process::turns`).

use super::scrub::{scrub_values, Secrets, REDACTED};

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
}

/// `program args…` as a person reads it and a POSIX shell reads it back: each word quoted as
/// it needs ([`visible::shell_word`](crate::visible::shell_word)), so where one argument ends
/// shows (`-S '2026-12-06 07:59:24'`), and nothing in them acts on the screen. A redacted
/// secret (`***`) stays bare.
pub fn command_line(program: &str, args: &[String]) -> String {
    let quote = |word: &str| if word == REDACTED { word.to_string() } else { crate::visible::shell_word(word) };
    std::iter::once(quote(program)).chain(args.iter().map(|a| quote(a))).collect::<Vec<_>>().join(" ")
}

impl Redacted {
    /// `program args`, the value after each of `secret_flags` hidden.
    pub fn new(program: &str, args: &[String], secret_flags: &[&str]) -> Redacted {
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
            hide_next = secret_flags.contains(&arg.as_str());
            shown.push(arg.clone());
        }
        let line = command_line(program, &shown);
        Redacted { args: shown, line, secrets, secret_at }
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
        self
    }

    /// Also scrubs `values` from the program's output (the secret-looking variables a person
    /// passed it); they are in no command line.
    pub fn with_output_secrets(mut self, values: impl IntoIterator<Item = String>) -> Redacted {
        self.secrets.extend(values);
        self
    }

    /// Whether the command line holds a secret: then the program runs alone (`process::turns`).
    pub fn holds_secret(&self) -> bool {
        self.secret_at.iter().any(|s| *s)
    }

    /// Removes this program's secret values from `text` (output of a program that echoed its
    /// arguments), and no other program's.
    pub fn scrub(&self, text: &str) -> String {
        scrub_values(text, self.secrets.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags these cases call secret (a profile names its own).
    const FLAGS: [&str; 2] = ["-keyPwd", "-keystorePwd"];

    #[test]
    fn passwords_are_replaced_everywhere() {
        let args: Vec<String> = ["sign-app", "-keyPwd", "s3cret!", "-inFile", "a.bin", "-keystorePwd", "0000001BAD"]
            .map(String::from)
            .to_vec();
        let redacted = Redacted::new("signer", &args, &FLAGS);
        assert_eq!(redacted.line, "signer sign-app -keyPwd *** -inFile a.bin -keystorePwd ***");
        assert_eq!(redacted.args[2], REDACTED);
        assert_eq!(redacted.scrub("bad password s3cret! for 0000001BAD"), "bad password *** for ***");
        assert_eq!(redacted.rule_args(), ["sign-app", "-keyPwd", "*", "-inFile", "a.bin", "-keystorePwd", "*"]);
    }

    /// findings/10: were a build's output scrubbed of a signing's passwords, the build could
    /// print guesses and learn which one comes back as `***`. A program's output loses only its
    /// own secrets.
    #[test]
    fn a_build_beside_a_signing_learns_nothing_from_the_scrubber() {
        let signing: Vec<String> = ["sign-app", "-keyPwd", "live-pw-4711"].map(String::from).to_vec();
        let build = Redacted::new("builder", &["assemble".to_string()], &FLAGS);
        let live = Redacted::new("signer", &signing, &FLAGS);
        assert_eq!(build.scrub("guess live-pw-4711"), "guess live-pw-4711", "no oracle");
        assert_eq!(live.scrub("bad password live-pw-4711"), "bad password ***");
    }

    /// A password that contains the other (`-keyPwd pass -keystorePwd password`) is scrubbed
    /// whole from output, not as `***word`.
    #[test]
    fn a_password_containing_another_is_scrubbed_whole() {
        let args: Vec<String> = ["sign-app", "-keyPwd", "pass", "-keystorePwd", "password"].map(String::from).to_vec();
        let redacted = Redacted::new("signer", &args, &FLAGS);
        assert_eq!(redacted.scrub("keystore password was password"), "keystore *** was ***");
    }
}
