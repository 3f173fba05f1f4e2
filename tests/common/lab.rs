//! A workspace wired to the fake HarmonyOS toolchain (tests/fakes): the fixture project, a
//! fake-state directory the fakes find through `REIN_FAKE_STATE` (which the lab's home
//! config.toml lets through to programs, `[spawn] pass_env`, and lets them write,
//! `[spawn] writable`), and helpers to script devices and builds.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{copy_dir, run_json, toml_path, Workspace};

pub const KEY: &str = "FMR0223C13000649";
/// Where the fakes look for their state directory (tests/fakes/README.md).
pub const STATE_VAR: &str = "REIN_FAKE_STATE";

pub struct Lab {
    pub ws: Workspace,
    pub state: PathBuf,
}

/// The folder of the fake toolchain's programs. Tests find the fakes only through this,
/// [`fake`] and [`fakes_path`], so the fakes can take another form where sh and Python scripts
/// cannot run (Windows: issue 27) with one change here.
pub fn fakes_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/bin")
}

/// The fake toolchain's program `name` (`hdc`, `hvigorw`, ...).
pub fn fake(name: &str) -> PathBuf {
    fakes_bin().join(name)
}

/// The fakes first on PATH, then the test's PATH without what lives in the user's home: the
/// fakes start with the system's python (a confined program cannot run a pyenv shim in `~`, and
/// a python started through one names the shim as `sys.executable`).
pub fn fakes_path() -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let test_path = std::env::var_os("PATH").unwrap_or_default();
    let system = std::env::split_paths(&test_path).filter(|d| home.as_ref().is_none_or(|home| !d.starts_with(home)));
    let joined =
        std::env::join_paths(std::iter::once(fakes_bin()).chain(system)).expect("PATH entries without separators");
    joined.to_string_lossy().into_owned()
}

pub fn lab() -> Lab {
    let ws = Workspace::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hello-app"), &ws.ws);
    let state = ws.root.join("fake-state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(ws.root.join("tmp")).unwrap();
    let jar = ws.root.join("sdk/hap-sign-tool.jar");
    std::fs::create_dir_all(jar.parent().unwrap()).unwrap();
    std::fs::write(&jar, "").unwrap();
    std::fs::write(ws.home.join("config.toml"), fakes_config(&jar, &state)).unwrap();
    Lab { ws, state }
}

/// The home config.toml of a lab: the jar, and the fakes' state directory passed and writable.
pub fn fakes_config(jar: &Path, state: &Path) -> String {
    format!(
        "[toolchain]\nhap_sign_tool_jar = {}\n\n[spawn]\npass_env = [\"{STATE_VAR}\"]\nwritable = [{}]\n",
        toml_path(jar),
        toml_path(state)
    )
}

impl Lab {
    pub fn devices(&self, devices: Value) {
        std::fs::write(self.state.join("devices.json"), devices.to_string()).unwrap();
    }

    pub fn device(&self, key: &str, state: Value) {
        std::fs::write(self.state.join(format!("device-{key}.json")), state.to_string()).unwrap();
    }

    pub fn read_device(&self, key: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.state.join(format!("device-{key}.json"))).unwrap()).unwrap()
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

    /// `rein --json ARGS...` with the fakes first on PATH and their state in `REIN_FAKE_STATE`.
    pub fn rein(&self, all: &[&str]) -> (i32, Value) {
        run_json(&mut self.command(all), None)
    }

    pub fn command(&self, all: &[&str]) -> std::process::Command {
        let mut cmd = self.ws.command(all);
        let path = fakes_path();
        // A user home of its own: confined programs get their caches (~/.hvigor …) made there.
        let user_home = self.ws.root.join("user");
        std::fs::create_dir_all(&user_home).unwrap();
        cmd.env("PATH", path)
            .env("TMPDIR", self.ws.root.join("tmp"))
            .env(STATE_VAR, &self.state)
            .env("HOME", user_home)
            .env_remove("DEVECO_SDK_HOME");
        cmd
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

    /// Edits the device's state file (created with defaults by the fakes) in place.
    pub fn edit_device(&self, key: &str, edit: impl FnOnce(&mut Value)) {
        let path = self.state.join(format!("device-{key}.json"));
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

/// The step called `name` of a report.
pub fn step<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {report}"))
}
