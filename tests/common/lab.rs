//! A workspace wired to the fake HarmonyOS toolchain (tests/fakes): the fixture project with
//! real signing material (made by the real hap-sign-tool, `signing.rs`), a fake-state
//! directory the fakes find through `REIN_FAKE_STATE` (which the lab's home config.toml lets
//! through to programs, `[spawn] pass_env`, and lets them write, `[spawn] writable`), and
//! helpers to script devices and builds. Signing is real: rein's hap-sign-tool is the real jar
//! run by the real java, and so is the fake hvigorw's SignHap.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::{json, Value};

use super::signing::{self, Material};
use super::{copy_dir, real_tools, run_json, toml_path, Workspace};

pub const KEY: &str = "FMR0223C13000649";
/// Where the fakes look for their state directory (tests/fakes/README.md).
pub const STATE_VAR: &str = "REIN_FAKE_STATE";
/// Home config.toml's line by which a person lets hvigorw (and so the project's build script)
/// read DevEco's signing material in `~/.ohos/config`: the lab's fixture signs in its build.
pub const HVIGOR_SIGNS: &str = "hvigor_reads_signing_material = true\n";

pub struct Lab {
    pub ws: Workspace,
    pub state: PathBuf,
    pub material: &'static Material,
    /// What every rein command of this lab gets besides (a test rig's network, `rig.rs`).
    pub around: Option<Around>,
}

/// A change to every command a lab runs.
pub type Around = Arc<dyn Fn(&mut Command) + Send + Sync>;

/// The folder of the fake toolchain's programs (`hdc`, `hvigorw`, `ohpm` and
/// `rein-fake-device`, with `.exe` on Windows: tests/fakes/README.md). Tests find the fakes only
/// through this, [`fake`] and [`fakes_path`].
pub fn fakes_bin() -> PathBuf {
    real_tools::fake_toolchain_dir().to_path_buf()
}

/// The fake toolchain's program `name` (`hdc`, `hvigorw`, ...).
pub fn fake(name: &str) -> PathBuf {
    fakes_bin().join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The fakes first on PATH, then the test's PATH without what lives in the user's home (a
/// confined program cannot run what is there, so a tool found there would fail in a way no
/// user's setup does).
pub fn fakes_path() -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let test_path = std::env::var_os("PATH").unwrap_or_default();
    let system = std::env::split_paths(&test_path).filter(|d| home.as_ref().is_none_or(|home| !d.starts_with(home)));
    let joined =
        std::env::join_paths(std::iter::once(fakes_bin()).chain(system)).expect("PATH entries without separators");
    joined.to_string_lossy().into_owned()
}

/// The name of the running test (the test harness names each test's thread after it).
pub fn test_name() -> String {
    std::thread::current().name().unwrap_or("a test").to_string()
}

/// The fixture in a fresh workspace, with real signing material in place of its placeholder
/// files; `None` (after saying why) when the real hap-sign-tool cannot run here.
pub fn lab() -> Option<Lab> {
    lab_of("hello-app")
}

/// [`lab`] with another fixture of tests/fixtures (`multi-app`: an entry, a feature HAP, an HSP).
pub fn lab_of(fixture: &str) -> Option<Lab> {
    let material = signing::material(&test_name())?;
    let ws = Workspace::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture), &ws.ws);
    for file in ["debug.p12", "debug.cer", "debug.p7b"] {
        std::fs::copy(material.dir.join(file), ws.path("signing").join(file)).unwrap();
    }
    let state = ws.root.join("fake-state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(ws.root.join("tmp")).unwrap();
    std::fs::write(ws.home.join("config.toml"), fakes_config(material, &state)).unwrap();
    let lab = Lab { ws, state, material, around: None };
    lab.deveco_decrypts();
    Some(lab)
}

/// The entry HAP the fake hvigorw builds and signs in a lab, relative to the workspace.
pub const SIGNED_HAP: &str = "entry/build/default/outputs/default/entry-default-signed.hap";

/// A lab with one device on which the fixture app is built, signed and installed: where the
/// launch and readiness tests start.
pub fn installed_lab() -> Option<Lab> {
    let lab = lab()?;
    lab.one_device();
    lab.build();
    lab.ok(&["--yes"], "app_install", serde_json::json!({"hap": SIGNED_HAP}));
    Some(lab)
}

/// The home config.toml of a lab: the real jar and java, and the fakes' state directory passed
/// and writable. It ends in `[toolchain]`'s table is closed: more sections may follow.
pub fn fakes_config(material: &Material, state: &Path) -> String {
    format!(
        "[toolchain]\nhap_sign_tool_jar = {}\njava = {}\n\n[spawn]\npass_env = [\"{STATE_VAR}\"]\nwritable = [{}]\n{HVIGOR_SIGNS}",
        toml_path(&material.jar),
        toml_path(&material.java),
        toml_path(state)
    )
}

impl Lab {
    pub fn devices(&self, devices: Value) {
        std::fs::write(self.state.join("devices.json"), devices.to_string()).unwrap();
    }

