//! A pseudo-terminal the tests play the person at: the command runs with the terminal's slave
//! as its stdin, stdout, stderr and controlling terminal (as under `script`), the test reads what
//! the screen shows and types only after rein's question is on it (rein discards input typed
//! before it asks).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What rein's prompts end with (`cli/prompt.rs`): the moment a person may answer.
pub const QUESTIONS: [&str; 2] = ["Allow? ", "Type yes to confirm: "];

pub struct Pty {
    master: File,
    /// The terminal's slave side, by name (`/dev/pts/N`).
    pub slave_path: String,
    /// Held open, so the screen stays readable between commands and the input queue can be
    /// inspected.
    _slave: File,
    screen: Arc<Mutex<Vec<u8>>>,
    child: Option<Child>,
}

impl Pty {
    /// Starts `cmd` in a new session whose controlling terminal is a new pseudo-terminal.
    pub fn spawn(cmd: &mut Command) -> Pty {
        let mut pty = Pty::new();
        pty.start(cmd);
        pty
    }

    /// A new pseudo-terminal, nothing running in it yet.
    pub fn new() -> Pty {
        // SAFETY: plain libc calls on a descriptor this function owns.
        let (master, slave_path) = unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
            assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
            assert_eq!(libc::grantpt(fd), 0);
            assert_eq!(libc::unlockpt(fd), 0);
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
            let name = std::ffi::CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
            (File::from_raw_fd(fd), name)
        };
        let slave = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOCTTY).open(&slave_path)
        }
        .expect("open the pty slave");
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let shown = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                shown.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty { master, slave_path, _slave: slave, screen, child: None }
    }

    /// Starts `cmd` with this terminal as its controlling terminal and its stdio.
    pub fn start(&mut self, cmd: &mut Command) {
        let slave = &self._slave;
        cmd.stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave.try_clone().unwrap()));
        // SAFETY: setsid and ioctl are async-signal-safe; fd 0 is the slave by now.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        self.child = Some(cmd.spawn().expect("start the command under a pty"));
    }

    fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("a command runs in the pty")
    }

    /// What the screen has shown so far.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// Types `text` as the person would.
    pub fn type_text(&self, text: &str) {
        (&self.master).write_all(text.as_bytes()).expect("type into the pty");
    }

    /// Waits until the screen shows `n` questions (true), or the command exits or `limit`
    /// passes first (false).
    pub fn wait_for_questions(&mut self, n: usize, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            let screen = self.screen();
            if QUESTIONS.iter().map(|q| screen.matches(q).count()).sum::<usize>() >= n {
                return true;
            }
            if self.child().try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Waits for the command to exit (killing it past `limit`); its status and the screen.
    pub fn finish(&mut self, limit: Duration) -> (ExitStatus, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child().try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > limit {
                let _ = self.child().kill();
                let status = self.child().wait().unwrap();
                panic!("the command under the pty did not finish within {limit:?}: {status}\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Let the reader drain what the command wrote last.
        std::thread::sleep(Duration::from_millis(100));
        (status, self.screen())
    }

    /// Bytes waiting in the terminal's input queue, unread (what a TIOCSTI left behind).
    pub fn pending_input(&self) -> i32 {
        let mut pending: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int.
        assert_eq!(unsafe { libc::ioctl(self._slave.as_raw_fd(), libc::FIONREAD, &mut pending) }, 0);
        pending
    }
}

/// Runs `command` (a shell command line) under a pseudo-terminal, typing each line of `input`
/// once the next question is on the screen: how tests play the person at the terminal.
pub fn in_terminal(command: &str, input: &str) -> String {
    let mut shell = Command::new("sh");
    shell.args(["-c", command]).env("OHOS_HDC_SERVER_PORT", super::hdc_server_port().to_string());
    let mut pty = Pty::spawn(&mut shell);
    for (asked, line) in input.split_inclusive('\n').enumerate() {
        if !pty.wait_for_questions(asked + 1, Duration::from_secs(180)) {
            break;
        }
        pty.type_text(line);
    }
    pty.finish(Duration::from_secs(180)).1
}
