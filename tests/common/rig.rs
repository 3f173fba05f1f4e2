//! The test rig: the real hdc stack (`REIN_REAL_HDC_DIR`, `real_tools.rs`) with this machine as
//! the device, as `../shared/toolchain/hdc/README.md` runs it.
//!
//! - [`Net`]: a private network namespace holding only loopback (hdcd binds 0.0.0.0 and UDP
//!   8710; nothing in it can reach any other address). Every program of the rig — and rein,
//!   which tests run in it — enters it.
//! - [`Rig`]: `hdcd -t` in its own mount and UTS namespaces (its `/data/local/tmp`, where hdc
//!   stages installs, is the rig's own folder; its host name is the device name `list targets
//!   -v` shows), with the device-side fakes (`rein-fake-device`, linked as `aa`, `bm`, `hilog`
//!   …) first on its PATH; and the real hdc server on the rig's port, started by the test as a
//!   person (or DevEco) starts it, connected to the daemon with `tconn`.
//!
//! Every process here dies with the test: each gets `PR_SET_PDEATHSIG` and its own process
//! group, which `Drop` kills.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::real_tools;

/// The device commands rein-fake-device answers (tests/fakes/device/src/main.rs `COMMANDS`).
const DEVICE_COMMANDS: [&str; 11] = [
    "aa",
    "bm",
    "hilog",
    "hidumper",
    "hisysevent",
    "pidof",
    "param",
    "power-shell",
    "snapshot_display",
    "uitest",
    "date",
];
/// How long a rig may take to come up before the test fails saying which part did not.
const START_BOUND: Duration = Duration::from_secs(90);

/// A network namespace with loopback up, held open by a `sleep` that dies with the test.
pub struct Net {
    holder: Child,
    ns: File,
}

fn die_with_parent() -> std::io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_PDEATHSIG only sets a flag of this (forked) process.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Brings `lo` up in the calling process's network namespace (SIOCSIFFLAGS, netdevice(7)):
/// no allocation, so it may run between fork and exec.
fn loopback_up() -> std::io::Result<()> {
    // SAFETY: plain syscalls on a socket this function owns and a zeroed ifreq it fills.
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
        if sock < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo\0".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        let mut rc = libc::ioctl(sock, libc::SIOCGIFFLAGS, &mut req);
        if rc == 0 {
            req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            rc = libc::ioctl(sock, libc::SIOCSIFFLAGS, &req);
        }
        let err = std::io::Error::last_os_error();
        libc::close(sock);
        if rc != 0 {
            return Err(err);
        }
    }
    Ok(())
}

impl Net {
    pub fn new() -> Arc<Net> {
        let mut holder = Command::new("sleep");
        holder.arg("infinity").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            holder.pre_exec(|| {
                die_with_parent()?;
                if libc::unshare(libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                loopback_up()
            });
        }
        let holder = holder.spawn().expect("a network namespace (the rig needs root)");
        let ns = File::open(format!("/proc/{}/ns/net", holder.id())).expect("the rig's network namespace");
        Arc::new(Net { holder, ns })
    }

