//! The HarmonyOS toolchain as the kernel sees it: [`Harmony`], its
//! [`ToolchainProfile`](crate::kernel::process::toolchain::ToolchainProfile). Each answer is
//! one call into the room's own modules: the programs (`programs`, `toolchain`), their
//! grammars (`grammar`), confinement table (`confinement`), signing passwords (`signing`,
//! `keystore_pins`), the hdc server check (`hdc_server`), device leases (`lease`), received
//! files (`received`), DevEco's environment (`deveco_env`) and java's argument file
//! (`java_args`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::hdc_servers::{normalize, HdcServers};
use super::programs::{decide_spawn, Program};
use super::project::ProjectFacts;
use super::signing::{self, SigningSecrets};
use super::toolchain::{Located, Toolchain};
use super::{
    confinement, deveco_env, device_identity, grammar, hdc_server, installed, java_args, keystore_pins, lease,
    ui_input, ui_screens,
};
use crate::kernel::policy::shapes::Effect;
use crate::kernel::policy::Decision;
use crate::kernel::process::env::ToolchainVars;
use crate::kernel::process::grants::{Profile, SpawnFacts};
use crate::kernel::process::sockets::SocketKind;
use crate::kernel::process::toolchain::{BeforeDecide, BeforeSpawn, Found, Missing, Spawn, ToolchainProfile};
use crate::kernel::{Kernel, KernelError, PathClass};

/// What rein knows of this machine's HarmonyOS toolchain and the person's settings for it.
#[derive(Debug, Clone, Default)]
pub struct Harmony {
    /// Where hvigorw, hdc, ohpm and hap-sign-tool are (and the programs a person added).
    pub toolchain: Toolchain,
    /// Where the signing passwords come from.
    pub signing: SigningSecrets,
    /// The hdc servers that are the person's own (the local one and home config's labs).
    pub servers: HdcServers,
    /// How long a call waits for a device another run holds (default `lease::DEFAULT_WAIT`).
    pub lease_wait: Option<Duration>,
    /// A person lets hvigorw read DevEco's signing material (`~/.ohos/config`).
    pub hvigor_reads_signing_material: bool,
    /// What rein last saw in front of each device (screen input rests on it: `ui_input`).
    pub foregrounds: ui_input::Foregrounds,
    /// The apps rein itself installed on each device: the project's own (`installed`).
    pub installed: installed::Installed,
    /// The screen rein itself last read on each device (screen input lands on it: `ui_screens`).
    pub screens: ui_screens::Screens,
    /// Which device the kernel last read behind each key (`device_identity`).
    pub identities: device_identity::Identities,
}

/// The HarmonyOS profile `kernel` spawns with, if it is one.
pub fn of(kernel: &Kernel) -> Option<&Harmony> {
    kernel.spawn_profile().as_any().downcast_ref::<Harmony>()
}

fn nothing() -> &'static Harmony {
    static NOTHING: OnceLock<Harmony> = OnceLock::new();
    NOTHING.get_or_init(Harmony::default)
}

impl Kernel {
    /// The HarmonyOS toolchain this kernel spawns (empty when it spawns with another profile).
    pub fn toolchain(&self) -> &Toolchain {
        &of(self).unwrap_or(nothing()).toolchain
    }

    /// The hdc servers that are the person's own (`hdc_servers`).
    pub fn hdc_servers(&self) -> &HdcServers {
        &of(self).unwrap_or(nothing()).servers
    }

    /// What a script may know about a signing config's passwords: which variables, whether they
    /// are set and usable — never their values.
    pub fn signing_status(&self, config: &str) -> signing::SigningStatus {
        let env = |name: &str| std::env::var(name).ok();
        let signing = &of(self).unwrap_or(nothing()).signing;
        signing.status(config, &env, self.scope().workspace(), &|| self.build_profile_text())
    }
}

