//! The apps rein itself installed on each device: what "the project's own app" means when screen
//! input runs unasked (`ui_input`). The project's bundle name in `AppScope/app.json5` is the
//! agent's to write: renamed to Settings' bundle it would make Settings' screen "the project's".
//! A bundle counts only when rein's own `hdc install` of it succeeded on that device.
//!
//! The name is read from what was installed, never from the workspace's settings: the kernel
//! hands hdc private copies of the packages (in the spawn's own temp folder), reads each copy's
//! `module.json` (`app.bundleName`: the HAP's own manifest, shared/HARMONY-VERIFY.md §5 and the
//! fake's hap.rs), and records `{device, bundle}` when hdc says every package installed. A
//! package swapped after the read is never sent: hdc sends the copy. A device refuses a package
//! that takes the name of an app signed by someone else (bm 9568332 `install sign info
//! inconsistent`), so a HAP renamed to a system app's bundle never installs.
//!
//! A connect key names a way to a device, not the device (`127.0.0.1:5555` is whichever emulator
//! started first): each install is recorded under the UDID the kernel read behind the key
//! (`device_identity`), and a bundle counts only while the same UDID is read there again.
//!
//! The record lives in rein's home (`installed-apps.json`, by workspace, then device key, then
//! UDID), which no tool or program may write, as the signing pins do (`keystore_pins`); `.rein/`
//! is in the workspace. A successful `hdc uninstall` of the bundle removes it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::grammar::hdc::{command_of, device_of, DeviceOf};
use crate::kernel::files::read::{open_unwaited, Links};
use crate::kernel::files::write::write_atomic;

/// The file in rein's home.
const FILE: &str = "installed-apps.json";
/// The largest package rein copies (as `stage`).
const PACKAGE_LIMIT: u64 = 4 * 1024 * 1024 * 1024;
/// The largest `module.json` rein reads from a package.
const MANIFEST_LIMIT: u64 = 4 * 1024 * 1024;

/// The bundles rein installed on each device behind one key: by UDID.
type ByUdid = BTreeMap<String, BTreeSet<String>>;

#[derive(Debug, Default, Serialize, Deserialize)]
struct InstalledFile {
    /// By workspace, then device key (`<server>/<target>`), then UDID: the bundles rein
    /// installed there. (The first record, `workspaces`, had no UDID: it is read as empty.)
    #[serde(default)]
    installs: BTreeMap<String, BTreeMap<String, ByUdid>>,
}

/// The apps rein installed, for one workspace.
#[derive(Debug, Clone, Default)]
pub struct Installed {
    /// rein's home file and the workspace's key in it; None: nothing is ever recorded.
    place: Option<(PathBuf, String)>,
    /// The installs on their way: by command line (as `observe` will see it).
    pending: Arc<Mutex<HashMap<Vec<String>, Pending>>>,
}

/// An install handed over to hdc and not yet answered.
#[derive(Debug)]
struct Pending {
    /// The bundles its packages name; None when installs of the same line overlapped: whose
    /// answer `observe` sees then is not known, so none of them is recorded.
    bundles: Option<Vec<String>>,
    /// The UDID the kernel read behind the key for it, just before (`device_identity`): where
    /// it goes, whatever is read there while it runs (a read for another command, in
    /// parallel, after another device came up at the key).
    udid: Option<String>,
    /// The private copies hdc sends, in the spawn's own temp directory: there while the install
    /// runs, removed when it ends, answered or cut short.
    copies: Vec<PathBuf>,
}

impl Pending {
    /// Whether an install it stands for may still be running.
    fn running(&self) -> bool {
        self.copies.iter().any(|c| c.exists())
    }
}

/// The device an hdc command line is for: `<server>/<target>` (`*`: whichever single device).
pub fn device_key(args: &[String]) -> Option<String> {
    let device = device_of(args)?;
    Some(key(&device, device.target.as_deref().unwrap_or("*")))
}

