//! hdc's server, which rein never lets a program start. Any hdc client command starts one
//! when none answers (even `hdc version`; `$TMPDIR/.HDCServer.pid` is its lock:
//! ../shared/toolchain/hdc/README.md), a server that listens on the network and would outlive
//! the call. So the kernel runs every hdc command with hdc's own `-p` ("not pull up server",
//! developtools_hdc src/host/main.cpp `GetCommandlineOptions`), and first checks that a server
//! answers on the port the command talks to: without one, `hdc -p` waits forever, silently.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use super::confinement::hdc_server_port;
use super::error::HarmonyError;
use crate::kernel::KernelError;

/// hdc's "do not start a server" option.
pub const NO_SERVER: &str = "-p";
/// How long a server on this machine may take to accept a connection.
const ANSWER_WITHIN: Duration = Duration::from_secs(2);

/// Commands hdc answers itself, without a server (`-v` prints the version in getopt).
fn needs_server(args: &[String]) -> bool {
    !matches!(args, [only] if only == "-v" || only == "-h" || only == "help")
}

/// The server `args` talk to, on this machine: `None` for another machine's (`-s host:port`,
/// which a person approved) or a command that needs none.
fn local_server(args: &[String], env: &[(String, String)]) -> Option<u16> {
    if !needs_server(args) {
        return None;
    }
    let server = super::grammar::hdc::server_option(args);
    let host = server.as_deref().and_then(|value| value.rsplit_once(':')).map(|(host, _)| host);
    match host {
        None | Some("127.0.0.1" | "localhost" | "::1" | "[::1]" | "::ffff:127.0.0.1") => {
            Some(hdc_server_port(args, env))
        }
        Some(_) => None,
    }
}

/// Refuses, before anything runs, an hdc command whose server on this machine does not answer.
pub fn check(args: &[String], env: &[(String, String)]) -> Result<(), KernelError> {
    let Some(port) = local_server(args, env) else { return Ok(()) };
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    match TcpStream::connect_timeout(&address, ANSWER_WITHIN) {
        Ok(_) => Ok(()),
        Err(_) => Err(HarmonyError::HdcServerNotRunning {
            port,
            fix: format!(
                "Start it yourself in a terminal with `hdc start` (or open DevEco Studio, which starts it){}, then try again.",
                if port == super::confinement::HDC_DEFAULT_PORT {
                    String::new()
                } else {
                    format!(", with OHOS_HDC_SERVER_PORT={port} in its environment")
                }
            ),
        }
        .into()),
    }
}

/// hdc's argv as it runs: `-p` first, then the command as the script gave it.
pub fn argv(args: Vec<String>) -> Vec<String> {
    std::iter::once(NO_SERVER.to_string()).chain(args).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_server_checked_is_the_one_the_command_talks_to() {
        let env = vec![("OHOS_HDC_SERVER_PORT".to_string(), "27710".to_string())];
        assert_eq!(local_server(&args("list targets"), &[]), Some(8710));
        assert_eq!(local_server(&args("list targets"), &env), Some(27710));
        assert_eq!(local_server(&args("-s 9000 list targets"), &env), Some(9000));
        assert_eq!(local_server(&args("-s 127.0.0.1:9001 shell ls"), &env), Some(9001));
        assert_eq!(local_server(&args("-s 10.0.0.2:8710 shell ls"), &env), None);
        assert_eq!(local_server(&args("-v"), &env), None);
        assert_eq!(local_server(&args("version"), &env), Some(27710));
        assert_eq!(local_server(&args("-t K shell hidumper -s 1201"), &env), Some(27710), "a device command's -s");
        assert_eq!(local_server(&args("-s9002 list targets"), &env), Some(9002));
    }

    #[test]
    fn no_server_is_a_clear_error_with_the_next_step() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let env = vec![("OHOS_HDC_SERVER_PORT".to_string(), port.to_string())];
        assert!(check(&args("list targets"), &env).is_ok());
        drop(listener);
        let err = check(&args("list targets"), &env).unwrap_err();
        assert!(err.to_string().contains("hdc start") && err.to_string().contains(&port.to_string()), "{err}");
        assert_eq!(argv(args("list targets")), args("-p list targets"));
    }
}
