use super::*;

struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    kernel: Kernel,
    transit: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let (ws, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let kernel = Kernel::new(ws.path(), home.path()).unwrap();
    let transit = ws.path().join(RECEIVED_DIR);
    Fixture { _dirs: (ws, home), kernel, transit }
}

fn recv(remote: &str, name: &str) -> Vec<String> {
    ["-t", "K1", "file", "recv", remote, &format!("{RECEIVED_DIR}/{name}")].map(String::from).to_vec()
}

fn device_file(name: &str) -> String {
    format!("{DEVICE_TMP}{name}")
}

/// What hdc does once admitted: writes the file.
fn received(f: &Fixture, call: &Call, name: &str, bytes: &[u8]) {
    assert_eq!(f.kernel.admit_recv(call, &recv(&device_file(name), name)), Some(Ok(())));
    std::fs::write(f.transit.join(name), bytes).unwrap();
}

#[test]
fn names_are_the_kernels_unguessable_and_of_rein_s_shape() {
    let f = fixture();
    let call = Call::new();
    let a = f.kernel.reserve_received(&call, "screen", "jpeg").unwrap();
    let b = f.kernel.reserve_received(&call, "screen", "jpeg").unwrap();
    assert_ne!(a.name, b.name);
    let hex = a.name.strip_prefix("rein-screen-").and_then(|r| r.strip_suffix(".jpeg")).unwrap();
    assert!(hex.len() == 32 && hex.bytes().all(|c| c.is_ascii_hexdigit()), "{}", a.name);
    assert!(is_rein_file_name(&a.name));
    assert_eq!(a.path, format!(".rein-received/{}", a.name));
    assert!(f.transit.is_dir());
    for (what, ext) in [("", "jpeg"), ("Screen", "jpeg"), ("screen-1", "jpeg"), ("ui", "txt"), ("ui", "json/..")] {
        assert!(f.kernel.reserve_received(&call, what, ext).is_err(), "{what:?} {ext:?}");
    }
}

#[test]
fn only_the_reserving_call_receives_a_name_once_from_its_own_device_file() {
    let f = fixture();
    let (mine, other) = (Call::new(), Call::new());
    let name = f.kernel.reserve_received(&mine, "ui", "json").unwrap().name;
    let refused = |call: &Call, args: Vec<String>| match f.kernel.admit_recv(call, &args) {
        Some(Err(why)) => why.to_string(),
        verdict => panic!("{args:?} was not refused: {verdict:?}"),
    };
    assert!(refused(&other, recv(&device_file(&name), &name)).contains("no name rein reserved for this call"));
    assert!(refused(&mine, recv("/data/local/tmp/rein-ui-1.json", &name)).contains("receives only the device's"));
    assert!(refused(&mine, recv(&device_file("rein-ui-1.json"), "rein-ui-1.json")).contains("no name rein reserved"));
    // A nested call of the same tree shares the reservation (a recipe's step, a parallel branch).
    let child = mine.acting_as(crate::kernel::Actor::new("screen", None));
    assert_eq!(f.kernel.admit_recv(&child, &recv(&device_file(&name), &name)), Some(Ok(())));
    assert!(refused(&mine, recv(&device_file(&name), &name)).contains("received already"));
    // Not a recv into the transit folder: not this rule's.
    let elsewhere = ["file", "recv", "/data/local/tmp/x.json", "shots/x.json"].map(String::from);
    assert_eq!(f.kernel.admit_recv(&mine, &elsewhere), None);
}

#[test]
fn a_file_there_before_the_recv_is_refused_and_never_taken() {
    let f = fixture();
    let call = Call::new();
    let name = f.kernel.reserve_received(&call, "screen", "jpeg").unwrap().name;
    std::fs::write(f.transit.join(&name), b"\xFF\xD8\xFFforged").unwrap();
    let verdict = f.kernel.admit_recv(&call, &recv(&device_file(&name), &name));
    assert!(matches!(&verdict, Some(Err(why)) if why.to_string().contains("there before the recv")), "{verdict:?}");
    let taken = f.kernel.take_received(&call, &name);
    assert!(taken.unwrap_err().to_string().contains("no hdc of this call received it"));
    assert!(f.kernel.take_received(&call, &name).is_err(), "the reservation ended with the refused take");
}

