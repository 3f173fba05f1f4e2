//! The device clock: scenario `hdc.now` (`MM-DD HH:MM:SS.mmm`) with `hdc.year` pins it, so
//! hilog stamps, `date` and fault log names agree; unpinned it is this machine's local time.
//! `date` is toybox's: `date +FORMAT` is strftime of the local time.

use chrono::{DateTime, Local, NaiveDateTime, TimeZone};
use serde_json::{Map, Value};
use std::fmt::Write;

use crate::device::Device;

fn pinned(conf: &Map<String, Value>) -> Option<&str> {
    conf.get("now").and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The hilog time stamp of "now", `MM-DD HH:MM:SS.mmm`.
pub fn stamp(conf: &Map<String, Value>) -> String {
    match pinned(conf) {
        Some(now) => now.to_string(),
        None => Local::now().format("%m-%d %H:%M:%S%.3f").to_string(),
    }
}

/// The device's local time now.
pub fn now(conf: &Map<String, Value>) -> NaiveDateTime {
    let Some(now) = pinned(conf) else {
        return Local::now().naive_local();
    };
    let year =
        conf.get("year").and_then(Value::as_i64).unwrap_or_else(|| i64::from(chrono::Datelike::year(&Local::now())));
    let text = format!("{year}-{}", &now[..now.len().min(14)]);
    NaiveDateTime::parse_from_str(&text, "%Y-%m-%d %H:%M:%S")
        .unwrap_or_else(|e| panic!("scenario hdc.now {now:?} is not MM-DD HH:MM:SS.mmm: {e}"))
}

/// The local time of a moment given in seconds since the epoch (a process's death).
pub fn local(secs: f64) -> NaiveDateTime {
    let nanos = (secs.fract() * 1e9) as u32;
    DateTime::from_timestamp(secs.trunc() as i64, nanos)
        .map(|t| t.with_timezone(&Local).naive_local())
        .unwrap_or_else(|| Local::now().naive_local())
}

/// strftime of `time` in the local zone; an unknown directive prints what toybox would not
/// (the text of the failure), never a panic.
pub fn strftime(time: NaiveDateTime, format: &str) -> String {
    let zoned = Local.from_local_datetime(&time).earliest().unwrap_or_else(|| Local.from_utc_datetime(&time));
    let mut out = String::new();
    match write!(out, "{}", zoned.format(format)) {
        Ok(()) => out,
        Err(_) => format!("date: bad format '{format}'"),
    }
}

/// `date [+FORMAT]`.
pub fn date(words: &[String], device: &Device, out: &mut String) {
    let now = now(&device.conf);
    if let Some(format) = words.iter().skip(1).find_map(|w| w.strip_prefix('+')) {
        out.push_str(&strftime(now, format));
    } else if words.len() == 1 {
        out.push_str(&strftime(now, "%a %b %e %H:%M:%S %Z %Y"));
    } else {
        out.push_str("date: setting the date needs root"); // GUESS
    }
    out.push('\n');
}