/// The device an install is recorded for and a screen's app is checked against: only one the
/// command line names (`-t`). Without one hdc picks whichever single device is connected, and
/// which device that was is not known afterwards: a record of it would follow the app to the
/// next device plugged in. The tools name the device they resolved (harmony/device.lua `named`).
fn named_device(args: &[String]) -> Option<String> {
    let device = device_of(args)?;
    Some(key(&device, device.target.as_deref()?))
}

/// `<server>/<target>`, the local server as `local`.
fn key(device: &DeviceOf, target: &str) -> String {
    format!("{}/{}", device.server.as_deref().unwrap_or("local"), target)
}

/// The bundle a package's bytes name in its `module.json` (`{"app": {"bundleName": …}}`); None
/// for a package with two entries of one name, whose manifest depends on the reader.
pub fn bundle_of_package(package: &Path) -> Option<String> {
    let file = std::fs::File::open(package).ok()?;
    let mut zip = zip::ZipArchive::new(file).ok()?;
    if central_records(package, zip.central_directory_start())? != zip.len() {
        return None;
    }
    let entry = zip.by_name("module.json").ok()?;
    let mut text = Vec::new();
    entry.take(MANIFEST_LIMIT).read_to_end(&mut text).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&text).ok()?;
    manifest["app"]["bundleName"].as_str().filter(|b| !b.is_empty()).map(String::from)
}

/// How many records the central directory at `start` holds. The zip crate keeps the last of
/// two entries of one name and says nothing of the other; a reader that takes the first (the
/// fake's installer, `Zip::entry`) would see another `module.json`. The crate has no count of
/// the records it read, so rein walks them (a record: `PK\x01\x02`, 46 bytes, then its name,
/// extra field and comment, whose lengths are at 28, 30 and 32; APPNOTE.TXT 4.3.12).
fn central_records(package: &Path, start: u64) -> Option<usize> {
    use std::io::Seek;
    let mut file = std::fs::File::open(package).ok()?;
    file.seek(std::io::SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(MANIFEST_LIMIT).read_to_end(&mut bytes).ok()?;
    let u16_at = |at: usize| bytes.get(at..at + 2).map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let (mut at, mut count) = (0, 0);
    while bytes.get(at..at + 4) == Some(b"PK\x01\x02".as_slice()) {
        at += 46 + u16_at(at + 28)? + u16_at(at + 30)? + u16_at(at + 32)?;
        count += 1;
    }
    Some(count)
}

/// Copies `from` (a regular file, links not followed) to `to`, at most [`PACKAGE_LIMIT`] bytes.
fn copy_package(from: &Path, to: &Path) -> std::io::Result<()> {
    let file = open_unwaited(from, Links::Refuse)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > PACKAGE_LIMIT {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a package file"));
    }
    let mut out = std::fs::OpenOptions::new().write(true).create_new(true).open(to)?;
    std::io::copy(&mut file.take(PACKAGE_LIMIT), &mut out)?;
    Ok(())
}

fn is_package(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "hap" || e == "hsp" || e == "app")
}

/// Whether hdc said every package of the install went in (developtools_hdc host_app.cpp: a
/// `[Info]App install path:… msg:install bundle successfully.` line per package, `AppMod
/// finish` after; bm's failures print `error:` and `code:`).
fn installed_all(stdout: &str) -> bool {
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains("App install path:")).collect();
    !lines.is_empty()
        && lines.iter().all(|l| l.contains("install bundle successfully"))
        && stdout.lines().any(|l| l.trim() == "AppMod finish")
        && !stdout.contains("[Fail]")
}

/// Whether hdc said the bundle went (the server's `[Info]App uninstall path: msg:uninstall bundle
/// successfully.`).
fn uninstalled(stdout: &str) -> bool {
    stdout.contains("uninstall bundle successfully")
}

impl Installed {
    /// The record of `workspace` in `home`.
    pub fn new(home: &Path, workspace: &Path) -> Installed {
        Installed { place: Some((home.join(FILE), workspace.display().to_string())), pending: Default::default() }
    }