#[test]
fn take_gives_what_its_own_recv_brought_once_and_removes_it() {
    let f = fixture();
    let (call, other) = (Call::new(), Call::new());
    let name = f.kernel.reserve_received(&call, "screen", "jpeg").unwrap().name;
    received(&f, &call, &name, b"\xFF\xD8\xFFshot");
    assert!(f.kernel.take_received(&other, &name).is_err(), "another call takes nothing of it");
    assert!(f.transit.join(&name).exists());
    assert_eq!(f.kernel.take_received(&call, &name).unwrap(), b"\xFF\xD8\xFFshot");
    assert!(!f.transit.join(&name).exists());
    assert!(f.kernel.take_received(&call, &name).is_err(), "once");
}

#[cfg(unix)]
#[test]
fn a_link_is_never_taken_nor_a_folder_that_is_a_link_used() {
    let f = fixture();
    let call = Call::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("mine.jpeg"), b"\xFF\xD8\xFFmine").unwrap();
    // A second name for a file someone else can change, and a symlink, in the file's place.
    let hard = f.kernel.reserve_received(&call, "screen", "jpeg").unwrap().name;
    let soft = f.kernel.reserve_received(&call, "ui", "json").unwrap().name;
    assert_eq!(f.kernel.admit_recv(&call, &recv(&device_file(&hard), &hard)), Some(Ok(())));
    assert_eq!(f.kernel.admit_recv(&call, &recv(&device_file(&soft), &soft)), Some(Ok(())));
    let workspace_file = f.transit.parent().unwrap().join("shot.jpeg");
    std::fs::write(&workspace_file, b"\xFF\xD8\xFFforged").unwrap();
    std::fs::hard_link(&workspace_file, f.transit.join(&hard)).unwrap();
    std::os::unix::fs::symlink(outside.path().join("mine.jpeg"), f.transit.join(&soft)).unwrap();
    assert!(f.kernel.take_received(&call, &hard).unwrap_err().to_string().contains("with one name"));
    assert!(f.kernel.take_received(&call, &soft).is_err());
    assert!(outside.path().join("mine.jpeg").exists() && workspace_file.exists(), "neither followed");
    // The folder swapped for a link to another folder: not used, neither to reserve nor to take.
    let name = f.kernel.reserve_received(&call, "screen", "jpeg").unwrap().name;
    std::fs::rename(&f.transit, f.transit.with_file_name("moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), &f.transit).unwrap();
    let verdict = f.kernel.admit_recv(&call, &recv(&device_file(&name), &name));
    assert!(matches!(verdict, Some(Err(_))), "{verdict:?}");
    assert!(f.kernel.reserve_received(&call, "screen", "jpeg").is_err(), "a link in the folder's place");
}

#[test]
fn the_recv_rule_reads_only_a_recv_into_the_transit_folder() {
    let args = |line: &str| line.split(' ').map(String::from).collect::<Vec<_>>();
    let cases = [
        (
            "file recv /data/local/tmp/rein-ui-1.json .rein-received/rein-ui-1.json",
            Some(("/data/local/tmp/rein-ui-1.json", "rein-ui-1.json")),
        ),
        ("-t K1 -s 127.0.0.1:8710 file recv /r .rein-received/rein-a.jpeg", Some(("/r", "rein-a.jpeg"))),
        ("file recv /r .rein-received/rein-a.jpeg extra", None),
        ("file recv /r .rein-received/../rein-a.jpeg", None),
        ("file recv /r .rein-receivedx/rein-a.jpeg", None),
        ("file recv /r shots/rein-a.jpeg", None),
        ("file send .rein-received/rein-a.jpeg /data/local/tmp/rein-a.jpeg", None),
    ];
    for (line, want) in cases {
        let a = args(line);
        assert_eq!(recv_into_transit(&a), want, "{line}");
    }
}
