//! `hilog`: the log buffer in the layout of `openharmony/hiviewdfx_hilog` @d3ab8814
//! `frameworks/libhilog/utils/log_print.cpp` (`"%s %5d %5d %s %s%05x/%s: %s"`: time, pid, tid,
//! level, type letter + domain, tag, message), read with the filters of
//! `services/hilogtool/main.cpp` (`-x`, `-L`, `-T`, `-D`, `-P`, `-t`, `-e`, `-a`, `-z`, `-r`).

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use crate::device::Device;
use crate::words::flag;

pub struct Line {
    pub pid: i64,
    pub level: String,
    pub kind: String,
    pub domain: u32,
    pub tag: String,
}

/// One line as hilog prints it; `kind` is the type letter (A app, C core, I init, K kmsg).
#[allow(clippy::too_many_arguments)]
pub fn format(stamp: &str, pid: i64, tid: i64, level: &str, kind: &str, domain: u32, tag: &str, msg: &str) -> String {
    format!("{stamp} {pid:5} {tid:5} {level} {kind}{domain:05x}/{tag}: {msg}")
}

pub fn parse(line: &str) -> Option<Line> {
    static LAYOUT: OnceLock<Regex> = OnceLock::new();
    let layout = LAYOUT.get_or_init(|| {
        Regex::new(
            r"^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)\s+(\d+)\s+([DIWEF])\s+([ACIKP])([0-9a-fA-F]{5})/([^:]*):\s?(.*)$",
        )
        .expect("the hilog layout")
    });
    let c = layout.captures(line)?;
    Some(Line {
        pid: c[2].parse().ok()?,
        level: c[4].to_string(),
        kind: c[5].to_string(),
        domain: u32::from_str_radix(&c[6], 16).ok()?,
        tag: c[7].to_string(),
    })
}

const LEVEL_WORDS: [(&str, &str); 5] = [("DEBUG", "D"), ("INFO", "I"), ("WARN", "W"), ("ERROR", "E"), ("FATAL", "F")];
const TYPE_WORDS: [(&str, &str); 5] =
    [("app", "A"), ("core", "C"), ("init", "I"), ("kmsg", "K"), ("only_prerelease", "P")];

/// `-L D,I` / `-L ^D` / `-t app`: (exclude?, the letters or values).
struct Filter {
    exclude: bool,
    items: HashSet<String>,
}

impl Filter {
    fn new(value: &str, words: &[(&str, &str)]) -> Filter {
        let exclude = value.starts_with('^');
        let items = value
            .trim_start_matches('^')
            .split(',')
            .map(|v| {
                let v = v.trim();
                let named = words.iter().find(|(w, _)| w.eq_ignore_ascii_case(v)).map(|(_, l)| l.to_string());
                named.unwrap_or_else(|| {
                    if v.chars().count() == 1 && !words.is_empty() {
                        v.to_uppercase()
                    } else {
                        v.into()
                    }
                })
            })
            .collect();
        Filter { exclude, items }
    }

    fn keeps(&self, value: &str) -> bool {
        self.items.contains(value) != self.exclude
    }
}

fn keeps(filter: &Option<Filter>, value: &str) -> bool {
    filter.as_ref().is_none_or(|f| f.keeps(value))
}

pub fn hilog(words: &[String], device: &mut Device, out: &mut String) {
    if words.iter().any(|w| w == "-r") {
        device.hilog_mut().clear();
        out.push_str("Log type core,app buffer clear successfully\n");
        return;
    }
    let level = flag(words, "-L").map(|v| Filter::new(v, &LEVEL_WORDS));
    let tag = flag(words, "-T").map(|v| Filter::new(v, &[]));
    let pid = flag(words, "-P").map(|v| Filter::new(v, &[]));
    let kind = flag(words, "-t").map(|v| Filter::new(v, &TYPE_WORDS));
    let domains: Option<HashSet<u32>> = flag(words, "-D").map(|v| {
        v.split(',').filter_map(|d| u32::from_str_radix(d.trim().trim_start_matches("0x"), 16).ok()).collect()
    });
    let pattern = flag(words, "-e").map(|v| Regex::new(v).unwrap_or_else(|_| Regex::new(&regex::escape(v)).unwrap()));
    let filtering = level.is_some() || tag.is_some() || pid.is_some() || kind.is_some();
    let filtering = filtering || domains.is_some() || pattern.is_some();
    let mut lines: Vec<&str> = Vec::new();
    for line in device.state["hilog"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        let Some(p) = parse(line) else {
            if !filtering {
                lines.push(line);
            }
            continue;
        };
        let domain_ok = domains.as_ref().is_none_or(|d| d.contains(&p.domain) || d.contains(&(p.domain & 0xFFFF)));
        let pattern_ok = pattern.as_ref().is_none_or(|r| r.is_match(line));
        if keeps(&level, &p.level)
            && keeps(&tag, &p.tag)
            && keeps(&pid, &p.pid.to_string())
            && keeps(&kind, &p.kind)
            && domain_ok
            && pattern_ok
        {
            lines.push(line);
        }
    }
    if let Some(head) = flag(words, "-a").and_then(|n| n.parse::<usize>().ok()) {
        lines.truncate(head);
    }
    if let Some(tail) = flag(words, "-z").and_then(|n| n.parse::<usize>().ok()) {
        lines.drain(..lines.len().saturating_sub(tail));
    }
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
}
