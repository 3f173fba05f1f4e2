//! Reading a device command's words.

/// The word after `name`, when there is one.
pub fn flag<'a>(words: &'a [String], name: &str) -> Option<&'a str> {
    let at = words.iter().position(|w| w == name)?;
    words.get(at + 1).map(String::as_str)
}

pub fn has(words: &[String], name: &str) -> bool {
    words.iter().any(|w| w == name)
}
