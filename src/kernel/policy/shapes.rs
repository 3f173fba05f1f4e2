//! Command shapes: an allow-list entry is an exact sequence of words and typed values, with an
//! optional set of options at the end (any order, each at most once, some required). A
//! command matches a shape only if every word is accounted for; nothing else is allowed by
//! the table. Shapes also render themselves for the approval table in docs/src/approvals.md.

/// The typed values a toolchain's shapes hold in their variable positions.
pub trait ValueKind: Copy + std::fmt::Debug + PartialEq + 'static {
    /// Whether `value` is one of this kind (a strict pattern).
    fn accepts(self, value: &str) -> bool;
    /// How people read it in a shape: `<name>` (the approval table in docs/src/approvals.md, rendered in tests).
    #[cfg(test)]
    fn placeholder(self) -> &'static str;
}

/// One part of a shape.
#[derive(Debug, Clone, Copy)]
pub enum Part<Kind: 'static> {
    /// This exact word.
    Word(&'static str),
    /// One value of this kind.
    Value(Kind),
    /// One or more values of this kind (the rest of the words).
    Values(Kind),
    /// The rest of the words: these options in any order, each at most once.
    Options(&'static [Opt<Kind>]),
}

/// An option of [`Part::Options`].
#[derive(Debug, Clone, Copy)]
pub struct Opt<Kind> {
    /// One word (`-b`), or two (`-s class`: a `-s <key> <value>` option).
    pub flag: &'static str,
    /// The kind of the value that follows it, if it takes one.
    pub value: Option<Kind>,
    pub required: bool,
}

/// What a matching command may do without a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Ask,
}

/// What a matching command does to the workspace, the device or anything else, as a tool's
/// annotations are held to it (`annotated::Restriction`): a read-only tool may run only what
/// reads, one that destroys nothing only what does not replace or remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// It only reads (a listing, a dump, a query).
    Reads,
    /// It writes and removes only rein's own scratch files (a device file of rein's name under
    /// /data/local/tmp, the transit folder `.rein-received/`, which the kernel takes from), as
    /// reading the screen needs: to the workspace and the device, reading.
    Scratch,
    /// It adds or changes state without replacing or removing anything (a launch, the screen
    /// lit, its timeout set and given back).
    Adds,
    /// It may replace or remove something: an install over an app, an uninstall, a stopped
    /// app, a file it may overwrite, a build's outputs.
    Replaces,
}

#[derive(Debug, Clone, Copy)]
pub struct Shape<Kind: 'static> {
    pub parts: &'static [Part<Kind>],
    pub verdict: Verdict,
    /// What a command of this shape does (data, one per shape, next to its verdict).
    pub effect: Effect,
}

/// A typed value a matching command holds (local paths need judging by scope).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured<Kind> {
    pub kind: Kind,
    pub value: String,
}

impl<Kind: ValueKind> Shape<Kind> {
    /// The values `words` hold if they match this shape exactly.
    pub fn captures(&self, words: &[&str]) -> Option<Vec<Captured<Kind>>> {
        let mut captured = Vec::new();
        let mut rest = words;
        for (i, part) in self.parts.iter().enumerate() {
            let last = i + 1 == self.parts.len();
            match part {
                Part::Word(word) => {
                    let (first, tail) = rest.split_first()?;
                    if first != word {
                        return None;
                    }
                    rest = tail;
                }
                Part::Value(kind) => {
                    let (first, tail) = rest.split_first()?;
                    take(*kind, first, &mut captured)?;
                    rest = tail;
                }
                Part::Values(kind) if last => {
                    if rest.is_empty() {
                        return None;
                    }
                    for value in rest {
                        take(*kind, value, &mut captured)?;
                    }
                    rest = &[];
                }
                Part::Options(options) if last => {
                    options_of(options, rest, &mut captured)?;
                    rest = &[];
                }
                Part::Values(_) | Part::Options(_) => return None,
            }
        }
        rest.is_empty().then_some(captured)
    }

