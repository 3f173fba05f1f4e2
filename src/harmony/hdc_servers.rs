//! Which hdc servers rein treats as the person's own: the local server (on loopback, at the
//! port `OHOS_HDC_SERVER_PORT` names, else 8710: shared/HARMONY.md §6) and the servers a person
//! named in home config.toml (`[devices.<name>] server = "host:port"`, a lab machine's hdc
//! server). A command to one of them is judged as the command is; a command to any other
//! server (`hdc -s <unnamed>`, a loopback port included: it may be a tunnel to anywhere) asks
//! a person, whatever it does.

/// hdc's default server port (developtools_hdc `src/common/define.h` DEFAULT_PORT).
pub const DEFAULT_PORT: u16 = 8710;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HdcServers {
    local_port: u16,
    /// (name, normalized address), as home config names them.
    named: Vec<(String, String)>,
}

impl Default for HdcServers {
    fn default() -> HdcServers {
        HdcServers { local_port: DEFAULT_PORT, named: Vec::new() }
    }
}

/// Where an `hdc -s` command goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerKind {
    Local,
    /// A server home config names.
    Named(String),
    Unnamed,
}

impl HdcServers {
    /// The local port from `OHOS_HDC_SERVER_PORT` (as hdc reads it), the named servers as home
    /// config lists them.
    pub fn new(local_port_var: Option<&str>, named: Vec<(String, String)>) -> HdcServers {
        let local_port = local_port_var.and_then(|p| p.trim().parse().ok()).filter(|p| *p != 0).unwrap_or(DEFAULT_PORT);
        let named = named.into_iter().map(|(name, addr)| (name, normalize(&addr))).collect();
        HdcServers { local_port, named }
    }

    pub fn local_port(&self) -> u16 {
        self.local_port
    }

    /// (name, address) of every server home config names.
    pub fn named(&self) -> &[(String, String)] {
        &self.named
    }

    /// What `hdc -s <addr>` talks to.
    pub fn kind(&self, addr: &str) -> ServerKind {
        let addr = normalize(addr);
        if addr == format!("127.0.0.1:{}", self.local_port) {
            return ServerKind::Local;
        }
        match self.named.iter().find(|(_, a)| *a == addr) {
            Some((name, _)) => ServerKind::Named(name.clone()),
            None => ServerKind::Unnamed,
        }
    }
}

/// One spelling per server: hdc reads `-s PORT` as 127.0.0.1:PORT (`FormatServerListenString`);
/// every loopback host is 127.0.0.1; host names compare without case.
pub fn normalize(addr: &str) -> String {
    let addr = addr.trim();
    if !addr.is_empty() && addr.bytes().all(|b| b.is_ascii_digit()) {
        return format!("127.0.0.1:{addr}");
    }
    let Some((host, port)) = addr.rsplit_once(':') else {
        return addr.to_ascii_lowercase();
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback() || ip.to_canonical().is_loopback());
    let host = if loopback { "127.0.0.1".to_string() } else { host.to_ascii_lowercase() };
    format!("{host}:{port}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_local_named_or_unnamed_whatever_their_spelling() {
        let servers = HdcServers::new(Some("27710"), vec![("lab".into(), "Lab.Example.com:8710".into())]);
        let cases = [
            ("27710", ServerKind::Local),
            ("127.0.0.1:27710", ServerKind::Local),
            ("localhost:27710", ServerKind::Local),
            ("[::1]:27710", ServerKind::Local),
            ("::ffff:127.0.0.1:27710", ServerKind::Local),
            ("lab.example.com:8710", ServerKind::Named("lab".into())),
            ("8710", ServerKind::Unnamed),
            ("127.0.0.1:27720", ServerKind::Unnamed),
            ("10.0.0.5:8710", ServerKind::Unnamed),
        ];
        for (addr, kind) in cases {
            assert_eq!(servers.kind(addr), kind, "{addr}");
        }
        assert_eq!(HdcServers::new(None, vec![]).kind("8710"), ServerKind::Local);
        assert_eq!(HdcServers::new(Some("x"), vec![]).local_port(), DEFAULT_PORT);
    }
}
