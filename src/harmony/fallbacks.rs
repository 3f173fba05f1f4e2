//! Commands that are one action in the form an older program understands, so that one yes
//! covers both (issue 40: a launch asked twice). `aa start -W …` on an image whose aa has no
//! `-W` answers `fail: unknown option.` and starts nothing (prelude/harmony/foreground.lua
//! cites aa's source); the launch then runs the same `aa start …` without it.

use super::programs::Program;

/// The command `program args` falls back to when the device does not know it, if any.
pub fn fallback_of(program: &Program, args: &[String]) -> Option<Vec<String>> {
    if *program != Program::Hdc {
        return None;
    }
    let at = args.windows(4).position(|w| w.iter().map(String::as_str).eq(["shell", "aa", "start", "-W"]))?;
    let mut fallback = args.to_vec();
    fallback.remove(at + 3);
    Some(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_waiting_start_falls_back_to_the_same_start_without_waiting() {
        let waiting = words("-t 127.0.0.1:5555 shell aa start -W -a EntryAbility -b com.x -m entry");
        let plain = words("-t 127.0.0.1:5555 shell aa start -a EntryAbility -b com.x -m entry");
        assert_eq!(fallback_of(&Program::Hdc, &waiting), Some(plain.clone()));
        assert_eq!(fallback_of(&Program::Hdc, &plain), None);
        assert_eq!(fallback_of(&Program::Hdc, &words("install -r a.hap")), None);
        assert_eq!(fallback_of(&Program::Ohpm, &words("shell aa start -W")), None);
    }
}