/// hvigor's user home for this workspace: `HVIGOR_USER_HOME`, which hvigor documents
/// (developer.huawei.com, "ide-hvigor-path": where `.hvigor` lives instead of `~/.hvigor`).
/// One per workspace, under the person's cache (`~/.cache/rein/hvigor/<hash of the workspace
/// path>`), so what one project's build plants there never runs in another project's build, nor
/// in DevEco Studio's, which keep using `~/.hvigor`.
fn hvigor_home(env: &[(String, String)], workspace: &Path) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    let home = env.iter().find(|(name, _)| name == "HOME").map(|(_, v)| PathBuf::from(v))?;
    if !home.is_absolute() {
        return None;
    }
    let digest = Sha256::digest(workspace.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Some(home.join(".cache/rein/hvigor").join(hex))
}

/// How long the kernel waits for `bm get -u` (an hdc round trip).
const IDENTITY_READ_MS: u64 = 15_000;

fn found(located: &Located) -> Found {
    Found { path: located.path.clone(), runs_first: located.script.iter().chain(&located.jar).cloned().collect() }
}

impl Harmony {
    /// Whether `bundle` is the project's own app on the device the hdc command line `args`
    /// names: one rein itself installed there (`installed`), never the bundle name the
    /// workspace's settings give (the agent writes them). Screen input on it and its tests
    /// (`aa test`) run unasked; anything else a person decides.
    ///
    /// The device is the one behind the key when rein installed it: the UDID the kernel read
    /// before this decision (`before_decide`) is the one it read at the install.
    fn is_own(&self, args: &[String], bundle: &str) -> bool {
        self.installed.has(args, self.identities.current(args).as_deref(), bundle)
    }

    /// Reads the UDID behind the device `spawn` names (`device_identity`), through the kernel:
    /// what the device prints is kept by `observe`; a read that fails leaves it unknown.
    async fn read_identity(&self, spawn: &Spawn<'_>) {
        let Some(line) = device_identity::read_line(spawn.args) else { return };
        self.identities.forget(spawn.args);
        let read = spawn.kernel.look(spawn.call, spawn.program, line, IDENTITY_READ_MS).await;
        if let Err(e) = read {
            tracing::debug!("rein could not read which device is behind {:?}: {e}", spawn.args);
        }
    }

    /// Holds the device the hdc command line names for the rest of the call (`lease`).
    async fn hold_device(&self, spawn: &Spawn<'_>) -> Result<(), KernelError> {
        let Some(device) = grammar::hdc::device_of(spawn.args) else { return Ok(()) };
        let local = format!("127.0.0.1:{}", self.servers.local_port());
        let server = device.server.as_deref().map(normalize).unwrap_or(local);
        let wait = self.lease_wait.unwrap_or(lease::DEFAULT_WAIT);
        let (home, workspace) = (spawn.kernel.scope().home(), spawn.kernel.scope().workspace());
        lease::take(spawn.call, home, workspace, &server, &device, wait).await
    }

    fn located(&self, program: &str) -> Option<&Located> {
        self.toolchain.get(&Program::parse(program)).and_then(|found| found.as_ref().ok())
    }
}

impl ToolchainProfile for Harmony {
    fn locate(&self, program: &str) -> Option<Result<Found, Missing>> {
        let entry = self.toolchain.get(&Program::parse(program))?;
        Some(
            entry
                .as_ref()
                .map(found)
                .map_err(|missing| Missing { tried: missing.tried.clone(), fix: missing.fix.clone() }),
        )
    }