    fn load(&self) -> Option<InstalledFile> {
        let (file, _) = self.place.as_ref()?;
        match std::fs::read(file) {
            Ok(bytes) => serde_json::from_slice(&bytes).ok(),
            Err(_) => Some(InstalledFile::default()),
        }
    }

    /// Whether rein installed `bundle` on the device of the command line `args` whose UDID the
    /// kernel read there now (`udid`; None: unknown, so no app is rein's).
    pub fn has(&self, args: &[String], udid: Option<&str>, bundle: &str) -> bool {
        let (Some(device), Some(udid), Some((_, workspace))) = (named_device(args), udid, self.place.as_ref()) else {
            return false;
        };
        let Some(file) = self.load() else { return false };
        let on = file.installs.get(workspace).and_then(|d| d.get(&device)).and_then(|u| u.get(udid));
        on.is_some_and(|b| b.contains(bundle))
    }

    fn change(&self, device: &str, apply: impl FnOnce(&mut ByUdid)) {
        let Some((path, workspace)) = self.place.as_ref() else { return };
        // An unreadable record is not overwritten: rein then knows no app of its own.
        let Some(mut file) = self.load() else { return };
        apply(file.installs.entry(workspace.clone()).or_default().entry(device.to_string()).or_default());
        let text = serde_json::to_vec_pretty(&file).unwrap_or_default();
        if let Err(e) = write_atomic(path, &path.display().to_string(), &text) {
            tracing::warn!("rein could not record the apps it installed in {}: {e}", path.display());
        }
    }

    /// For an `hdc install`: the command line with each package replaced by a private copy in
    /// `tmp`, whose bundle names are remembered for [`Installed::observe`] with the UDID the
    /// kernel read for it (`udid`; None: nothing is recorded). Unchanged when a package cannot
    /// be copied or names no bundle: then nothing is recorded.
    pub fn hand_over(&self, args: Vec<String>, workspace: &Path, tmp: &Path, udid: Option<&str>) -> Vec<String> {
        let Some(("install", rest_at)) = command_of(&args) else { return args };
        // What an earlier install of this very line left is not this one's: one cut short (its
        // deadline, a cancel) never reached `observe`, and this one may send a package rein
        // does not read (a link), so it would have taken the bundles the device refused. One
        // still running would take this one's bundles at its answer (the package swapped
        // between the two): installs of one line at once record nothing, however many follow.
        // Copied before the lock (a package may be gigabytes): this one's copies are there
        // before another of the line looks.
        let (handed, bundles, mut copies) = copies_of(&args, rest_at, workspace, tmp);
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let running = pending.remove(&args).filter(Pending::running);
        match running {
            Some(earlier) => {
                copies.extend(earlier.copies);
                pending.insert(args, Pending { bundles: None, udid: None, copies });
            }
            None if !bundles.is_empty() => {
                pending.insert(args, Pending { bundles: Some(bundles), udid: udid.map(String::from), copies });
            }
            None => {}
        }
        handed
    }

    /// Learns from a finished hdc run: an install of packages rein read went in on the device
    /// whose UDID the kernel read for it (at `hand_over`), or an uninstall.
    pub fn observe(&self, args: &[String], stdout: &str) {
        let pending = {
            let mut all = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            match all.remove(args) {
                // Overlapping installs: kept while any of them runs, so none records.
                Some(shared) if shared.bundles.is_none() => {
                    if shared.running() {
                        all.insert(args.to_vec(), shared);
                    }
                    None
                }
                other => other.and_then(|p| Some((p.bundles?, p.udid?))),
            }
        };
        let Some(device) = named_device(args) else { return };
        match (command_of(args), pending) {
            (Some(("install", _)), Some((bundles, udid))) if installed_all(stdout) => {
                self.change(&device, |have| have.entry(udid).or_default().extend(bundles));
            }
            // Gone from whichever device is behind the key now: from every one recorded there.
            (Some(("uninstall", at)), _) if uninstalled(stdout) => {
                if let Some(bundle) = args[at..].iter().rfind(|a| !a.starts_with('-')) {
                    self.change(&device, |have| {
                        for bundles in have.values_mut() {
                            bundles.remove(bundle);
                        }
                    });
                }
            }
            _ => {}
        }
    }
}

