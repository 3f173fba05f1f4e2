//! `hdc install` / `hdc uninstall`: the host sends each package, the daemon runs `bm install
//! [OPTIONS] -p <package>` and sends back bm's output with every "\n" made a space
//! (`developtools_hdc` `src/daemon/daemon_app.cpp` `PackageShell`, `AsyncInstallFinish`); the
//! client prints one line per package and `AppMod finish` (`src/host/host_app.cpp`
//! `CheckInstallContinue`, printed by the client: "\n"); uninstall is printed by the server
//! ("\r\n", `server_for_client.cpp`).
//!
//! A path that does not end in .hap, .hsp or .app is a folder: the client sends it as one tar
//! (host_app.cpp `BeginInstall`, `Dir2Tar`), the daemon unpacks it and runs one `bm install -p
//! <folder>` (daemon_app.cpp `WhenTransferFinish`, `Tar2Dir`), so its packages install together;
//! the line shows the folder's path. Several package paths are several installs, one at a time.

use super::common::{conf_str, out, outln, resolve, Conf};
use super::hdc::on_device;
use super::hdc_file::open_failed;
use crate::state::State;

fn app_line(mode: &str, path: &str, msg: &str, conf: &Conf) -> String {
    if conf_str(conf, "install_format").as_deref() == Some("old") {
        format!("[Info]App {mode} path:{path}, queuesize:0, msg:{msg}")
    } else {
        format!("[Info]App {mode} path:{path} msg:{msg}")
    }
}

/// The paths in the order the real client sends them: sorted, unique, then taken from the back
/// of the queue; a folder is one item.
fn install_queue(paths: &[&String]) -> Vec<String> {
    let mut queue: Vec<String> = Vec::new();
    for p in paths {
        let full = resolve(p);
        let is_package = [".hap", ".hsp", ".app"].iter().any(|ext| p.ends_with(ext));
        let is_folder = std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir());
        if is_package || is_folder {
            queue.push(full.display().to_string());
        }
    }
    queue.sort();
    queue.dedup();
    queue.reverse();
    queue
}

pub fn install(state: &State, rest: &[String], key: &str, conf: &Conf) {
    let options: Vec<String> = rest.iter().filter(|a| a.starts_with('-')).cloned().collect();
    let paths: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
    let queue = install_queue(&paths);
    if queue.is_empty() {
        return outln("[Fail][E006001] Not any installation package was found");
    }
    for path in queue {
        if !std::path::Path::new(&path).exists() {
            return out(&open_failed(&path, true));
        }
        let mut words: Vec<String> = vec!["bm".into(), "install".into()];
        words.extend(options.iter().cloned());
        words.extend(["-p".to_string(), path.clone()]);
        let msg = on_device(state, key, &words).replace('\n', " ");
        outln(&app_line("install", &path, &msg, conf));
    }
    outln("AppMod finish");
}

pub fn uninstall(state: &State, rest: &[String], key: &str, conf: &Conf) {
    let mut words: Vec<String> = vec!["bm".into(), "uninstall".into()];
    words.extend(rest.iter().filter(|a| a.starts_with('-')).cloned());
    let bundle = rest.iter().rfind(|a| !a.starts_with('-')).cloned().unwrap_or_default();
    words.extend(["-n".to_string(), bundle]);
    let msg = on_device(state, key, &words).replace('\n', " ");
    out(&format!("{}\r\n", app_line("uninstall", "", &msg, conf)));
    out("AppMod finish\r\n");
}
