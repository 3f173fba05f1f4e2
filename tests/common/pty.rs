//! A program run on a pseudo-terminal of its own, as a person runs it: the terminal is its
//! stdin, stdout, stderr and controlling terminal (`/dev/tty`), and the test types into it only
//! when it chooses to — after the program asked, never ahead of the question.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    master: File,
    child: Child,
    /// Everything the program wrote to the terminal so far.
    screen: Arc<Mutex<Vec<u8>>>,
    /// Says when the reader has seen the terminal close (every program on it gone).
    closed: mpsc::Receiver<()>,
}

impl Pty {
    /// Starts `cmd` in a new session whose controlling terminal is a fresh pty.
    pub fn spawn(mut cmd: Command) -> Pty {
        // SAFETY: plain libc calls on a descriptor we own; ptsname_r writes into our buffer.
        let (master, slave_path) = unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
            assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
            assert_eq!(libc::grantpt(fd), 0, "grantpt");
            assert_eq!(libc::unlockpt(fd), 0, "unlockpt");
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0, "ptsname_r");
            let path = std::ffi::CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
            (File::from_raw_fd(fd), path)
        };
        let slave = std::fs::OpenOptions::new().read(true).write(true).open(&slave_path).expect("open the pty's slave");
        cmd.stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn on the pty");
        // The command holds our copies of the slave: dropped, so the terminal closes with the
        // program.
        drop(cmd);
        let (done, closed) = mpsc::channel();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let sink = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the last slave descriptor is closed: the program is gone.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            let _ = done.send(());
        });
        Pty { master, child, screen, closed }
    }

    /// What the program wrote so far, as text.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// How many bytes the program wrote so far.
    pub fn written(&self) -> usize {
        self.screen.lock().unwrap().len()
    }

    /// Waits until the screen holds `text` (after byte `from`); panics with the screen after
    /// `within`.
    pub fn wait_for(&self, text: &str, from: usize, within: Duration) -> usize {
        let deadline = Instant::now() + within;
        loop {
            let screen = self.screen.lock().unwrap().clone();
            let tail = String::from_utf8_lossy(&screen[from.min(screen.len())..]).into_owned();
            if let Some(at) = tail.find(text) {
                return from + at + text.len();
            }
            assert!(Instant::now() < deadline, "{text:?} did not appear within {within:?}; the screen:\n{tail:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `text` as a person would.
    pub fn type_in(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Waits for the program to exit and the terminal to close (killing it after `within`);
    /// its exit status and everything it wrote.
    pub fn finish(mut self, within: Duration) -> (i32, String) {
        if self.closed.recv_timeout(within).is_err() {
            let _ = self.child.kill();
            let _ = self.child.wait();
            panic!("the program did not exit within {within:?}; the screen:\n{:?}", self.screen());
        }
        let status = self.child.wait().unwrap();
        (status.code().unwrap_or(-1), self.screen())
    }
}
