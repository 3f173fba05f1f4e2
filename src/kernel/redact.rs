//! Secrets never leave rein: hap-sign-tool passwords and values the policy marks secret are
//! replaced before a command line reaches a log, a journal, an error or a result.

pub const REDACTED: &str = "***";

/// Flags whose next argument is a secret.
const SECRET_FLAGS: [&str; 4] = ["-keyPwd", "-keystorePwd", "-issuerKeyPwd", "-issuerKeystorePwd"];

pub fn redact_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for arg in args {
        if hide_next {
            out.push(REDACTED.to_string());
            hide_next = false;
            continue;
        }
        hide_next = SECRET_FLAGS.contains(&arg.as_str());
        out.push(arg.clone());
    }
    out
}

/// Removes every secret value from `text` (output of a program that echoed its arguments).
pub fn scrub(text: &str, secrets: &[String]) -> String {
    secrets.iter().filter(|s| s.len() >= 3).fold(text.to_string(), |acc, secret| acc.replace(secret.as_str(), REDACTED))
}

/// The secret values in `args`, for [`scrub`].
pub fn secrets_in(args: &[String]) -> Vec<String> {
    args.windows(2).filter(|w| SECRET_FLAGS.contains(&w[0].as_str())).map(|w| w[1].clone()).collect()
}

/// A command line for people to read, secrets replaced.
pub fn command_line(program: &str, args: &[String]) -> String {
    std::iter::once(program.to_string()).chain(redact_args(args)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_replaced_everywhere() {
        let args: Vec<String> = ["sign-app", "-keyPwd", "s3cret!", "-inFile", "a.hap", "-keystorePwd", "0000001BAD"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            command_line("hap-sign-tool", &args),
            "hap-sign-tool sign-app -keyPwd *** -inFile a.hap -keystorePwd ***"
        );
        let secrets = secrets_in(&args);
        assert_eq!(scrub("bad password s3cret! for 0000001BAD", &secrets), "bad password *** for ***");
    }
}
