//! What cannot be legitimate, refused before anyone is asked: a control character (C0, DEL,
//! C1 — Unicode's Cc) in an argument of a toolchain program, or in a value or key of the
//! project's policy files. No hvigorw, hdc, ohpm, hap-sign-tool or git command needs one, nor
//! does any setting of rein.toml or rein.lock; and before a person a control character is what
//! paints over the screen (an alias holding `ESC [2J`, a deny rule holding `ESC M` and a
//! carriage return). A command holding one is refused with `INVALID_ARGS` naming the argument,
//! a policy file with `INVALID_CONFIG` naming the key. Programs a person added under
//! `[programs]` are theirs: their arguments are only ever shown escaped.

/// An argument holding a control character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlInArgument {
    /// How people name the argument: `-keyAlias` for a flag's value, else its position.
    pub argument: String,
    /// Its position among the arguments, from 1.
    pub position: usize,
    /// The first control character, escaped.
    pub shown: String,
}

/// The first argument holding a control character, if any; none of a program a person added
/// themselves (`persons_own`: its arguments are theirs, only ever shown escaped).
pub fn control_in(persons_own: bool, args: &[String]) -> Option<ControlInArgument> {
    if persons_own {
        return None;
    }
    let (index, arg) = args.iter().enumerate().find(|(_, arg)| arg.chars().any(char::is_control))?;
    let control = arg.chars().find(|c| c.is_control()).unwrap_or_default();
    let flag = index.checked_sub(1).map(|i| args[i].as_str()).filter(|prev| is_flag(prev) && !is_flag(arg));
    let argument = match flag {
        Some(flag) => format!("the value of {flag}"),
        None => format!("argument {}", index + 1),
    };
    Some(ControlInArgument { argument, position: index + 1, shown: crate::visible::line(&control.to_string()).into() })
}

/// The first key or value in `value` holding a control character: where (`deny[1].args[2]`,
/// arrays counted from 1) and the character, escaped.
pub fn control_in_toml(value: &toml::Value) -> Option<(String, String)> {
    let shown =
        |text: &str| text.chars().find(|c| c.is_control()).map(|c| crate::visible::line(&c.to_string()).into_owned());
    match value {
        toml::Value::String(text) => shown(text).map(|c| (String::new(), c)),
        toml::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| control_in_toml(item).map(|(key, c)| (format!("[{}]{}", i + 1, dotted(&key)), c))),
        toml::Value::Table(table) => table.iter().find_map(|(name, item)| {
            let name_shown = crate::visible::line(name).into_owned();
            match shown(name) {
                Some(c) => Some((name_shown, c)),
                None => control_in_toml(item).map(|(key, c)| (format!("{name_shown}{}", dotted(&key)), c)),
            }
        }),
        _ => None,
    }
}

/// Why the text of a policy file (rein.toml, rein.lock) cannot be used, when a key or value
/// holds a control character; `None` when none does (or the text is no TOML at all: parsing
/// says so).
pub fn policy_file_problem(text: &str) -> Option<String> {
    let (key, shown) = control_in_toml(&toml::from_str(text).ok()?)?;
    Some(format!(
        "{key} holds a control character ({shown}), which no setting needs and which would act on the screen of the person reviewing the file instead of showing; remove it"
    ))
}

/// `key` as it follows its parent: `.name`, or `[n]` as it is.
fn dotted(key: &str) -> String {
    if key.is_empty() || key.starts_with('[') {
        key.to_string()
    } else {
        format!(".{key}")
    }
}

fn is_flag(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-') && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_control_character_in_any_argument_is_named() {
        let sign = args(&["sign-app", "-keyAlias", "\u{1b}[2J\u{1b}c", "-outFile", "/home/me/.bashrc"]);
        let found = control_in(false, &sign).unwrap();
        assert_eq!(found.argument, "the value of -keyAlias");
        assert_eq!((found.position, found.shown.as_str()), (3, "\\u{1b}"));
        let path = args(&["install", "-r", "a\rb.bin"]);
        assert_eq!(control_in(false, &path).unwrap().argument, "the value of -r");
        let first = args(&["file", "send", "x\u{85}", "/data/local/tmp/x"]);
        assert_eq!(control_in(false, &first).unwrap().argument, "argument 3");
        assert_eq!(control_in(false, &args(&["-p", "product=a\tb"])).unwrap().shown, "\\t");
    }

    #[test]
    fn a_control_character_in_a_policy_file_is_found_by_its_key() {
        let at = |text: &str| control_in_toml(&toml::from_str(text).unwrap());
        let deny = "[[deny]]\nprogram = \"tool\"\nargs = [\"uninstall\", \"x\\u001bM\\r\"]\n";
        assert_eq!(at(deny), Some(("deny[1].args[2]".into(), "\\u{1b}".into())));
        assert_eq!(at("[packs]\n\"kit\\u0007\" = \"../kit\"\n"), Some(("packs.kit\\u{7}".into(), "\\u{7}".into())));
        assert_eq!(
            at("[[pack]]\nname = \"a\"\nsource = \"x\\u0085\"\n"),
            Some(("pack[1].source".into(), "\\u{85}".into()))
        );
        assert_eq!(
            at("[overrides]\nread_file = \"kit.read\u{202e}\"\n"),
            None,
            "format characters are shown escaped, not refused"
        );
    }

    #[test]
    fn plain_arguments_and_a_persons_own_programs_pass() {
        assert_eq!(control_in(false, &args(&["shell", "date", "+%m-%d %H:%M:%S"])), None);
        assert_eq!(control_in(false, &args(&["sign-app", "-keyAlias", "签名\u{202e}"])), None);
        assert_eq!(control_in(true, &args(&["a\nb"])), None);
    }
}