    /// The shape as people read it: `aa start -a <name> -b <bundle> [-m <name>]`.
    #[cfg(test)]
    pub fn render(&self) -> String {
        let mut words = Vec::new();
        for part in self.parts {
            match part {
                Part::Word(word) if word.contains(' ') => words.push(format!("\"{word}\"")),
                Part::Word(word) => words.push(word.to_string()),
                Part::Value(kind) => words.push(kind.placeholder().to_string()),
                Part::Values(kind) => words.push(format!("{}…", kind.placeholder())),
                Part::Options(options) => {
                    for opt in options.iter() {
                        let shown = match opt.value {
                            Some(kind) => format!("{} {}", opt.flag, kind.placeholder()),
                            None => opt.flag.to_string(),
                        };
                        words.push(if opt.required { shown } else { format!("[{shown}]") });
                    }
                }
            }
        }
        words.join(" ")
    }
}

fn take<Kind: ValueKind>(kind: Kind, value: &str, captured: &mut Vec<Captured<Kind>>) -> Option<()> {
    kind.accepts(value).then(|| captured.push(Captured { kind, value: value.to_string() }))
}

/// Whether `rest` starts with `flag`'s words (a flag may be two words: `-s class`).
fn starts_with_flag(rest: &[&str], flag: &str) -> bool {
    let words: Vec<&str> = flag.split(' ').collect();
    rest.len() >= words.len() && rest[..words.len()] == words[..]
}

fn options_of<Kind: ValueKind>(
    options: &[Opt<Kind>],
    mut rest: &[&str],
    captured: &mut Vec<Captured<Kind>>,
) -> Option<()> {
    let mut seen = vec![false; options.len()];
    while !rest.is_empty() {
        let index = options.iter().position(|o| starts_with_flag(rest, o.flag))?;
        if std::mem::replace(&mut seen[index], true) {
            return None;
        }
        rest = &rest[options[index].flag.split(' ').count()..];
        if let Some(kind) = options[index].value {
            let (value, tail) = rest.split_first()?;
            take(kind, value, captured)?;
            rest = tail;
        }
    }
    options.iter().zip(&seen).all(|(opt, seen)| *seen || !opt.required).then_some(())
}

/// The first shape of `table` that `words` match, with what they hold.
pub fn find<'t, Kind: ValueKind>(
    table: &'t [Shape<Kind>],
    words: &[&str],
) -> Option<(&'t Shape<Kind>, Vec<Captured<Kind>>)> {
    table.iter().find_map(|shape| shape.captures(words).map(|captured| (shape, captured)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two kinds of value, as a toolchain would define its own.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Kind {
        Name,
        Id,
    }

    impl ValueKind for Kind {
        fn accepts(self, value: &str) -> bool {
            let allowed = |c: char| c.is_ascii_alphanumeric() || (self == Kind::Id && c == '.');
            !value.is_empty() && value.chars().all(allowed)
        }

        fn placeholder(self) -> &'static str {
            match self {
                Kind::Name => "<name>",
                Kind::Id => "<id>",
            }
        }
    }

    const START: Shape<Kind> = Shape {
        parts: &[
            Part::Word("run"),
            Part::Word("start"),
            Part::Options(&[
                Opt { flag: "-a", value: Some(Kind::Name), required: true },
                Opt { flag: "-b", value: Some(Kind::Id), required: true },
                Opt { flag: "-m", value: Some(Kind::Name), required: false },
            ]),
        ],
        verdict: Verdict::Ask,
        effect: Effect::Adds,
    };

    #[test]
    fn a_command_matches_only_every_word_accounted_for() {
        assert!(START.captures(&["run", "start", "-a", "EntryAbility", "-b", "com.x"]).is_some());
        assert!(START.captures(&["run", "start", "-b", "com.x", "-a", "EntryAbility", "-m", "entry"]).is_some());
        assert!(START.captures(&["run", "start", "-a", "EntryAbility"]).is_none(), "-b is required");
        assert!(START.captures(&["run", "start", "-a", "A", "-a", "B", "-b", "com.x"]).is_none(), "twice");
        assert!(START.captures(&["run", "start", "-a", "A", "-b", "com.x", "-D"]).is_none(), "unknown option");
        assert!(START.captures(&["run", "start", "-a", "A", "-b", "com.x;reboot"]).is_none(), "typed value");
        assert_eq!(START.render(), "run start -a <name> -b <id> [-m <name>]");
    }
}
