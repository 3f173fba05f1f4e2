//! Which device is behind a connect key: its UDID, as `bm get -u` prints it (shared/HARMONY.md,
//! "hdc shell bm get -u": `udid of current device is :` then the UDID). A key names a way to a
//! device, not the device: `127.0.0.1:5555` is whichever emulator started first, an address
//! whichever device answers there. An app rein installed at a key is the project's own only on
//! the device it went to (`installed`), so the kernel reads the UDID itself — at an install,
//! and before it decides on screen input or a test run that could run unasked — and nothing a
//! tool says counts: only what the device printed to the kernel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::grammar::hdc::{device_of, device_words};
use super::installed::device_key;

/// How long a read stands: the kernel reads again before each decision that rests on it, so
/// this only bounds how far a read may be from the decision it serves.
pub const FRESH: Duration = Duration::from_secs(10);

/// `hdc shell`'s words that print the UDID.
pub const READ: [&str; 3] = ["bm", "get", "-u"];

/// The UDID in `bm get -u`'s output; None for anything else (an error, an empty answer).
pub fn udid_of(output: &str) -> Option<String> {
    let mut lines = output.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    let rest = first.strip_prefix("udid of current device is :")?.trim();
    let udid = if rest.is_empty() { lines.next()? } else { rest };
    let plain = !udid.is_empty() && udid.len() <= 128 && udid.chars().all(|c| c.is_ascii_alphanumeric());
    (plain && lines.next().is_none()).then(|| udid.to_string())
}

/// The UDID the kernel last read behind each device key (`<server>/<target>`), and when.
#[derive(Debug, Clone, Default)]
pub struct Identities(Arc<Mutex<HashMap<String, (String, Instant)>>>);

impl Identities {
    /// Learns from a finished hdc run: a `bm get -u` says which device is behind its key; any
    /// other answer to it forgets what was read there.
    pub fn observe(&self, args: &[String], stdout: &str) {
        let is_read = device_words(args).is_some_and(|w| w == READ);
        let Some(device) = device_key(args).filter(|_| is_read) else { return };
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match udid_of(stdout) {
            Some(udid) => all.insert(device, (udid, Instant::now())),
            None => all.remove(&device),
        };
    }

    /// The UDID behind the command's device, as read within [`FRESH`].
    pub fn current(&self, args: &[String]) -> Option<String> {
        let device = device_key(args)?;
        let all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (udid, at) = all.get(&device)?;
        (at.elapsed() <= FRESH).then(|| udid.clone())
    }

    /// Forgets the command's device (before a read, so that a read that fails leaves nothing).
    pub fn forget(&self, args: &[String]) {
        let Some(device) = device_key(args) else { return };
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&device);
    }
}

/// The hdc command line that reads the UDID of the device `args` names (its server, its
/// target); None when `args` names no target: hdc would pick whichever device is connected.
pub fn read_line(args: &[String]) -> Option<Vec<String>> {
    let device = device_of(args)?;
    let target = device.target?;
    let mut line: Vec<String> = device.server.map(|s| vec!["-s".to_string(), s]).unwrap_or_default();
    line.extend(["-t".to_string(), target, "shell".to_string()]);
    line.extend(READ.map(String::from));
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_udid_is_what_bm_printed_after_its_words_and_nothing_else() {
        let udid = "A1B2C3";
        assert_eq!(udid_of(&format!("udid of current device is :\n{udid}\n")).as_deref(), Some(udid));
        assert_eq!(udid_of(&format!("udid of current device is :\r\n{udid}\r\n")).as_deref(), Some(udid));
        assert_eq!(udid_of("udid of current device is :\n"), None);
        assert_eq!(udid_of("error: parameter error.\n"), None);
        assert_eq!(udid_of("udid of current device is :\nA1 B2\n"), None);
        assert_eq!(udid_of("udid of current device is :\nA1\nB2\n"), None);
    }

    #[test]
    fn a_read_stands_for_its_device_only_and_a_failed_one_forgets() {
        let seen = Identities::default();
        seen.observe(&args("-t K shell bm get -u"), "udid of current device is :\nU1\n");
        assert_eq!(seen.current(&args("-t K shell uitest uiInput click 1 1")).as_deref(), Some("U1"));
        assert_eq!(seen.current(&args("-t OTHER shell aa dump -l")), None);
        seen.observe(&args("-t K shell bm dump -a"), "udid of current device is :\nU2\n");
        assert_eq!(seen.current(&args("-t K install a.hap")).as_deref(), Some("U1"), "not a read");
        seen.observe(&args("-t K shell bm get -u"), "[Fail]ExecuteCommand need connect-key?\n");
        assert_eq!(seen.current(&args("-t K install a.hap")), None);
    }

    #[test]
    fn the_read_goes_to_the_device_the_command_names() {
        assert_eq!(read_line(&args("-t K install -r a.hap")), Some(args("-t K shell bm get -u")));
        assert_eq!(
            read_line(&args("-s 10.0.0.2:8710 -t K shell uitest uiInput click 1 1")),
            Some(args("-s 10.0.0.2:8710 -t K shell bm get -u"))
        );
        assert_eq!(read_line(&args("install -r a.hap")), None, "whichever device: no read");
    }
}
