//! A lab across machines through hdc's own server: home config names another machine's hdc
//! server once (`[devices.lab] server = "host:port"`), and then its devices are listed with
//! the server they come from, commands to them are judged like local ones, and device-matrix
//! fans out across both servers. Two rigs, each in a network of its own with only loopback, stand for the two
//! machines; rein reaches the lab's server at 127.0.0.1 through a relay (never any other address).

use serde_json::json;

use crate::common::rig::two_rig_lab;

/// A project tool that runs `hdc -s SERVER list targets -v` as any script could.
const LISTS: &str = r#"return { name = "lists", description = "hdc -s SERVER list targets -v",
  params = { server = { type = "string" } },
  run = function(args)
    return { out = rein.proc.run("hdc", { "-s", args.server, "list", "targets", "-v" }).stdout }
  end }"#;

#[test]
fn devices_of_a_named_lab_server_are_listed_judged_like_local_ones_and_deployed_to() {
    let Some((lab, local, remote, _relay)) = two_rig_lab() else { return };
    let listed = lab.ok(&[], "device_list", json!({}));
    assert_eq!(
        listed["devices"],
        json!([
            {"key": local.key, "conn": "TCP", "status": "Connected", "name": "rig-a", "server": "local"},
            {"key": remote.key, "conn": "TCP", "status": "Connected", "name": "rig-b", "server": "lab",
             "server_address": remote.server()},
        ]),
        "{listed}"
    );
    assert_eq!(listed["servers"][1], json!({"name": "lab", "server": remote.server(), "is_local": false}));

    // Named: a read is allowed as on this machine's server. Unnamed (another loopback port
    // too, which may tunnel anywhere): a person is asked.
    lab.ws.file("tools/lists.lua", LISTS);
    let named = lab.ok(&[], "lists", json!({"server": remote.server()}));
    assert!(named["out"].as_str().unwrap().contains("rig-b"), "{named}");
    let unnamed = lab.failed(&[], "lists", json!({"server": "127.0.0.1:27730"}), "APPROVAL_REQUIRED");
    assert!(unnamed["message"].as_str().unwrap().contains("-s 127.0.0.1:27730"), "{unnamed}");
    // A lab device's log, found by its key alone: no question, as on a local device.
    lab.ok(&[], "hilog_read", json!({"target": remote.key}));

    let (status, out) = lab.recipe(&["--yes"], "device-matrix", json!({}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let rows = crate::common::lab::step(&report, "devices")["output"]["rows"].as_array().unwrap().clone();
    let servers: Vec<(&str, &str, bool)> = rows
        .iter()
        .map(|r| (r["target"].as_str().unwrap(), r["server"].as_str().unwrap(), r["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(servers, [(local.key.as_str(), "local", true), (remote.key.as_str(), "lab", true)], "{report:#}");
    // Each device's screen, received through its own real hdc server, kept under its label.
    for row in &rows {
        let label = row["label"].as_str().unwrap_or_else(|| panic!("{row}"));
        let shot = row["screenshot"].as_str().unwrap_or_else(|| panic!("{row}"));
        assert!(shot.ends_with(&format!("/screen-{label}.jpeg")), "{row}");
        assert_eq!(&std::fs::read(lab.ws.path(shot)).unwrap()[..3], &[0xFF, 0xD8, 0xFF], "{row}");
        assert!(row["ui_text"].as_str().is_some_and(|t| t.ends_with(&format!("/layout-{label}.txt"))), "{row}");
    }
    assert_ne!(rows[0]["label"], rows[1]["label"], "{rows:?}");
    for key in [&local.key, &remote.key] {
        let app = &lab.read_device(key)["installed"]["com.example.hello"];
        assert_eq!(app["signer"], json!(lab.signer()), "{key}: {app}");
    }
    // The lab's device was reached through its own server: rein passed -s for it.
    let journal = crate::common::journal_text(&lab.ws.ws);
    assert!(journal.contains(&format!("hdc -p -s {} -t {} install", remote.server(), remote.key)), "{journal}");
}
