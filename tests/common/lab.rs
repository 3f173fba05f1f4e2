//! A workspace wired to the fake HarmonyOS toolchain (tests/fakes): the fixture project, a
//! fake-state directory reached through TMPDIR, and helpers to script devices and builds.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{copy_dir, run_json, Workspace};

pub const KEY: &str = "FMR0223C13000649";

pub struct Lab {
    pub ws: Workspace,
    pub state: PathBuf,
}

pub fn fakes_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/bin")
}

pub fn lab() -> Lab {
    let ws = Workspace::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hello-app"), &ws.ws);
    let state = ws.root.join("tmp/rein-fake-state");
    std::fs::create_dir_all(&state).unwrap();
    let jar = ws.root.join("sdk/hap-sign-tool.jar");
    std::fs::create_dir_all(jar.parent().unwrap()).unwrap();
    std::fs::write(&jar, "").unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhap_sign_tool_jar = \"{}\"\n", jar.display()))
        .unwrap();
    Lab { ws, state }
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

    /// `rein --json ARGS...` with the fakes first on PATH and their state reached via TMPDIR.
    pub fn rein(&self, all: &[&str]) -> (i32, Value) {
        run_json(&mut self.command(all), None)
    }

    pub fn command(&self, all: &[&str]) -> std::process::Command {
        let mut cmd = self.ws.command(all);
        let path = format!("{}:{}", fakes_bin().display(), std::env::var("PATH").unwrap_or_default());
        cmd.env("PATH", path).env("TMPDIR", self.ws.root.join("tmp")).env_remove("DEVECO_SDK_HOME");
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
}