/// The install line `args` with each package replaced by a private copy in `tmp`, the bundles
/// the copies name (sorted, once each) and the copies; the line unchanged and no bundles when a
/// package cannot be copied or names none.
fn copies_of(
    args: &[String],
    rest_at: usize,
    workspace: &Path,
    tmp: &Path,
) -> (Vec<String>, Vec<String>, Vec<PathBuf>) {
    let unchanged = || (args.to_vec(), Vec::new(), Vec::new());
    let mut handed = args.to_vec();
    let (mut bundles, mut copies) = (Vec::new(), Vec::new());
    for (i, arg) in args.iter().enumerate().skip(rest_at) {
        if arg.starts_with('-') {
            continue;
        }
        let path = if Path::new(arg).is_absolute() { PathBuf::from(arg) } else { workspace.join(arg) };
        let copy = tmp.join(format!("install-{i}"));
        let copied = if is_package(&path) {
            let copy = copy.with_extension(path.extension().unwrap_or_default());
            copy_package(&path, &copy).ok().map(|()| vec![copy.clone()]).map(|files| (copy, files))
        } else {
            copy_folder(&path, &copy).ok().map(|files| (copy, files))
        };
        let Some((copy, files)) = copied else { return unchanged() };
        for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "hap" || e == "hsp")) {
            match bundle_of_package(file) {
                Some(bundle) => bundles.push(bundle),
                None => return unchanged(),
            }
        }
        handed[i] = copy.display().to_string();
        copies.push(copy);
    }
    bundles.sort();
    bundles.dedup();
    (handed, bundles, copies)
}