    /// Makes `cmd` start inside this namespace, and die with the test.
    pub fn enter(self: &Arc<Self>, cmd: &mut Command) {
        let fd = self.ns.as_raw_fd();
        // The namespace file stays open as long as a command that may still be spawned holds this.
        let keep = Arc::clone(self);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let _ = &keep;
                die_with_parent()?;
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// Where a rig's server keeps its lock and log, and which ports it uses.
pub struct RigSpec {
    /// The name the device reports (its host name).
    pub name: &'static str,
    pub server_port: u16,
    pub device_port: u16,
    /// The fakes' state directory the device uses (`device-<key>.json`, calls.log).
    pub state: PathBuf,
    /// The server's TMPDIR: its `.HDCServer.pid` lock tells hdc clients with the same TMPDIR
    /// that a server runs (one with another TMPDIR starts a server of its own first, which
    /// then fails to bind: a second lost per call).
    pub server_tmp: PathBuf,
}

pub struct Rig {
    net: Arc<Net>,
    pub dir: tempfile::TempDir,
    pub hdc: PathBuf,
    pub key: String,
    pub spec: RigSpec,
    server: Child,
    device: Child,
}

/// The script that makes the device's world: its own `/data/local/tmp` under a new root (the
/// machine's folders bound in, nothing copied), its host name, then `exec hdcd -t`.
const DEVICE_SCRIPT: &str = r#"set -e
echo "$RIG_NAME" > /proc/sys/kernel/hostname
mount --make-rprivate /
mount -t tmpfs rig-root /mnt
for entry in /*; do
  name=${entry#/}
  [ "$name" = mnt ] && continue
  if [ -L "$entry" ]; then cp -P "$entry" "/mnt/$name"
  elif [ -d "$entry" ]; then mkdir "/mnt/$name"; mount --rbind "$entry" "/mnt/$name"
  fi
done
mkdir -p /mnt/data/local/tmp
mount --bind "$RIG_DIR/data-local-tmp" /mnt/data/local/tmp
cd /
exec /usr/sbin/chroot /mnt /bin/sh -c 'cd "$RIG_DIR/device" && exec "$RIG_HDCD" -t'
"#;

impl Rig {
    /// Starts a device and a server in `net`, connects them, and waits until the server lists
    /// the device as Connected.
    pub fn start(net: &Arc<Net>, hdc_dir: &Path, spec: RigSpec) -> Rig {
        let dir = tempfile::Builder::new().prefix("rein-rig-").tempdir().unwrap();
        let root = dir.path();
        for sub in ["bin", "device", "data-local-tmp", "device-tmp"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::create_dir_all(&spec.server_tmp).unwrap();
        let program = real_tools::fake_device_dir().join("rein-fake-device");
        for name in DEVICE_COMMANDS {
            std::os::unix::fs::symlink(&program, root.join("bin").join(name)).unwrap();
        }
        std::fs::write(root.join("hdcd.para"), format!("persist.hdc.port={}\n", spec.device_port)).unwrap();
        std::fs::write(root.join("device.sh"), DEVICE_SCRIPT).unwrap();
        let key = format!("127.0.0.1:{}", spec.device_port);
        let device = Self::spawn_device(net, hdc_dir, root, &key, &spec);
        let mut server = Command::new(hdc_dir.join("hdc"));
        server.args(["-s", &format!("127.0.0.1:{}", spec.server_port), "-m"]);
        plain_env(&mut server).env("TMPDIR", &spec.server_tmp);
        let server = spawn_logged(net, &mut server, &root.join("server.log"));
        let rig = Rig { net: Arc::clone(net), dir, hdc: hdc_dir.join("hdc"), key, spec, server, device };
        rig.connect();
        rig
    }

    fn spawn_device(net: &Arc<Net>, hdc_dir: &Path, root: &Path, key: &str, spec: &RigSpec) -> Child {
        let mut device = Command::new("unshare");
        device.args(["--mount", "--uts", "--propagation", "private", "sh"]).arg(root.join("device.sh"));
        plain_env(&mut device)
            .env("PATH", format!("{}:/usr/sbin:/usr/bin:/sbin:/bin", root.join("bin").display()))
            .env("TMPDIR", root.join("device-tmp"))
            .env("HDCD_PARAM_FILE", root.join("hdcd.para"))
            .env("REIN_FAKE_STATE", &spec.state)
            .env("REIN_FAKE_DEVICE", key)
            .env("REIN_FAKE_DEVICE_ROOT", "/")
            .env("RIG_NAME", spec.name)
            .env("RIG_DIR", root)
            .env("RIG_HDCD", hdc_dir.join("hdcd"));
        spawn_logged(net, &mut device, &root.join("device.log"))
    }

    /// `server` in the form `hdc -s` and home config's `[devices.*] server` take.
    pub fn server(&self) -> String {
        format!("127.0.0.1:{}", self.spec.server_port)
    }

    /// The real hdc client against this rig's server, as a person runs it: stdout then stderr.
    pub fn hdc(&self, args: &[&str]) -> String {
        let out = self.hdc_command(args).output().expect("run the real hdc");
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }

    /// [`Rig::hdc`] run in `cwd` (where relative local paths are).
    pub fn hdc_in(&self, cwd: &Path, args: &[&str]) -> String {
        let out = self.hdc_command(args).current_dir(cwd).output().expect("run the real hdc");
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }

    pub fn hdc_command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.hdc);
        cmd.args(args).stdin(Stdio::null());
        plain_env(&mut cmd)
            .env("OHOS_HDC_SERVER_PORT", self.spec.server_port.to_string())
            .env("TMPDIR", &self.spec.server_tmp);
        self.net.enter(&mut cmd);
        cmd
    }

    /// Makes `cmd` (rein) run where the rig is reachable, talking to this rig's server.
    pub fn enter(&self, cmd: &mut Command) {
        self.net.enter(cmd);
        cmd.env("OHOS_HDC_SERVER_PORT", self.spec.server_port.to_string());
    }

    fn connect(&self) {
        let started = Instant::now();
        let mut last = String::new();
        while started.elapsed() < START_BOUND {
            last = self.hdc(&["tconn", &self.key]);
            if last.contains("Connect OK") || last.contains("repeat operation") {
                let listed = self.hdc(&["list", "targets", "-v"]);
                if listed.lines().any(|l| l.starts_with(&self.key) && l.contains("\tConnected\t")) {
                    return;
                }
                last = listed;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let log = |name| std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
        panic!(
            "the rig {} did not come up within {START_BOUND:?}: hdc said {last:?}\ndevice log:\n{}\nserver log:\n{}",
            self.spec.name,
            log("device.log"),
            log("server.log")
        );
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        for child in [&mut self.server, &mut self.device] {
            // SAFETY: kill(2) of the process group this child leads (spawned with its own).
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            let _ = child.wait();
        }
    }
}

/// A cleared environment with what the tools need to start.
fn plain_env(cmd: &mut Command) -> &mut Command {
    cmd.env_clear().env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").env("HOME", "/root").env("LANG", "C.UTF-8")
}

/// Starts `cmd` in `net`, in a process group of its own, its output going to `log`.
fn spawn_logged(net: &Arc<Net>, cmd: &mut Command, log: &Path) -> Child {
    let out = File::create(log).unwrap();
    cmd.stdin(Stdio::null()).stdout(out.try_clone().unwrap()).stderr(out).process_group(0);
    net.enter(cmd);
    cmd.spawn().unwrap_or_else(|e| panic!("start {cmd:?}: {e}"))
}

/// A lab (the fixture, real signing) whose rein talks to a rig through the real hdc: home
/// config names the real hdc, rein runs in the rig's network with `OHOS_HDC_SERVER_PORT`, and
/// the device keeps its state in the lab's state directory. `None` (after saying why) when this
/// machine cannot hold a rig.
pub fn rig_lab() -> Option<(super::lab::Lab, Rig)> {
    rig_lab_of("hello-app")
}

/// [`rig_lab`] with another fixture (`lab::lab_of`).
pub fn rig_lab_of(fixture: &str) -> Option<(super::lab::Lab, Rig)> {
    let test = super::lab::test_name();
    let hdc_dir = real_tools::rig(&test)?;
    let mut lab = super::lab::lab_of(fixture)?;
    let spec = RigSpec {
        name: "rig-a",
        server_port: 27710,
        device_port: 27777,
        state: lab.state.clone(),
        server_tmp: lab.tmp(),
    };
    let rig = Rig::start(&Net::new(), &hdc_dir, spec);
    lab.toolchain("hdc", &rig.hdc);
    let (net, port) = (Arc::clone(&rig.net), rig.spec.server_port);
    lab.around = Some(Arc::new(move |cmd: &mut Command| {
        net.enter(cmd);
        cmd.env("OHOS_HDC_SERVER_PORT", port.to_string());
    }));
    Some((lab, rig))
}

/// Forwards TCP connections from `127.0.0.1:<port>` in one network namespace to the same
/// address in another: how a rig in one namespace reaches a server in another (each hdcd needs
/// a namespace of its own: it binds the abstract socket `\0ohjpid-control`, developtools_hdc
/// `src/daemon/jdwp.cpp` JdwpListen). Loopback on both sides, nothing else. Threads of the test
/// process: each enters its namespace (setns is per thread) before it makes its sockets.
pub struct Relay {
    stop: Arc<std::sync::atomic::AtomicBool>,
    port: u16,
    from: Arc<Net>,
}

fn enter_net(net: &Net) {
    // SAFETY: setns(2) moves this thread (only) into the namespace the open file names.
    assert_eq!(unsafe { libc::setns(net.ns.as_raw_fd(), libc::CLONE_NEWNET) }, 0, "enter a rig's network");
}

impl Relay {
    pub fn start(from: &Arc<Net>, to: &Arc<Net>, port: u16) -> Relay {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = Arc::new(AtomicBool::new(false));
        let (ready, listening) = std::sync::mpsc::channel();
        let (from_net, to_net, stopped) = (Arc::clone(from), Arc::clone(to), Arc::clone(&stop));
        std::thread::spawn(move || {
            enter_net(&from_net);
            let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("the relay's port");
            ready.send(()).unwrap();
            for client in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let to_net = Arc::clone(&to_net);
                std::thread::spawn(move || {
                    enter_net(&to_net);
                    let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return };
                    let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                    let up = std::thread::spawn(move || {
                        let _ = std::io::copy(&mut c_in, &mut s_out);
                        let _ = s_out.shutdown(std::net::Shutdown::Write);
                    });
                    let (mut s_in, mut c_out) = (server, client);
                    let _ = std::io::copy(&mut s_in, &mut c_out);
                    let _ = c_out.shutdown(std::net::Shutdown::Write);
                    let _ = up.join();
                });
            }
        });
        listening.recv().expect("the relay listens");
        Relay { stop, port, from: Arc::clone(from) }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the accept so the thread sees the flag and ends.
        let (from, port) = (Arc::clone(&self.from), self.port);
        let _ = std::thread::spawn(move || {
            enter_net(&from);
            let _ = std::net::TcpStream::connect(("127.0.0.1", port));
        })
        .join();
    }
}

/// A lab whose rein sees two machines' hdc servers: this machine's rig (server 27710, device
/// `rig-a`), and a lab machine's rig in a network of its own (server 27720, device `rig-b`),
/// whose server home config names (`[devices.lab] server = "127.0.0.1:27720"`) and rein reaches
/// through a [`Relay`] at the same address.
pub fn two_rig_lab() -> Option<(super::lab::Lab, Rig, Rig, Relay)> {
    let (lab, local) = rig_lab()?;
    let spec = RigSpec {
        name: "rig-b",
        server_port: 27720,
        device_port: 27778,
        state: lab.state.clone(),
        server_tmp: lab.ws.root.join("lab-server-tmp"),
    };
    let hdc_dir = local.hdc.parent().expect("hdc's folder").to_path_buf();
    let remote = Rig::start(&Net::new(), &hdc_dir, spec);
    let relay = Relay::start(&local.net, &remote.net, 27720);
    lab.configure(&format!("\n[devices.lab]\nserver = \"{}\"\n", remote.server()));
    Some((lab, local, remote, relay))
}
