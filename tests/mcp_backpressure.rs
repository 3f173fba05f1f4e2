//! A client that never reads its answers cannot make rein hold them all (issue 35, hole 7):
//! while answers wait unread, rein stops reading requests, so its memory stays under
//! [`PEAK_MIB`] (docs/src/performance.md, "The MCP server": back-pressure); once the client reads, every answer
//! arrives and the session goes on.
//!
//! The client is a small Python program, rein's parent: it measures rein's peak memory
//! (`ru_maxrss` of its children, as `common::peak` does) and watches it while it does not
//! read, ending rein as soon as it passes the bound (an unbounded rein would otherwise take
//! gigabytes of a shared machine).

use serde_json::{json, Value};

use crate::common::Workspace;

/// Requests the client writes before it reads any answer.
const REQUESTS: usize = 10_000;
/// rein's peak memory with [`REQUESTS`] unread answers of 40 KiB files: the figure docs/src/performance.md names.
const PEAK_MIB: i64 = 160;

/// Writes the requests on a thread; does not read until the writer is done or blocked (no
/// progress for a second) and 3 s more have passed, watching rein's memory meanwhile; then
/// reads every answer and sends one request more. Prints what it saw as JSON.
const CLIENT: &str = r#"
import json, os, resource, subprocess, sys, threading, time
limit_kib, n, log = int(sys.argv[1]) * 1024, int(sys.argv[2]), sys.argv[3]
rein = subprocess.Popen(sys.argv[4:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(log, "w"))
def line(message):
    return (json.dumps(message) + "\n").encode()
head = line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
             "capabilities": {}, "clientInfo": {"name": "unread", "version": "0"}}})
head += line({"jsonrpc": "2.0", "method": "notifications/initialized"})
# Each request padded to about 1 KiB (in its _meta, which MCP leaves to the client), so that
# 10,000 of them are more than rein's queues and pipe hold.
def call(i, path):
    return line({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                 "params": {"name": "read_file", "arguments": {"path": path}, "_meta": {"pad": "p" * 1000}}})
written = [0]
def write():
    os.write(rein.stdin.fileno(), head)
    for first in range(1, n + 1, 50):
        chunk = b"".join(call(i, "big.txt") for i in range(first, min(first + 50, n + 1)))
        view = memoryview(chunk)
        while view:
            view = view[os.write(rein.stdin.fileno(), view):]
        written[0] = min(first + 49, n)
writer = threading.Thread(target=write, daemon=True)
writer.start()
def rss_kib():
    with open("/proc/%d/status" % rein.pid) as status:
        for row in status:
            if row.startswith("VmRSS:"):
                return int(row.split()[1])
    return 0
seen, last, still_since, quiet_since, started = 0, -1, time.time(), None, time.time()
while time.time() - started < 120:
    seen = max(seen, rss_kib())
    if seen > limit_kib:
        rein.kill()
        rein.wait()
        print(json.dumps({"over_kib": seen, "written": written[0]}))
        sys.exit(0)
    if written[0] != last:
        last, still_since = written[0], time.time()
    stalled = not writer.is_alive() or time.time() - still_since > 1.0
    if stalled and quiet_since is None:
        quiet_since = time.time()
    if quiet_since is not None and time.time() - quiet_since > 3.0:
        break
    time.sleep(0.05)
unread_written, unread_peak = written[0], seen
ids, errors = [], 0
while len(ids) < n + 1:
    message = json.loads(rein.stdout.readline())
    if "id" in message and message["id"] is not None:
        ids.append(message["id"])
        errors += ("error" in message) or bool(message.get("result", {}).get("isError"))
writer.join()
os.write(rein.stdin.fileno(), call(n + 1, "small.txt"))
after = json.loads(rein.stdout.readline())
rein.stdin.close()
code = rein.wait()
expected = set(range(n + 1))
print(json.dumps({"first": ids[0], "answers": len(ids), "missing": sorted(expected - set(ids))[:10],
                  "unexpected": sorted(set(ids) - expected)[:10], "errors": errors, "after": after, "code": code,
                  "written_unread": unread_written, "rss_unread_kib": unread_peak,
                  "peak_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"#;

#[test]
fn ten_thousand_unread_answers_keep_reins_memory_bounded_and_the_session_goes_on() {
    let ws = Workspace::new();
    let line = format!("{}\n", "x".repeat(199));
    std::fs::write(ws.path("big.txt"), line.repeat(200)).unwrap();
    std::fs::write(ws.path("small.txt"), "the session goes on\n").unwrap();
    let serve = ws.serve_command();
    let log = ws.root.join("serve.log");
    let output = std::process::Command::new("python3")
        .arg("-c")
        .arg(CLIENT)
        .arg(PEAK_MIB.to_string())
        .arg(REQUESTS.to_string())
        .arg(&log)
        .arg(serve.get_program())
        .args(serve.get_args())
        .envs(serve.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env_remove("REIN_LOG")
        .output()
        .expect("python3 drives the client here and is needed");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let seen: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|_| panic!("the client said: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    assert!(
        seen.get("over_kib").is_none(),
        "rein passed {PEAK_MIB} MiB while {} requests were written and no answer was read: {seen}",
        seen["written"]
    );
    let peak_mib = seen["peak_kib"].as_i64().unwrap() / 1024;
    eprintln!("rein's peak memory: {peak_mib} MiB ({} KiB while unread)", seen["rss_unread_kib"]);
    assert!(peak_mib < PEAK_MIB, "rein's peak memory was {peak_mib} MiB");
    assert!(
        seen["written_unread"].as_u64().unwrap() < REQUESTS as u64,
        "rein stopped reading requests while its answers waited: {seen}"
    );
    // JSON-RPC lets answers come in any order; `initialize`'s comes first (MCP's lifecycle).
    assert_eq!(seen["first"], 0, "{seen}");
    assert_eq!(seen["answers"], REQUESTS as u64 + 1, "{seen}");
    assert_eq!((&seen["missing"], &seen["unexpected"]), (&json!([]), &json!([])), "every answer arrives, once");
    assert_eq!(seen["errors"], 0, "{seen}");
    let after = &seen["after"];
    assert_eq!(after["id"], REQUESTS as u64 + 1);
    let text = after["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("the session goes on"), "a further request works: {after}");
    assert_eq!(seen["code"], 0, "rein ends normally when the client closes stdin: {seen}");
}
