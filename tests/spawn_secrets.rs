//! What a build script (the project's `hvigorfile.ts`, run by the fake hvigorw as the real one
//! runs it) must not learn: DevEco's signing material, a signing password through the output
//! scrubber, a signing running beside it, secret files under `/etc` when rein runs as root.

use serde_json::{json, Value};

use crate::common::lab::{lab, Lab, HVIGOR_SIGNS};
use crate::containment::build_script;

/// A lab where the person did not let hvigorw read `~/.ohos/config` (rein's default).
fn lab_without_hvigor_signing() -> Option<Lab> {
    let lab = lab()?;
    let config = lab.ws.home.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace(HVIGOR_SIGNS, "")).unwrap();
    Some(lab)
}

/// findings/07: a plain `hvigor_build` (allowed without asking) copied `~/.ohos/config` into the
/// workspace, where the agent read the decrypted passwords.
#[test]
fn a_build_script_cannot_copy_devecos_signing_material() {
    let Some(lab) = lab_without_hvigor_signing() else { return };
    build_script(&lab, "mkdir -p entry/src/loot && cp -r \"$HOME/.ohos/config/.\" entry/src/loot/ || true");
    let (_, out) = lab.call(&[], "hvigor_build", json!({}));
    assert!(lab.user_home().join(".ohos/config/material/passwords.json").exists(), "the material is there");
    assert!(
        !lab.ws.path("entry/src/loot/material/passwords.json").exists(),
        "the build copied DevEco's signing material: {out}"
    );
}

/// findings/13: as root (CI, containers) a spawn read `/etc/shadow` (capabilities dropped, but
/// uid 0 owns it and `/etc` is granted).
#[test]
fn a_build_script_cannot_read_secret_files_under_etc() {
    let Some(lab) = lab() else { return };
    build_script(
        &lab,
        "for f in /etc/shadow /etc/gshadow /etc/sudoers; do if head -c1 \"$f\" >/dev/null 2>&1; then echo \"$f\" >> entry/src/read.txt; fi; done\nhead -c1 /etc/passwd >/dev/null && echo passwd > entry/src/passwd.txt",
    );
    lab.build();
    assert!(lab.ws.path("entry/src/passwd.txt").exists(), "the rest of /etc stays readable");
    let read = std::fs::read_to_string(lab.ws.path("entry/src/read.txt")).unwrap_or_default();
    assert_eq!(read, "", "a build script read secret files under /etc");
}

/// The agent's tool: signs while its build runs. The build waits until it has started scanning
/// before the signing starts, so without the fix the two overlap for certain.
const BESIDE: &str = r#"return { name = "beside", description = "sign beside a build", params = {}, run = function()
  local lines = {}
  local r = rein.parallel({
    function()
      local waited = 0
      while not rein.fs.exists("entry/src/scanning") and waited < 600 do rein.sleep(50); waited = waited + 1 end
      return rein.tool("hap_sign", { hap = "entry/build/default/outputs/default/entry-default-unsigned.hap" })
    end,
    function()
      return rein.proc.run("hvigorw", { "--mode", "module", "-p", "product=default", "assembleHap", "--no-daemon" },
        { on_line = function(line) lines[#lines + 1] = line end })
    end,
  })
  return { signed = r[1].ok, build = r[2].ok, lines = lines }
end }
"#;

/// The build prints the password (which it could have guessed) while it looks for a signing of
/// this rein (java's argument file lies in rein's TMPDIR) in the process table, for at most 10 s.
const GUESSER: &str = r#"
touch entry/src/scanning
i=0; seen=no
while [ $i -lt 200 ]; do
  echo "guess @PW@"
  for p in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null < $p/cmdline | grep -q '[@]@TMP@/rein-spawn-.*java-argument[s]'; then seen=yes; fi
  done
  [ $seen = yes ] && break
  sleep 0.05; i=$((i+1))
done
echo "signing seen: $seen"
"#;

/// findings/10: the scrubber replaced every live secret in every program's output, so a build
/// beside a signing learned the password by printing guesses and watching for `***`. Now no
/// program of the workspace runs while signing passwords are live, and a program's output loses
/// only its own secrets.
#[test]
fn a_build_beside_a_signing_neither_runs_with_it_nor_learns_its_password() {
    let Some(lab) = lab() else { return };
    lab.configure(
        "\n[signing.default]\nkeystore_password_env = \"REIN_T_STORE_PW\"\nkey_password_env = \"REIN_T_KEY_PW\"\n",
    );
    lab.build();
    let password = crate::common::signing::STORE_PASSWORD;
    build_script(&lab, &GUESSER.replace("@PW@", password).replace("@TMP@", &lab.tmp().display().to_string()));
    lab.ws.file("tools/beside.lua", BESIDE);
    let mut cmd = lab.command(&["call", "beside", "{}"]);
    cmd.env("REIN_T_STORE_PW", password).env("REIN_T_KEY_PW", crate::common::signing::KEY_PASSWORD);
    let (status, out) = crate::common::run_json(&mut cmd, None);
    assert_eq!(status, 0, "{out}");
    let result = &out["result"];
    assert_eq!((&result["signed"], &result["build"]), (&json!(true), &json!(true)), "{out}");
    let lines: Vec<&str> = result["lines"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(lines.contains(&"signing seen: no"), "a signing ran beside the build: {lines:?}");
    assert!(!lines.iter().any(|l| l.contains("***")), "the build's output was scrubbed of the signing's password");
}
