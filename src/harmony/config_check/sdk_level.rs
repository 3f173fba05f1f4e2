//! SDK levels as build-profile.json5 writes them (shared/HARMONY-VERIFY.md §5): HarmonyOS
//! products write a quoted version string, `"5.0.0(12)"`, `"6.0.0(20)"`, or from API 26 on
//! `"26.0.0"`; OpenHarmony products (`"runtimeOS": "OpenHarmony"`) write the bare integer, `24`.
//! The rule the versions must keep: compatible ≤ target ≤ compile [OBS, §5].

use std::fmt;

/// Which form a level was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `"6.0.0(20)"` or `"26.0.0"`.
    Version,
    /// `20`.
    Integer,
}

/// An SDK level: the API level it names, and the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdkLevel {
    pub api: u32,
    pub form: Form,
    pub written: String,
}

impl fmt::Display for SdkLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (API {})", self.written, self.api)
    }
}

/// The first API level whose version string is the level itself, without the `(N)`:
/// `"6.0.1(21)"` was followed by `"26.0.0"` (§5).
const BARE_VERSION_FROM: u32 = 26;

/// Why a text is no SDK level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not an SDK level: write a HarmonyOS version such as \"6.0.0(20)\" or \"26.0.0\", or an OpenHarmony API level such as 20")]
pub struct NotALevel {
    pub text: String,
}

impl SdkLevel {
    /// A level written as a JSON5 string (`version`) or number (`integer`).
    pub fn from_version(text: &str) -> Result<SdkLevel, NotALevel> {
        let not = || NotALevel { text: text.to_string() };
        let (version, api) = match text.strip_suffix(')').and_then(|t| t.split_once('(')) {
            Some((version, api)) => (version, Some(api.parse::<u32>().map_err(|_| not())?)),
            None => (text, None),
        };
        let parts: Vec<&str> = version.split('.').collect();
        if parts.len() != 3 || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
            return Err(not());
        }
        let major: u32 = parts[0].parse().map_err(|_| not())?;
        let api = match api {
            Some(api) => api,
            None if major >= BARE_VERSION_FROM => major,
            None => return Err(not()),
        };
        Ok(SdkLevel { api, form: Form::Version, written: text.to_string() })
    }

    pub fn from_integer(api: i64) -> Result<SdkLevel, NotALevel> {
        let not = || NotALevel { text: api.to_string() };
        let api = u32::try_from(api).ok().filter(|a| *a > 0).ok_or_else(not)?;
        Ok(SdkLevel { api, form: Form::Integer, written: api.to_string() })
    }

    /// The form `runtime_os` writes: a version string for HarmonyOS, an integer otherwise.
    pub fn expected_form(runtime_os: &str) -> Form {
        if runtime_os == "HarmonyOS" {
            Form::Version
        } else {
            Form::Integer
        }
    }
}

/// The three levels of a product, named as build-profile.json5 names them.
pub const FIELDS: [&str; 3] = ["compatibleSdkVersion", "targetSdkVersion", "compileSdkVersion"];

/// The first pair out of order among compatible ≤ target ≤ compile, given in that order (each
/// where written): the indexes of the lower field and of the higher one it exceeds.
pub fn out_of_order(levels: &[&SdkLevel]) -> Option<(usize, usize)> {
    levels
        .iter()
        .enumerate()
        .find_map(|(i, low)| levels[i + 1..].iter().position(|high| high.api < low.api).map(|j| (i, i + 1 + j)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_harmonyos_and_openharmony_write() {
        assert_eq!(SdkLevel::from_version("6.0.0(20)").unwrap().api, 20);
        assert_eq!(SdkLevel::from_version("5.0.0(12)").unwrap().api, 12);
        assert_eq!(SdkLevel::from_version("26.0.0").unwrap().api, 26);
        assert_eq!(SdkLevel::from_integer(24).unwrap().form, Form::Integer);
        for bad in ["5.0.0", "6.0(20)", "x.0.0(1)", "6.0.0(2a)", "", "20"] {
            assert!(SdkLevel::from_version(bad).is_err(), "{bad}");
        }
        assert!(SdkLevel::from_integer(0).is_err());
    }

    #[test]
    fn order_is_compatible_then_target_then_compile() {
        let l = |t: &str| SdkLevel::from_version(t).unwrap();
        let (v12, v20, v26) = (l("5.0.0(12)"), l("6.0.0(20)"), l("26.0.0"));
        assert_eq!(out_of_order(&[&v12, &v20, &v26]), None);
        assert_eq!(out_of_order(&[&v20, &v12]), Some((0, 1)));
        assert_eq!(out_of_order(&[&v12, &v26, &v20]), Some((1, 2)));
    }
}
