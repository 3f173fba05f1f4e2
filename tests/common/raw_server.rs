//! `rein serve` as a child process on pipes, driven with raw JSON-RPC lines (the MCP tests that
//! need what a client library would hide: a cancel's missing response, tools/list's bytes).
//! Portable: it runs on Windows too.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::Workspace;

/// Bound on every wait but the caller's own.
const WAIT: Duration = Duration::from_secs(60);

/// `rein serve` on pipes; its stderr (at debug level) in `log`.
pub(crate) struct Server {
    pub(crate) child: Child,
    input: Option<ChildStdin>,
    pub(crate) replies: mpsc::Receiver<Value>,
    log: PathBuf,
}

impl Server {
    pub(crate) fn start(ws: &Workspace) -> Server {
        let log = ws.root.join("serve.log");
        let mut child = ws
            .serve_command()
            .env("REIN_LOG", "rein=debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("the log file"))
            .spawn()
            .expect("spawn rein serve");
        let output = child.stdout.take().unwrap();
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                let Ok(value) = serde_json::from_str::<Value>(&line) else { continue };
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut server = Server { input: child.stdin.take(), child, replies, log };
        server.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cancel-test", "version": "0"}}}));
        server.reply_to(0, WAIT);
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    pub(crate) fn send(&mut self, message: Value) {
        let input = self.input.as_mut().expect("stdin open");
        writeln!(input, "{message}").expect("write to rein serve");
        input.flush().expect("flush");
    }

    pub(crate) fn call(&mut self, id: i64, tool: &str) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}}),
        );
    }

    pub(crate) fn cancel(&mut self, id: i64) {
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the person pressed stop"}}));
    }

    /// The response to `id`, within `limit`; a response to any other request before it (to a
    /// cancelled call) fails the test.
    pub(crate) fn reply_to(&mut self, id: i64, limit: Duration) -> Value {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let reply = self
                .replies
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response to request {id} within {limit:?}; log:\n{}", self.log_text()));
            match reply.get("id") {
                Some(got) if got == &json!(id) => return reply,
                Some(other) => panic!("a response to request {other} came while waiting for {id}: {reply}"),
                None => {} // a notification
            }
        }
    }

    /// Closes stdin and waits for the server to exit; the responses it sent meanwhile.
    pub(crate) fn finish(&mut self) -> Vec<Value> {
        drop(self.input.take());
        let until = Instant::now() + WAIT;
        while self.child.try_wait().expect("wait").is_none() {
            assert!(Instant::now() < until, "rein serve did not exit after stdin closed");
            std::thread::sleep(Duration::from_millis(20));
        }
        self.replies.try_iter().filter(|r| r.get("id").is_some()).collect()
    }

    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    /// A failed test leaves no server spinning behind it.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