    fn decide(
        &self,
        program: &str,
        args: &[String],
        cwd: PathClass,
        classify: &dyn Fn(&str) -> PathClass,
        workspace_text: &dyn Fn(&str) -> Option<String>,
    ) -> Decision {
        // The project's bundle for `aa test` counts as its own only as UI input's does.
        let project = || {
            let (app, profile) = (workspace_text("AppScope/app.json5"), workspace_text("build-profile.json5"));
            let mut facts = ProjectFacts::from_texts(app.as_deref(), profile.as_deref());
            facts.bundle = facts.bundle.filter(|bundle| self.is_own(args, bundle));
            facts
        };
        let program = Program::parse(program);
        if program == Program::Hdc {
            self.screens.before(args);
        }
        let decision = decide_spawn(&program, args, cwd, classify, &self.servers, &project);
        // Screen input on the project's own app, just seen in front of that device, is the
        // project's code at work; anything else on the screen (and Power) a person decides.
        let touch = (program == Program::Hdc).then(|| ui_input::touch(args)).flatten();
        match (decision, touch) {
            (Decision::Ask, Some(false)) => {
                // The project's own ([`Harmony::is_own`]), in front as `aa dump -l` says, and
                // under the input on the screen rein read (a system dialog or the shade over
                // the app leaves `aa dump -l` unchanged).
                let own = |bundle: &str| self.is_own(args, bundle);
                let in_front = self.foregrounds.in_front(args).unwrap_or_default();
                let lands = self.screens.fresh(args).is_some_and(|s| ui_input::lands_within(args, &s, &own));
                if lands && !in_front.is_empty() && in_front.iter().all(|b| own(b)) {
                    Decision::Allow
                } else {
                    Decision::Ask
                }
            }
            (decision, _) => decision,
        }
    }

    fn observe(&self, program: &str, args: &[String], output: &crate::kernel::process::spawn::SpawnOutput) {
        if Program::parse(program) == Program::Hdc {
            self.foregrounds.observe(args, &output.stdout);
            self.identities.observe(args, &output.stdout);
            self.installed.observe(args, &output.stdout);
            self.screens.observe(args, &output.stdout);
        }
    }

    fn grants(&self, program: &str, found: &Found, facts: &SpawnFacts) -> Profile {
        let hdc: Vec<PathBuf> = match self.toolchain.get(&Program::Hdc) {
            Some(Ok(hdc)) => std::iter::once(hdc.path.clone()).chain(std::fs::canonicalize(&hdc.path)).collect(),
            _ => Vec::new(),
        };
        let located = self.located(program);
        let places = confinement::SpawnPlaces {
            workspace: facts.workspace,
            rein_home: facts.rein_home,
            program: &found.path,
            // A script is read like a jar (never on Linux today: DevEco layouts are macOS/Windows).
            jar: located.and_then(|l| l.jar.as_deref().or(l.script.as_deref())),
            env: facts.env,
            outside_args: facts.outside_args.clone(),
            approved_writes: facts.approved_writes,
            args: facts.args,
            extra_ports: facts.extra_ports,
            writable: facts.writable,
            hdc: &hdc,
            protected: facts.protected,
            hvigor_reads_signing_material: self.hvigor_reads_signing_material,
        };
        confinement::profile(&Program::parse(program), &places, facts.entries)
    }

    fn is_persons_own(&self, program: &str) -> bool {
        matches!(Program::parse(program), Program::Other(_))
    }

    fn secret_flags(&self) -> &[&'static str] {
        &signing::PASSWORD_FLAGS
    }

    /// The SDK's, Java's and node's homes, and hdc's and the SDK's own variables.
    fn passed_env(&self) -> ToolchainVars {
        ToolchainVars { names: &["JAVA_HOME", "NODE_HOME", "DEVECO_SDK_HOME"], prefixes: &["OHOS_", "HDC_"] }
    }

    /// ohpm's dependencies and hvigor's caches.
    fn bulky_dirs(&self) -> &[&'static str] {
        &["oh_modules", ".hvigor"]
    }

