//! The environment a spawned program sees: cleared, then an allow-list. Names that look like
//! credentials never pass unless a person allow-lists them by exact name in home config.

use crate::kernel::KernelError;

/// Variables passed by exact name.
const PASSED: [&str; 7] = ["PATH", "HOME", "LANG", "TMPDIR", "JAVA_HOME", "NODE_HOME", "DEVECO_SDK_HOME"];
/// Variables passed by prefix.
const PASSED_PREFIXES: [&str; 3] = ["LC_", "OHOS_", "HDC_"];
/// Parts of a name that mark a secret (compared case-insensitively).
const SECRET_MARKS: [&str; 4] = ["TOKEN", "SECRET", "PASSWORD", "KEY"];

pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKS.iter().any(|mark| upper.contains(mark))
}

/// Whether `name` may reach a child. `human_allowed` are exact names a person listed in home
/// config.toml (`[spawn] pass_env`); nothing a script says can add to them.
pub fn passes(name: &str, human_allowed: &[String]) -> bool {
    if human_allowed.iter().any(|allowed| allowed == name) {
        return true;
    }
    if looks_secret(name) {
        return false;
    }
    PASSED.contains(&name) || PASSED_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// The child's environment from the parent's, plus variables a script asked for. The script's
/// variables obey the same allow-list, so `LD_PRELOAD` or a credential cannot be smuggled in.
pub fn child_env(
    parent: impl Iterator<Item = (String, String)>,
    requested: &[(String, String)],
    human_allowed: &[String],
) -> Result<Vec<(String, String)>, KernelError> {
    if let Some((name, _)) = requested.iter().find(|(name, _)| !passes(name, human_allowed)) {
        return Err(KernelError::invalid(format!(
            "environment variable {name} may not be passed to a program: only PATH, HOME, LANG, LC_*, TMPDIR, JAVA_HOME, NODE_HOME, DEVECO_SDK_HOME, OHOS_* and HDC_* pass, and never names with TOKEN, SECRET, PASSWORD or KEY unless a person lists them in home config.toml [spawn] pass_env"
        )));
    }
    let mut env: Vec<(String, String)> = parent.filter(|(name, _)| passes(name, human_allowed)).collect();
    for (name, value) in requested {
        env.retain(|(existing, _)| existing != name);
        env.push((name.clone(), value.clone()));
    }
    env.sort();
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> Vec<(String, String)> {
        names.iter().map(|n| (n.to_string(), "v".to_string())).collect()
    }

    #[test]
    fn only_the_allow_list_passes_and_secrets_never_do() {
        let parent = vars(&[
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "TMPDIR",
            "JAVA_HOME",
            "NODE_HOME",
            "DEVECO_SDK_HOME",
            "OHOS_BASE_SDK_HOME",
            "HDC_SERVER_PORT",
            "OHOS_SIGN_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "LD_PRELOAD",
            "SSH_AUTH_SOCK",
            "api_key",
        ]);
        let env = child_env(parent.into_iter(), &[], &[]).unwrap();
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "DEVECO_SDK_HOME",
                "HDC_SERVER_PORT",
                "HOME",
                "JAVA_HOME",
                "LANG",
                "LC_ALL",
                "NODE_HOME",
                "OHOS_BASE_SDK_HOME",
                "PATH",
                "TMPDIR"
            ]
        );
    }

    #[test]
    fn a_person_may_allow_a_secret_by_exact_name() {
        let env =
            child_env(vars(&["OHOS_SIGN_KEY", "GITHUB_TOKEN"]).into_iter(), &[], &["OHOS_SIGN_KEY".into()]).unwrap();
        assert_eq!(env, vars(&["OHOS_SIGN_KEY"]));
    }

    #[test]
    fn scripts_cannot_smuggle_variables_in() {
        assert!(child_env(std::iter::empty(), &vars(&["LD_PRELOAD"]), &[]).is_err());
        assert!(child_env(std::iter::empty(), &vars(&["OHOS_TOKEN"]), &[]).is_err());
        let env = child_env(vars(&["LANG"]).into_iter(), &[("LANG".into(), "C".into())], &[]).unwrap();
        assert_eq!(env, [("LANG".to_string(), "C".to_string())]);
    }
}
