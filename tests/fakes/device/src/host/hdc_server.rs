//! The fake hdc's server: `hdc start` starts a stand-in that only listens on the server's port
//! (`-s [ip:]port`, else `OHOS_HDC_SERVER_PORT`, else 8710) and accepts connections; `hdc kill`
//! stops it. rein checks that a server answers before it runs hdc, and never lets hdc start one
//! (shared/toolchain/hdc/README.md: any client command starts a server when none answers); the
//! fake client itself never connects.
//!
//! The stand-in's port and a random token are kept beside the state folder, in
//! `.<state>.hdc-server.json`, never in it: programs rein runs may write the state folder (home
//! config `[spawn] writable`). `hdc kill` signals no process: it sends the token to the port,
//! and the stand-in ends only when the token is its own, so no pid or port a program wrote can
//! make `hdc kill` end anything else.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common::outln;
use crate::state::State;

/// The word `hdc start` runs the stand-in with: `rein-fake-device hdc-server-stand-in PORT`.
pub const STAND_IN: &str = "hdc-server-stand-in";
const DEFAULT_PORT: u16 = 8710;
const KILL: &str = "rein-fake-hdc-kill ";

fn port(listen: Option<&str>) -> u16 {
    if let Some(port) = listen.and_then(|l| l.rsplit(':').next()).and_then(|p| p.parse().ok()) {
        return port;
    }
    std::env::var("OHOS_HDC_SERVER_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(DEFAULT_PORT)
}

fn answers(port: u16) -> bool {
    TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)), Duration::from_secs(1)).is_ok()
}

/// Beside the state folder, where the programs rein runs cannot write.
fn server_file(state: &State) -> PathBuf {
    let dir = state.path("");
    let dir = dir.components().as_path().to_path_buf();
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.with_file_name(format!(".{name}.hdc-server.json"))
}

pub fn start(state: &State, listen: Option<&str>) {
    let port = port(listen);
    if answers(port) {
        return;
    }
    let token = format!("{:x}{:x}", std::process::id(), crate::state::now_secs().to_bits());
    let record = json!({"port": port, "token": token});
    let _ = std::fs::write(server_file(state), record.to_string());
    let mut stand_in = Command::new(super::install::device_program());
    stand_in.args([STAND_IN, &port.to_string(), &token]);
    stand_in.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    #[cfg(unix)]
    {
        // Its own process group, as a server is: ending the caller's group leaves it running.
        std::os::unix::process::CommandExt::process_group(&mut stand_in, 0);
    }
    if let Err(e) = stand_in.spawn() {
        return outln(&format!("[Fail]start the stand-in server: {e}"));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !answers(port) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The stand-in itself: listens and accepts until a connection sends its token.
pub fn stand_in(args: &[String]) -> i32 {
    let (Some(port), Some(token)) = (args.first().and_then(|p| p.parse::<u16>().ok()), args.get(1)) else {
        eprintln!("usage: rein-fake-device {STAND_IN} PORT TOKEN");
        return 2;
    };
    let Ok(listener) = TcpListener::bind((Ipv4Addr::LOCALHOST, port)) else { return 1 };
    let wanted = format!("{KILL}{token}");
    for connection in listener.incoming().flatten() {
        let wanted = wanted.clone();
        let reader = std::thread::spawn(move || said_token(connection, &wanted));
        if reader.join().unwrap_or(false) {
            return 0;
        }
    }
    0
}

/// Whether the connection sent `wanted` within a second (a client that only checks that the
/// server answers sends nothing).
fn said_token(mut connection: TcpStream, wanted: &str) -> bool {
    let _ = connection.set_read_timeout(Some(Duration::from_secs(1)));
    let mut got = vec![0u8; wanted.len()];
    connection.read_exact(&mut got).is_ok() && got == wanted.as_bytes()
}

pub fn kill(state: &State, quiet: bool) {
    let file = server_file(state);
    let record: Value =
        std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    if let (Some(port), Some(token)) = (record["port"].as_u64(), record["token"].as_str()) {
        let port = port as u16;
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        if let Ok(mut connection) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) {
            let _ = connection.write_all(format!("{KILL}{token}").as_bytes());
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while answers(port) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_file(&file);
    }
    if !quiet {
        outln("Kill server finish");
    }
}