    fn build_scripts(&self) -> &'static str {
        "the project's build scripts (hvigorfile.ts, package scripts)"
    }

    fn effect(&self, program: &str, args: &[String]) -> Effect {
        super::programs::effect_of(&Program::parse(program), args)
    }

    fn why_asked(&self, program: &str, args: &[String], outside: bool) -> String {
        let program = Program::parse(program);
        if program == Program::Hdc && ui_input::touch(args).is_some() {
            return super::ui_question::why_touch(args, &self.foregrounds, &self.screens);
        }
        super::why_asked::why_asked(&program, args, outside)
    }

    fn may_keep(&self, program: &str, args: &[String]) -> bool {
        Program::parse(program) == Program::Emulator && super::grammar::emulator::may_keep(args)
    }

    fn kept_stop(&self, program: &str, args: &[String]) -> Option<Vec<String>> {
        (Program::parse(program) == Program::Emulator).then(|| super::grammar::emulator::kept_stop(args)).flatten()
    }

    fn fallback_of(&self, program: &str, args: &[String]) -> Option<Vec<String>> {
        super::fallbacks::fallback_of(&Program::parse(program), args)
    }

    fn sockets(&self, program: &str) -> Vec<SocketKind> {
        confinement::sockets(&Program::parse(program))
    }

    fn datagram_programs(&self) -> Vec<String> {
        confinement::datagram_programs().iter().map(|program| program.name().to_string()).collect()
    }

    fn known(&self) -> String {
        "hvigorw, hdc, ohpm, hap-sign-tool, codelinter, DevEco's Emulator and hstack".to_string()
    }

    fn deadline(&self, program: &str, args: &[String]) -> (Duration, Duration) {
        let secs = |default: u64, cap: u64| (Duration::from_secs(default), Duration::from_secs(cap));
        match Program::parse(program) {
            Program::Hvigorw => secs(900, 3600),
            Program::Hdc if args.iter().any(|a| a == "install") => secs(120, 600),
            // A device's whole test run (its own `-w` ends it sooner).
            Program::Hdc if grammar::hdc::runs_tests(args) => secs(600, 3600),
            _ => secs(60, 600),
        }
    }

    fn prepare_args(
        &self,
        spawn: &Spawn,
        args: Vec<String>,
        secret: Option<&str>,
        resolve: &dyn Fn(&str) -> Option<PathBuf>,
    ) -> Result<Vec<String>, KernelError> {
        let env = |name: &str| std::env::var(name).ok();
        let profile = || spawn.kernel.build_profile_text();
        let place = signing::Place { workspace: spawn.kernel.scope().workspace(), profile: &profile, resolve };
        Ok(self.signing.prepare(spawn.program, args, secret, &env, place)?)
    }

    fn withholds_env(&self, name: &str) -> bool {
        self.signing.withholds(name)
    }

    fn admit(&self, spawn: &Spawn, decision: &Decision) -> Option<String> {
        // Into the transit folder only a name this call reserved, received once (`received`).
        let allowed = matches!(decision, Decision::Allow | Decision::Ask);
        if !allowed || Program::parse(spawn.program) != Program::Hdc {
            return None;
        }
        spawn.kernel.admit_recv(spawn.call, spawn.args)?.err().map(|refused| refused.to_string())
    }

    /// Screen input and a test run may run unasked on the project's own app: which device is
    /// behind the key is read first (`is_own`), once the device is the call's. Read before
    /// waiting for it, the input was decided on emulator A and sent, after another run's
    /// install, to emulator B come up at the key meanwhile.
    fn before_decide<'a>(&'a self, spawn: Spawn<'a>) -> BeforeDecide<'a> {
        let hdc = Program::parse(spawn.program) == Program::Hdc;
        let rests_on_it = hdc && (ui_input::touch(spawn.args) == Some(false) || grammar::hdc::runs_tests(spawn.args));
        Box::pin(async move {
            if rests_on_it {
                self.hold_device(&spawn).await?;
                self.read_identity(&spawn).await;
            }
            Ok(())
        })
    }

    /// Holds the device an hdc command changes for the rest of the call (see `lease`); for an
    /// install, then reads which device is behind the key (`installed` records it).
    fn before_spawn<'a>(&'a self, spawn: Spawn<'a>, decision: &Decision) -> BeforeSpawn<'a> {
        // A change to the device, or a test run (allowed, but it holds the device for long).
        let changes = Program::parse(spawn.program) == Program::Hdc
            && (*decision != Decision::Allow
                || grammar::hdc::runs_tests(spawn.args)
                // uitest calls on one device block each other (shared/HARMONY-VERIFY.md §3.1).
                || ui_input::runs_uitest(spawn.args));
        let installs = Program::parse(spawn.program) == Program::Hdc
            && matches!(grammar::hdc::command_of(spawn.args), Some(("install", _)));
        Box::pin(async move {
            if changes {
                self.hold_device(&spawn).await?;
            }
            // Within the lease: no other run of rein's changes the device before the install.
            if installs {
                self.read_identity(&spawn).await;
            }
            Ok(())
        })
    }

    fn check(&self, program: &str, args: &[String], env: &[(String, String)]) -> Result<(), KernelError> {
        match Program::parse(program) {
            Program::Hdc => Ok(hdc_server::check(args, env)?),
            _ => Ok(()),
        }
    }

    fn adjust_env(&self, program: &str, found: &Found, env: &mut Vec<(String, String)>, workspace: &Path) {
        if Program::parse(program) != Program::Hvigorw {
            return;
        }
        let script = self.located(program).and_then(|located| located.script.as_deref());
        let from_deveco = deveco_env::for_hvigor(&found.path, script, env);
        env.extend(from_deveco);
        if let Some(home) = hvigor_home(env, workspace) {
            env.retain(|(name, _)| name != "HVIGOR_USER_HOME");
            env.push(("HVIGOR_USER_HOME".to_string(), home.display().to_string()));
        }
    }

    /// An hvigorw that may read DevEco's signing material signs by running hap-sign-tool with
    /// the passwords on java's command line, which /proc shows every process.
    fn runs_alone(&self, program: &str) -> bool {
        Program::parse(program) == Program::Hvigorw && self.hvigor_reads_signing_material
    }

    /// The keystore the passwords go with: the bytes they first went with, as a private copy
    /// (`keystore_pins`); the packages an install sends: the copies whose bundle was read
    /// (`installed`).
    fn hand_over(
        &self,
        spawn: &Spawn,
        args: Vec<String>,
        secret: Option<&str>,
        private_tmp: &Path,
    ) -> Result<Vec<String>, KernelError> {
        let (home, workspace) = (spawn.kernel.scope().home(), spawn.kernel.scope().workspace());
        if Program::parse(spawn.program) == Program::Hdc {
            // The UDID before_spawn read for an install, just now (nothing awaited since): kept
            // with it, whatever is read at the key while it runs.
            let udid = self.identities.current(&args);
            return Ok(self.installed.hand_over(args, workspace, private_tmp, udid.as_deref()));
        }
        let Some(config) = secret else { return Ok(args) };
        keystore_pins::hand_over(home, workspace, config, &args, private_tmp)
            .map_err(|refused| signing::SecretsError::from(refused).into())
    }

    fn argv(
        &self,
        program: &str,
        found: &Found,
        args: Vec<String>,
        private_tmp: &Path,
        command: &str,
    ) -> Result<Vec<String>, KernelError> {
        let located = self.located(program);
        match (located.and_then(|l| l.jar.as_ref()), located.and_then(|l| l.script.as_ref())) {
            (Some(jar), _) => {
                let file = java_args::write(private_tmp, jar, &args)
                    .map_err(|e| KernelError::io("write java's argument file for", command, e))?;
                Ok(vec![format!("@{}", file.display())])
            }
            // DevEco's hvigorw.js, run by its bundled node (no shell, no cmd.exe on Windows).
            (None, Some(script)) => Ok(std::iter::once(script.display().to_string()).chain(args).collect()),
            (None, None) if Program::parse(program) == Program::Hdc => Ok(hdc_server::argv(args)),
            (None, None) => {
                let _ = found;
                Ok(args)
            }
        }
    }

    /// hdc's command as it runs: with the `-p` put first.
    fn shown_args(&self, program: &str, args: Vec<String>) -> Vec<String> {
        match Program::parse(program) {
            Program::Hdc => hdc_server::argv(args),
            _ => args,
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
