//! hiview's system events: a crash or a freeze the faultlogger saw is a RELIABILITY event
//! (JS_ERROR, CPP_CRASH, APP_FREEZE), which `hisysevent -l` lists, one JSON object a line.
//!
//! Sources: the tool is `openharmony/hiviewdfx_hisysevent` @1ef2f07f
//! `frameworks/native/hisysevent_tool.cpp` (`-l` history, `-o <domain>`, `-n <name>`,
//! `-S "YYYY-MM-DD HH:MM:SS"` read by `ParseTimeStampFromArgs` with mktime, `-s`/`-e` in ms) and
//! `hisysevent_tool_query.cpp` (`OnQuery` prints each record's JSON and `endl`); the JSON is
//! `openharmony/hiviewdfx_hiview` @c5bc8942 `base/event_raw/decoded/decoded_event.cpp`
//! (`AsJsonStr`: `domain_`, `name_`, `type_`, `time_`, `tz_`, `pid_`, `tid_`, `uid_`, `log_`,
//! `id_`, then the parameters; strings written without escaping) with `base/sys_event.cpp`
//! appending `tag_`, `level_` and `seq_`; the parameters of a fault are
//! `plugins/faultlogger/service/bdfr_base/fault_file/faultlog_database.cpp` `WriteEvent`
//! (`FAULT_TYPE`, `PID`, `UID`, `MODULE`, `REASON`, `SUMMARY`, `LOG_PATH`, …, `HAPPEN_TIME`).

use chrono::NaiveDateTime;
use serde_json::{json, Value};

use crate::clock;
use crate::device::Device;
use crate::faultlog::uid_of;
use crate::words::flag;

/// hiview's own pid and uid on the fake device (the writer of every fault event).
const HIVIEW_PID: i64 = 1071;
const HIVIEW_UID: i64 = 1201;
const FAULTLOG_DIR: &str = "/data/log/faultlog/faultlogger/";

/// The device time of the moment `secs` (seconds since the epoch): the pinned clock when a test
/// pinned it.
pub fn device_time(device: &Device, secs: f64) -> NaiveDateTime {
    if device.conf.contains_key("now") {
        clock::now(&device.conf)
    } else {
        clock::local(secs)
    }
}

/// `FaultLogType` of faultlog_util.h as `WriteEvent` writes it (`std::to_string`).
fn fault_type(name: &str) -> &'static str {
    match name {
        "CPP_CRASH" => "2",
        "JS_ERROR" => "3",
        _ => "4", // APP_FREEZE
    }
}

/// Records a fault event of `process` at `secs`; `log` is the fault log's name, if any.
pub fn record(device: &mut Device, name: &str, process: &Value, reason: &str, secs: f64, log: &str) {
    let bundle = process["bundle"].as_str().unwrap_or("");
    let at = device_time(device, secs);
    let ms = at.and_utc().timestamp_millis();
    let events = device.state.entry("sysevents").or_insert(json!([]));
    let seq = events.as_array().map_or(0, Vec::len) as i64 + 1;
    let log_path = if log.is_empty() { String::new() } else { format!("{FAULTLOG_DIR}{log}") };
    let summary = format!("{name} {reason} in {bundle}");
    let line = format!(
        concat!(
            "{{\"domain_\":\"RELIABILITY\",\"name_\":\"{name}\",\"type_\":1,\"time_\":{ms},\"tz_\":\"+0000\",",
            "\"pid_\":{hpid},\"tid_\":{hpid},\"uid_\":{huid},\"log_\":0,\"id_\":\"{id:020}\",",
            "\"FAULT_TYPE\":\"{ftype}\",\"PID\":{pid},\"UID\":{uid},\"MODULE\":\"{bundle}\",\"REASON\":\"{reason}\",",
            "\"SUMMARY\":\"{summary}\",\"LOG_PATH\":\"{log_path}\",\"VERSION\":\"1.0.0\",\"FOREGROUND\":\"Yes\",",
            "\"HAPPEN_TIME\":{ms},\"PNAME\":\"{bundle}\",\"tag_\":\"STABILITY\",\"level_\":\"CRITICAL\",\"seq_\":{seq}}}"
        ),
        name = name,
        ms = ms,
        hpid = HIVIEW_PID,
        huid = HIVIEW_UID,
        id = 7_000_000_000_000_000_000u64 + seq as u64,
        ftype = fault_type(name),
        pid = process["pid"],
        uid = uid_of(bundle),
        bundle = bundle,
        reason = reason,
        summary = summary,
        log_path = log_path,
        seq = seq,
    );
    events
        .as_array_mut()
        .expect("sysevents is a list")
        .push(json!({"time_ms": ms, "domain": "RELIABILITY", "name": name, "json": line}));
}

/// `hisysevent -l [-o DOMAIN] [-n NAME] [-S "YYYY-MM-DD HH:MM:SS"] [-s MS] [-e MS]`.
pub fn hisysevent(words: &[String], device: &Device, out: &mut String) {
    if !words.iter().any(|w| w == "-l") {
        out.push_str("hisysevent: only -l (history) is faked\n"); // GUESS
        return;
    }
    let begin = match flag(words, "-S") {
        Some(text) => match NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S") {
            Ok(t) => t.and_utc().timestamp_millis(),
            Err(_) => -1, // ParseTimeStampFromArgs: DEFAULT_TIME_STAMP
        },
        None => flag(words, "-s").and_then(|s| s.parse().ok()).unwrap_or(-1),
    };
    let end: i64 = flag(words, "-e").and_then(|s| s.parse().ok()).unwrap_or(-1);
    if end > 0 && begin > end {
        out.push_str(&format!("invalid time startTime must less than endTime({begin} > {end}).\n"));
        return;
    }
    let domain = flag(words, "-o");
    let name = flag(words, "-n");
    for event in device.flag("sysevents").as_array().into_iter().flatten() {
        let ms = event["time_ms"].as_i64().unwrap_or(0);
        let keep = (begin < 0 || ms >= begin)
            && (end < 0 || ms <= end)
            && domain.is_none_or(|d| event["domain"] == d)
            && name.is_none_or(|n| event["name"] == n);
        if keep {
            out.push_str(event["json"].as_str().unwrap_or(""));
            out.push('\n');
        }
    }
}
