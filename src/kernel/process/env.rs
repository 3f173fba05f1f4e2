//! The environment a spawned program sees: cleared, then an allow-list of rein's own variables.
//! A script may add only plain settings (language, time zone, colour); it can never point a
//! program at another interpreter or library (`PATH`, `*_HOME`, `NODE_*`, `LD_*` …). Names
//! that look like credentials never pass — prefix wildcards included — unless a person lists
//! the exact name in home config.

use crate::kernel::platform::os::Os;
use crate::kernel::KernelError;

/// rein's own variables passed by exact name.
const PASSED: [&str; 4] = ["PATH", "HOME", "LANG", "TMPDIR"];
/// rein's own variables passed by prefix.
const PASSED_PREFIXES: [&str; 1] = ["LC_"];

/// The variables of rein's environment a toolchain's programs need (its profile names them,
/// `toolchain::ToolchainProfile::passed_env`): passed like rein's own, never one that looks
/// secret.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolchainVars {
    /// Passed by exact name.
    pub names: &'static [&'static str],
    /// Passed by prefix.
    pub prefixes: &'static [&'static str],
}
/// What a script may set: exact names, then prefixes.
const SCRIPT_SETTABLE: [&str; 4] = ["LANG", "TZ", "NO_COLOR", "TERM"];
const SCRIPT_SETTABLE_PREFIXES: [&str; 1] = ["LC_"];
/// Parts of a name that mark a secret, in any case and any position.
const SECRET_MARKS: [&str; 9] = ["PASS", "PWD", "SECRET", "TOKEN", "KEY", "CRED", "AUTH", "COOKIE", "SESSION"];
/// The longest value a script may set.
const MAX_VALUE: usize = 4096;

pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKS.iter().any(|mark| upper.contains(mark))
}

/// Whether rein's own variable `name` reaches a child. `human_allowed` are exact names a person
/// listed in home config.toml (`[spawn] pass_env`); nothing a script says can add to them.
pub fn passes(name: &str, human_allowed: &[String], toolchain: &ToolchainVars) -> bool {
    passes_on(Os::current(), name, human_allowed, toolchain)
}

/// What a Windows program needs to start at all (node and java fail without `SystemRoot`;
/// `.bat` files run through `ComSpec`; `PATHEXT` says what is a program; temp and profile
/// folders), passed on Windows only.
const WINDOWS_PASSED: [&str; 15] = [
    "SystemRoot",
    "SystemDrive",
    "windir",
    "ComSpec",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "ProgramFiles",
    "ProgramData",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
];

/// [`passes`] for `os`: Windows names compare without case (its `PATH` is usually `Path`).
fn passes_on(os: Os, name: &str, human_allowed: &[String], toolchain: &ToolchainVars) -> bool {
    let windows = os == Os::Windows;
    let same = |a: &str, b: &str| if windows { a.eq_ignore_ascii_case(b) } else { a == b };
    let starts = |prefix: &str| name.get(..prefix.len()).is_some_and(|head| same(head, prefix));
    if human_allowed.iter().any(|allowed| same(allowed, name)) {
        return true;
    }
    !looks_secret(name)
        && (PASSED.iter().chain(toolchain.names).any(|p| same(p, name))
            || PASSED_PREFIXES.iter().chain(toolchain.prefixes).any(|p| starts(p))
            || (windows && WINDOWS_PASSED.iter().any(|p| same(p, name))))
}

/// Whether a script may set `name` for a program.
pub fn script_may_set(name: &str) -> bool {
    !looks_secret(name)
        && (SCRIPT_SETTABLE.contains(&name) || SCRIPT_SETTABLE_PREFIXES.iter().any(|p| name.starts_with(p)))
}