/// Copies the packages of the folder `from` (regular files directly in it) into a new folder
/// `to`; the copies' paths.
fn copy_folder(from: &Path, to: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir(to)?;
    let mut copies = Vec::new();
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a folder in the folder"));
        }
        let copy = to.join(entry.file_name());
        copy_package(&entry.path(), &copy)?;
        copies.push(copy);
    }
    Ok(copies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn hap(dir: &Path, name: &str, bundle: &str) -> PathBuf {
        use std::io::Write;
        let path = dir.join(name);
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        zip.start_file("module.json", zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(format!(r#"{{"app":{{"bundleName":"{bundle}"}},"module":{{"name":"entry"}}}}"#).as_bytes())
            .unwrap();
        zip.finish().unwrap();
        path
    }

    /// A temp folder holding rein's home, a workspace and a temp folder.
    fn folders() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let (home, ws, tmp) = (dir.path().join("home"), dir.path().join("ws"), dir.path().join("tmp"));
        for d in [&home, &ws, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        (dir, home, ws, tmp)
    }

    const OK: &str = "[Info]App install path:/x.hap msg:install bundle successfully.\nAppMod finish\n";
    /// The UDID the kernel read behind the key.
    const U1: Option<&str> = Some("U1");

    #[test]
    fn only_a_bundle_read_from_the_package_rein_installed_on_that_device_is_recorded() {
        let (dir, home, ws, tmp) = folders();
        hap(&ws, "a.hap", "com.example.hello");
        let installed = Installed::new(&home, &ws);
        let line = args("-t K install -r a.hap");
        let handed = installed.hand_over(line.clone(), &ws, &tmp, U1);
        assert!(handed[4].starts_with(&tmp.display().to_string()), "hdc gets the copy: {handed:?}");
        // The package swapped after the read: the copy is what hdc sends and what was read.
        hap(&ws, "a.hap", "com.huawei.hmos.settings");
        assert_eq!(bundle_of_package(Path::new(&handed[4])).as_deref(), Some("com.example.hello"));
        let tap = args("-t K shell uitest uiInput click 1 1");
        assert!(!installed.has(&tap, U1, "com.example.hello"), "not before hdc said it went in");
        installed.observe(&line, OK);
        assert!(installed.has(&tap, U1, "com.example.hello"));
        assert!(!installed.has(&tap, U1, "com.huawei.hmos.settings"));
        assert!(!installed.has(&args("-t OTHER shell uitest uiInput click 1 1"), U1, "com.example.hello"));
        assert!(!Installed::new(&home, &dir.path().join("other")).has(&tap, U1, "com.example.hello"));
        installed.observe(
            &args("-t K uninstall com.example.hello"),
            "[Info]App uninstall path: msg:uninstall bundle successfully.\r\nAppMod finish\r\n",
        );
        assert!(!installed.has(&tap, U1, "com.example.hello"), "uninstalled");
    }

    /// Two `module.json` entries: the zip crate keeps the last of two same-named entries, the
    /// fake's installer (tests/fakes/device/src/zip.rs `Zip::entry`: `find`) and any reader
    /// that walks the central directory take the first. rein would record the bundle the
    /// device never installed.
    #[test]
    fn a_package_with_two_entries_of_one_name_names_no_bundle() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("twice.hap");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        for (name, bundle) in [("module.json", "com.example.hello"), ("module.jsoX", "com.huawei.hmos.settings")] {
            zip.start_file(name, stored).unwrap();
            zip.write_all(format!(r#"{{"app":{{"bundleName":"{bundle}"}}}}"#).as_bytes()).unwrap();
        }
        zip.finish().unwrap();
        // The second entry renamed to the first's name, in its local header and the directory.
        let mut bytes = std::fs::read(&path).unwrap();
        let at: Vec<usize> =
            bytes.windows(11).enumerate().filter(|(_, w)| w == b"module.jsoX").map(|(i, _)| i).collect();
        assert_eq!(at.len(), 2);
        for i in at {
            bytes[i + 10] = b'n';
        }
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(bundle_of_package(&path), None, "which manifest counts is up to the reader");
        let (home, ws, tmp) = (dir.path().join("home"), dir.path().join("ws"), dir.path().join("tmp"));
        for d in [&home, &ws, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::copy(&path, ws.join("a.hap")).unwrap();
        let installed = Installed::new(&home, &ws);
        let line = args("-t K install a.hap");
        installed.hand_over(line.clone(), &ws, &tmp, U1);
        installed.observe(&line, OK);
        let tap = args("-t K shell uitest uiInput click 1 1");
        assert!(!installed.has(&tap, U1, "com.huawei.hmos.settings"));
        assert!(!installed.has(&tap, U1, "com.example.hello"));
    }

    #[test]
    fn a_failed_install_records_nothing() {
        let (_dir, home, ws, tmp) = folders();
        hap(&ws, "a.hap", "com.huawei.hmos.settings");
        let installed = Installed::new(&home, &ws);
        let line = args("-t K install a.hap");
        installed.hand_over(line.clone(), &ws, &tmp, U1);
        installed.observe(&line, "[Info]App install path:/x.hap msg:error: failed to install bundle. code:9568332 error: install sign info inconsistent.\nAppMod finish\n");
        assert!(!installed.has(&args("-t K shell aa dump -l"), U1, "com.huawei.hmos.settings"));
    }

    #[test]
    fn an_install_for_whichever_device_is_connected_records_nothing_and_counts_nowhere() {
        let (_dir, home, ws, tmp) = folders();
        hap(&ws, "a.hap", "com.example.hello");
        let installed = Installed::new(&home, &ws);
        let line = args("install -r a.hap");
        installed.hand_over(line.clone(), &ws, &tmp, U1);
        installed.observe(&line, OK);
        // hdc picked a device nobody named: which one is not known afterwards.
        assert!(!installed.has(&args("shell uitest uiInput click 1 1"), U1, "com.example.hello"));
        assert!(!installed.has(&args("-t K shell uitest uiInput click 1 1"), U1, "com.example.hello"));
    }

    /// A key names a way to a device: the emulator that starts first is `127.0.0.1:5555`. An
    /// app rein installed on emulator A is not "the project's" on emulator B at the same key,
    /// nor when rein does not know which device is there; back on A it is again.
    #[test]
    fn an_install_counts_only_on_the_device_whose_udid_was_read_for_it() {
        let (_dir, home, ws, tmp) = folders();
        hap(&ws, "a.hap", "com.example.hello");
        let installed = Installed::new(&home, &ws);
        let line = args("-t 127.0.0.1:5555 install -r a.hap");
        installed.hand_over(line.clone(), &ws, &tmp, U1);
        installed.observe(&line, OK);
        let tap = args("-t 127.0.0.1:5555 shell uitest uiInput click 1 1");
        assert!(installed.has(&tap, U1, "com.example.hello"));
        assert!(!installed.has(&tap, Some("U2"), "com.example.hello"), "another device at the key");
        assert!(!installed.has(&tap, None, "com.example.hello"), "no UDID read");
        // An install whose device the kernel could not read records nothing.
        let (_dir2, home2, ws2, tmp2) = folders();
        hap(&ws2, "a.hap", "com.example.hello");
        let unread = Installed::new(&home2, &ws2);
        unread.hand_over(line.clone(), &ws2, &tmp2, None);
        unread.observe(&line, OK);
        assert!(!unread.has(&tap, U1, "com.example.hello"));
    }

    /// The record before UDIDs (device key → bundles) names no device: read as empty, never as
    /// "unreadable" (which would keep rein from recording anything again).
    #[test]
    fn the_record_without_udids_counts_for_no_device_and_is_replaced() {
        let (_dir, home, ws, tmp) = folders();
        // Built as JSON, not by format!: a Windows path's backslashes must be escaped.
        let key = ws.display().to_string();
        let old = serde_json::json!({"workspaces": {key: {"local/K": ["com.example.hello"]}}});
        std::fs::write(home.join(FILE), old.to_string()).unwrap();
        let installed = Installed::new(&home, &ws);
        let tap = args("-t K shell uitest uiInput click 1 1");
        assert!(!installed.has(&tap, U1, "com.example.hello"));
        hap(&ws, "a.hap", "com.example.hello");
        let line = args("-t K install a.hap");
        installed.hand_over(line.clone(), &ws, &tmp, U1);
        installed.observe(&line, OK);
        assert!(installed.has(&tap, U1, "com.example.hello"));
    }

    /// Two installs of one line at once (the package swapped between them): the first's answer
    /// would have taken the second's bundle, which the device refused. None of them records,
    /// nor one that starts while another of them runs; one alone again does.
    #[test]
    fn installs_of_one_line_at_once_record_nothing() {
        let (_dir, home, ws, tmp) = folders();
        let installed = Installed::new(&home, &ws);
        let line = args("-t K install a.hap");
        let spawn = |n: &str| {
            let dir = tmp.join(n);
            std::fs::create_dir(&dir).unwrap();
            installed.hand_over(line.clone(), &ws, &dir, U1);
            dir
        };
        let tap = args("-t K shell aa dump -l");
        hap(&ws, "a.hap", "com.example.hello");
        let first = spawn("1");
        hap(&ws, "a.hap", "com.huawei.hmos.settings");
        let second = spawn("2");
        std::fs::remove_dir_all(first).unwrap();
        installed.observe(&line, OK);
        assert!(!installed.has(&tap, U1, "com.huawei.hmos.settings"));
        assert!(!installed.has(&tap, U1, "com.example.hello"), "whose answer it was is not known");
        let third = spawn("3");
        std::fs::remove_dir_all(second).unwrap();
        installed.observe(&line, "[Fail]install sign info inconsistent\nAppMod finish\n");
        std::fs::remove_dir_all(third).unwrap();
        installed.observe(&line, OK);
        assert!(!installed.has(&tap, U1, "com.huawei.hmos.settings"), "the third overlapped the second");
        hap(&ws, "a.hap", "com.example.hello");
        let alone = spawn("4");
        std::fs::remove_dir_all(alone).unwrap();
        installed.observe(&line, OK);
        assert!(installed.has(&tap, U1, "com.example.hello"));
    }
}
