//! Command shapes: an allow-list entry is an exact sequence of words and typed values, with an
//! optional set of options at the end (any order, each at most once, some required). A
//! command matches a shape only if every word is accounted for; nothing else is allowed by
//! the table. Shapes also render themselves for README's approval table.

use crate::harmony::grammar::values::Kind;

/// One part of a shape.
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// This exact word.
    Word(&'static str),
    /// One value of this kind.
    Value(Kind),
    /// One or more values of this kind (the rest of the words).
    Values(Kind),
    /// The rest of the words: these options in any order, each at most once.
    Options(&'static [Opt]),
}

/// An option of [`Part::Options`].
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// One word (`-b`), or two (`-s class`: aa's `-s <key> <value>`).
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

#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub parts: &'static [Part],
    pub verdict: Verdict,
}

/// A typed value a matching command holds (local paths need judging by scope).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    pub kind: Kind,
    pub value: String,
}

impl Shape {
    /// The values `words` hold if they match this shape exactly.
    pub fn captures(&self, words: &[&str]) -> Option<Vec<Captured>> {
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

fn take(kind: Kind, value: &str, captured: &mut Vec<Captured>) -> Option<()> {
    kind.accepts(value).then(|| captured.push(Captured { kind, value: value.to_string() }))
}

/// Whether `rest` starts with `flag`'s words (a flag may be two words: `-s class`).
fn starts_with_flag(rest: &[&str], flag: &str) -> bool {
    let words: Vec<&str> = flag.split(' ').collect();
    rest.len() >= words.len() && rest[..words.len()] == words[..]
}

fn options_of(options: &[Opt], mut rest: &[&str], captured: &mut Vec<Captured>) -> Option<()> {
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
pub fn find<'t>(table: &'t [Shape], words: &[&str]) -> Option<(&'t Shape, Vec<Captured>)> {
    table.iter().find_map(|shape| shape.captures(words).map(|captured| (shape, captured)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: Shape = Shape {
        parts: &[
            Part::Word("aa"),
            Part::Word("start"),
            Part::Options(&[
                Opt { flag: "-a", value: Some(Kind::Name), required: true },
                Opt { flag: "-b", value: Some(Kind::Bundle), required: true },
                Opt { flag: "-m", value: Some(Kind::Name), required: false },
            ]),
        ],
        verdict: Verdict::Ask,
    };

    #[test]
    fn a_command_matches_only_every_word_accounted_for() {
        assert!(START.captures(&["aa", "start", "-a", "EntryAbility", "-b", "com.x"]).is_some());
        assert!(START.captures(&["aa", "start", "-b", "com.x", "-a", "EntryAbility", "-m", "entry"]).is_some());
        assert!(START.captures(&["aa", "start", "-a", "EntryAbility"]).is_none(), "-b is required");
        assert!(START.captures(&["aa", "start", "-a", "A", "-a", "B", "-b", "com.x"]).is_none(), "twice");
        assert!(START.captures(&["aa", "start", "-a", "A", "-b", "com.x", "-D"]).is_none(), "unknown option");
        assert!(START.captures(&["aa", "start", "-a", "A", "-b", "com.x;reboot"]).is_none(), "typed value");
        assert_eq!(START.render(), "aa start -a <name> -b <bundle> [-m <name>]");
    }
}