    pub fn device(&self, key: &str, state: Value) {
        std::fs::write(self.state.join(device_file(key)), state.to_string()).unwrap();
    }

    /// Where the fake device `key` keeps its files (its `/`).
    pub fn device_root(&self, key: &str) -> PathBuf {
        self.state.join(format!("device-{}.fs", safe_key(key)))
    }

    pub fn read_device(&self, key: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.state.join(device_file(key))).unwrap()).unwrap()
    }

    pub fn scenario(&self, scenario: Value) {
        std::fs::write(self.state.join("scenario.json"), scenario.to_string()).unwrap();
    }

    pub fn calls(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.state.join("calls.log")).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    pub fn call(&self, flags: &[&str], tool: &str, args: Value) -> (i32, Value) {
        let payload = args.to_string();
        let mut all: Vec<&str> = flags.to_vec();
        all.extend(["call", tool, payload.as_str()]);
        self.rein(&all)
    }

    /// `rein --json ARGS...` with the fakes first on PATH and their state reached via TMPDIR.
    pub fn rein(&self, all: &[&str]) -> (i32, Value) {
        run_json(&mut self.command(all), None)
    }

    pub fn command(&self, all: &[&str]) -> Command {
        self.command_in(&self.ws.ws, all)
    }

    /// [`Lab::command`] on another workspace `ws` (another worktree) with this lab's home.
    pub fn command_in(&self, ws: &Path, all: &[&str]) -> Command {
        let mut cmd = Command::new(super::REIN);
        cmd.arg("--workspace").arg(ws).arg("--home").arg(&self.ws.home).arg("--json").args(all);
        cmd.env_remove("REIN_HOME").env_remove("REIN_LOG");
        cmd.envs(self.env()).env_remove("DEVECO_SDK_HOME");
        if let Some(around) = &self.around {
            around(&mut cmd);
        }
        cmd
    }

    /// The lab's rein TMPDIR (the fakes' state lives in it).
    pub fn tmp(&self) -> PathBuf {
        self.ws.root.join("tmp")
    }

    /// Names a program in home config.toml's `[toolchain]` (as the person who owns home would).
    pub fn toolchain(&self, program: &str, path: &Path) {
        let file = self.ws.home.join("config.toml");
        let config = std::fs::read_to_string(&file).unwrap();
        let named = format!("[toolchain]\n{program} = {}\n", toml_path(path));
        std::fs::write(file, config.replacen("[toolchain]\n", &named, 1)).unwrap();
    }

    /// Appends `text` to home config.toml (as the person who owns home would).
    pub fn configure(&self, text: &str) {
        let path = self.ws.home.join("config.toml");
        let mut config = std::fs::read_to_string(&path).unwrap_or_default();
        config.push_str(text);
        std::fs::write(path, config).unwrap();
    }

    /// The environment rein runs with in this lab: the fakes first on PATH, TMPDIR (where the
    /// fakes keep their state), a user home of its own (confined programs get their caches,
    /// ~/.hvigor …, made there; DevEco's material is there), the real JDK, and an SDK holding
    /// the real hap-sign-tool (where the fake hvigorw finds it, as hvigor does).
    pub fn env(&self) -> Vec<(&'static str, PathBuf)> {
        std::fs::create_dir_all(self.user_home()).unwrap();
        let env = vec![
            ("PATH", PathBuf::from(fakes_path())),
            ("TMPDIR", self.tmp()),
            (STATE_VAR, self.state.clone()),
            ("HOME", self.user_home()),
            ("OHOS_BASE_SDK_HOME", self.material.sdk.clone()),
            ("JAVA_HOME", self.material.java_home.clone()),
        ];
        env
    }

    /// The user home the lab's programs get (`HOME`).
    pub fn user_home(&self) -> PathBuf {
        self.ws.root.join("user")
    }

    /// What DevEco's material under `~/.ohos/config` lets hvigor decrypt: the fixture's
    /// ciphertext passwords are the material's plaintext ones (tests/fakes/README.md "hvigorw").
    fn deveco_decrypts(&self) {
        let profile = std::fs::read_to_string(self.ws.path("build-profile.json5")).unwrap();
        let cipher = |field: &str| {
            let at = profile.find(&format!("\"{field}\"")).unwrap_or_else(|| panic!("no {field} in the fixture"));
            profile[at..].split('"').nth(3).unwrap().to_string()
        };
        let known =
            json!({cipher("storePassword"): signing::STORE_PASSWORD, cipher("keyPassword"): signing::KEY_PASSWORD});
        let dir = self.user_home().join(".ohos/config/material");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("passwords.json"), known.to_string()).unwrap();
    }

    /// The real hap-sign-tool's `verify-app` of a workspace package: its output (stdout then
    /// stderr); `verify-app success` when the signature holds.
    pub fn verify_app(&self, rel: &str) -> String {
        let out_dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(&self.material.java)
            .arg("-jar")
            .arg(&self.material.jar)
            .args(["verify-app", "-inFile"])
            // Not the verbatim `\\?\C:\…` the workspace's canonical path is on Windows:
            // hap-sign-tool's java.nio refuses it (InvalidPathException: Illegal character [?]).
            .arg(rein::visible::shown_path(self.ws.path(rel)))
            .arg("-outCertChain")
            .arg(out_dir.path().join("chain.cer"))
            .arg("-outProfile")
            .arg(out_dir.path().join("profile.p7b"))
            .output()
            .unwrap();
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }

    /// Who the device says signed a package signed with the lab's material.
    pub fn signer(&self) -> &'static str {
        &self.material.signer
    }

    pub fn ok(&self, flags: &[&str], tool: &str, args: Value) -> Value {
        let (status, out) = self.call(flags, tool, args);
        assert_eq!(status, 0, "{tool}: {out}");
        out["result"].clone()
    }

    pub fn failed(&self, flags: &[&str], tool: &str, args: Value, code: &str) -> Value {
        let (status, out) = self.call(flags, tool, args);
        assert_eq!((status, out["error"]["code"].as_str()), (1, Some(code)), "{tool}: {out}");
        out["error"].clone()
    }

    pub fn one_device(&self) {
        self.devices(json!([{"key": KEY, "name": "phone"}]));
    }

    pub fn build(&self) -> Value {
        self.ok(&[], "hvigor_build", json!({}))
    }

    /// `rein --json [flags] recipe NAME ARGS`.
    pub fn recipe(&self, flags: &[&str], name: &str, args: Value) -> (i32, Value) {
        let payload = args.to_string();
        let mut all: Vec<&str> = flags.to_vec();
        all.extend(["recipe", name, payload.as_str()]);
        self.rein(&all)
    }

    /// The report.json of the run `out` (a `--json recipe` answer) names; report.md must exist.
    pub fn report(&self, out: &Value) -> Value {
        let run_id = out["result"]["run_id"].as_str().or(out["error"]["details"]["run_id"].as_str()).expect("a run id");
        let dir = self.ws.path(&format!(".rein/runs/{run_id}"));
        assert!(dir.join("report.md").exists(), "{} has a report.md", dir.display());
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
    }

    /// The report.md of the run `out` names.
    pub fn report_md(&self, out: &Value) -> String {
        let run_id = out["result"]["run_id"].as_str().or(out["error"]["details"]["run_id"].as_str()).expect("a run id");
        std::fs::read_to_string(self.ws.path(&format!(".rein/runs/{run_id}/report.md"))).unwrap()
    }

    /// The programs the fakes were run as, in order, each as its argv joined with spaces. For
    /// hdc, the command after the `-p` rein puts first on every hdc command line (never start
    /// a server: src/kernel/process/hdc_server.rs), which this checks is there.
    pub fn command_lines(&self, program: &str) -> Vec<String> {
        self.calls()
            .iter()
            .filter(|c| c["program"] == program)
            .map(|c| c["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect::<Vec<_>>().join(" "))
            .map(|line| match program {
                "hdc" => line.strip_prefix("-p ").unwrap_or_else(|| panic!("hdc ran without -p: {line}")).to_string(),
                _ => line,
            })
            .collect()
    }

    /// The command lines (as the journal shows them, secrets redacted) of every `program` rein
    /// started: spawns that ran, not ones refused before the program started.
    pub fn ran(&self, program: &str) -> Vec<String> {
        super::journal_text(&self.ws.ws)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|e| e["action"] == "spawn" && e.get("exit_code").is_some())
            .filter_map(|e| e["target"].as_str().map(String::from))
            .filter(|target| target.split(' ').next() == Some(program))
            .collect()
    }

    /// Edits the device's state file (created with defaults by the fakes) in place.
    pub fn edit_device(&self, key: &str, edit: impl FnOnce(&mut Value)) {
        let path = self.state.join(device_file(key));
        let mut state: Value =
            std::fs::read_to_string(&path).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(json!({}));
        edit(&mut state);
        std::fs::write(path, state.to_string()).unwrap();
    }

    /// Rewrites a workspace file with `from` replaced by `to` (which must occur).
    pub fn replace_in(&self, rel: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.ws.path(rel)).unwrap();
        assert!(text.contains(from), "{rel} has no {from:?}");
        std::fs::write(self.ws.path(rel), text.replacen(from, to, 1)).unwrap();
    }
}

/// `device-<key>.json` as the fakes name it (tests/fakes/README.md "State directory").
pub fn device_file(key: &str) -> String {
    format!("device-{}.json", safe_key(key))
}

/// `<key>` in the fakes' file names: upper-case letters, digits, `.` and `-` as they are, any
/// other character as `_<hex code>_` (the fake's `device::safe_key`).
fn safe_key(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            'A'..='Z' | '0'..='9' | '.' | '-' => c.to_string(),
            _ => format!("_{:x}_", u32::from(c)),
        })
        .collect()
}

/// The step called `name` of a report.
pub fn step<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {report}"))
}