/// The child's environment: rein's variables that pass, then those a script asked for.
pub fn child_env(
    parent: impl Iterator<Item = (String, String)>,
    requested: &[(String, String)],
    human_allowed: &[String],
    toolchain: &ToolchainVars,
) -> Result<Vec<(String, String)>, KernelError> {
    if let Some((name, _)) = requested.iter().find(|(name, _)| !script_may_set(name)) {
        return Err(KernelError::invalid(format!(
            "a script may not set {name} for a program: only LANG, LC_*, TZ, NO_COLOR and TERM; the toolchain's paths and any credential come from rein's own environment and home config.toml"
        )));
    }
    if let Some((name, _)) = requested.iter().find(|(_, value)| value.len() > MAX_VALUE || value.contains('\0')) {
        return Err(KernelError::invalid(format!("the value of {name} is too long or holds a NUL byte")));
    }
    let mut env: Vec<(String, String)> = parent.filter(|(name, _)| passes(name, human_allowed, toolchain)).collect();
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

    /// A toolchain's variables, as the HarmonyOS profile names them.
    const TOOLCHAIN: ToolchainVars =
        ToolchainVars { names: &["JAVA_HOME", "NODE_HOME", "DEVECO_SDK_HOME"], prefixes: &["OHOS_", "HDC_"] };

    #[test]
    fn windows_passes_what_its_programs_need_and_compares_names_without_case() {
        let none: &[String] = &[];
        for name in
            ["Path", "SystemRoot", "SYSTEMROOT", "windir", "ComSpec", "PATHEXT", "TEMP", "LOCALAPPDATA", "ohos_x"]
        {
            assert!(passes_on(Os::Windows, name, none, &TOOLCHAIN), "{name} on Windows");
        }
        for name in ["Path", "SystemRoot", "ComSpec", "APPDATA"] {
            assert!(!passes_on(Os::Linux, name, none, &TOOLCHAIN), "{name} is not rein's on Linux");
            assert!(!passes_on(Os::Macos, name, none, &TOOLCHAIN), "{name} is not rein's on macOS");
        }
        for name in ["GITHUB_TOKEN", "Api_Key", "NODE_OPTIONS", "PYTHONPATH"] {
            assert!(!passes_on(Os::Windows, name, none, &TOOLCHAIN), "{name} never passes");
        }
        assert!(passes_on(Os::Windows, "my_tool_dir", &["MY_TOOL_DIR".to_string()], &TOOLCHAIN));
        assert!(!passes_on(Os::Linux, "my_tool_dir", &["MY_TOOL_DIR".to_string()], &TOOLCHAIN));
    }

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
            "OHOS_SIGN_PWD",
            "HDC_PASSWD",
            "OHOS_CREDENTIALS",
            "OHOS_AUTH",
            "HDC_SESSION_ID",
            "OHOS_cookie",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "LD_PRELOAD",
            "SSH_AUTH_SOCK",
            "api_key",
        ]);
        let env = child_env(parent.into_iter(), &[], &[], &TOOLCHAIN).unwrap();
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
            child_env(vars(&["OHOS_SIGN_KEY", "GITHUB_TOKEN"]).into_iter(), &[], &["OHOS_SIGN_KEY".into()], &TOOLCHAIN)
                .unwrap();
        assert_eq!(env, vars(&["OHOS_SIGN_KEY"]));
    }

    #[test]
    fn scripts_set_plain_settings_only() {
        for name in [
            "PATH",
            "NODE_HOME",
            "JAVA_HOME",
            "DEVECO_SDK_HOME",
            "NODE_OPTIONS",
            "NODE_PATH",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "GIT_SSH_COMMAND",
            "GIT_CONFIG_GLOBAL",
            "PYTHONPATH",
            "HOME",
            "TMPDIR",
            "OHOS_TOKEN",
            "OHOS_BASE_SDK_HOME",
            "HDC_SERVER_PORT",
            "LC_SECRET",
            "BASH_ENV",
            "ENV",
        ] {
            assert!(child_env(std::iter::empty(), &vars(&[name]), &[], &TOOLCHAIN).is_err(), "{name}");
        }
        let env = child_env(vars(&["LANG"]).into_iter(), &[("LANG".into(), "C".into())], &[], &TOOLCHAIN).unwrap();
        assert_eq!(env, [("LANG".to_string(), "C".to_string())]);
        assert!(child_env(std::iter::empty(), &vars(&["TZ", "LC_ALL", "NO_COLOR"]), &[], &TOOLCHAIN).is_ok());
    }
}
