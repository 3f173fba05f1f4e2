//! `hdc file send|recv`: a device's files live under its folder in the state directory
//! (`device-<key>.fs/`, tests/fakes/README.md), where rein-fake-device writes them too.

use std::path::Path;

use super::common::{conf_i64, out, outln, resolve, Conf};
use super::hdc::device_file;
use crate::state::State;

fn transfer_args(rest: &[String]) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let mut skip = false;
    for a in rest {
        if skip {
            skip = false;
        } else if a == "-b" {
            skip = true;
        } else if a.starts_with('-') && args.is_empty() {
            continue;
        } else {
            args.push(a.clone());
        }
    }
    args
}

/// `src/common/file.cpp`'s summary; the client prints a send's with "\r\n" (the server relays
/// it) and a receive's with "\n" (observed on the real build, tests/fakes/README.md), the rate
/// with `%.2lfkB/s`.
fn finish(size: usize, conf: &Conf, end: &str) {
    let ms = match conf_i64(conf, "transfer_ms", 2) {
        0 => 1,
        ms => ms,
    };
    let rate = size as f64 / ms as f64;
    out(&format!("FileTransfer finish, Size:{size}, File count = 1, time:{ms}ms rate:{rate:.2}kB/s{end}"));
}

fn remote_open_failed(path: &str) {
    out(&format!("[Fail]Error opening file: no such file or directory, path:{path}\r\n"));
}

/// A local file the client cannot open: the [Fail] line, then the client's own fatal log line,
/// which it prints on stdout (`src/common/transfer.cpp` `WRITE_LOG(LOG_FATAL, "open path:%s,
/// localPath:%s, error:%s, dir:%d, master:%d")`, observed with the time stamp).
pub fn open_failed(path: &str, master: bool) -> String {
    let stamp = chrono::Local::now().format("%Y-%m-%d %H:%M:%S");
    let master = u8::from(master);
    format!(
        "[Fail]Error opening file: no such file or directory, path:{path}\n\
         [F][{stamp}] open path:{path}, localPath:{path}, error:no such file or directory, dir:0, master:{master}\n"
    )
}

pub fn send(state: &State, rest: &[String], key: &str, conf: &Conf) {
    let args = transfer_args(rest);
    if args.len() < 2 {
        return outln("[Fail]There is no local and remote path");
    }
    let (local, remote) = (resolve(&args[0]), &args[1]);
    if !local.is_file() {
        return out(&open_failed(&local.display().to_string(), true));
    }
    let target = device_file(state, key, remote);
    if !target.parent().is_some_and(Path::is_dir) {
        return remote_open_failed(remote);
    }
    let data = std::fs::read(&local).unwrap_or_default();
    std::fs::write(&target, &data).unwrap_or_else(|e| panic!("write {}: {e}", target.display()));
    finish(data.len(), conf, "\r\n");
}

pub fn recv(state: &State, rest: &[String], key: &str, conf: &Conf) {
    let args = transfer_args(rest);
    if args.len() < 2 {
        return outln("[Fail]There is no local and remote path");
    }
    let (remote, mut local) = (&args[0], resolve(&args[1]));
    let source = device_file(state, key, remote);
    if !source.is_file() {
        return remote_open_failed(remote);
    }
    if local.is_dir() {
        local = local.join(remote.rsplit('/').next().unwrap_or(remote));
    }
    if !local.parent().is_some_and(Path::is_dir) {
        return out(&open_failed(&local.display().to_string(), false));
    }
    let data = std::fs::read(&source).unwrap_or_default();
    std::fs::write(&local, &data).unwrap_or_else(|e| panic!("write {}: {e}", local.display()));
    finish(data.len(), conf, "\n");
}
