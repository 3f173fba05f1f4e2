use serde_json::json;

use super::{render, Request};

fn request(args: serde_json::Value) -> Request {
    serde_json::from_value(args).unwrap()
}

fn text_of(args: serde_json::Value, path: &str) -> String {
    let files = render(&request(args)).unwrap();
    String::from_utf8(files.into_iter().find(|f| f.path == path).unwrap().bytes).unwrap()
}

#[test]
fn every_file_the_template_lists_with_the_callers_names_and_levels() {
    let args = json!({"bundle_name": "com.example.hello", "app_name": "Hé \"llo\"", "compatible_sdk": "5.0.0(12)", "target_sdk": "6.0.0(20)"});
    let files = render(&request(args.clone())).unwrap();
    for path in [
        "entry/src/ohosTest/module.json5",
        "entry/src/test/LocalUnit.test.ets",
        "code-linter.json5",
        ".gitignore",
        "entry/src/main/resources/base/media/startIcon.png",
    ] {
        assert!(files.iter().any(|f| f.path == path), "{path}");
    }
    assert!(files.iter().all(|f| !String::from_utf8_lossy(&f.bytes).contains("{{")), "no placeholder left");
    let profile = text_of(args.clone(), "build-profile.json5");
    assert!(
        profile.contains("\"targetSdkVersion\": \"6.0.0(20)\",")
            && profile.contains("\"compatibleSdkVersion\": \"5.0.0(12)\",")
    );
    assert!(!profile.contains("compileSdkVersion"), "compile only when asked");
    let strings: serde_json::Value =
        serde_json::from_str(&text_of(args, "AppScope/resources/base/element/string.json")).unwrap();
    assert_eq!(strings["string"][0]["value"], json!("Hé \"llo\""));
    let oh = text_of(
        json!({"bundle_name": "com.example.hello", "app_name": "H", "runtime_os": "OpenHarmony", "compatible_sdk": 12, "compile_sdk": 20}),
        "build-profile.json5",
    );
    assert!(
        oh.contains("\"compileSdkVersion\": 20,")
            && oh.contains("\"compatibleSdkVersion\": 12,")
            && oh.contains("\"OpenHarmony\""),
        "{oh}"
    );
}

#[test]
fn bad_requests_name_the_argument_and_what_to_write() {
    let cases = [
        (json!({"bundle_name": "hello", "app_name": "H"}), "bundle_name"),
        (json!({"bundle_name": "com.example.hello", "app_name": " "}), "app_name"),
        (json!({"bundle_name": "com.example.hello", "app_name": "H", "compatible_sdk": 20}), "compatible_sdk"),
        (json!({"bundle_name": "com.example.hello", "app_name": "H", "compatible_sdk": "5.0.0"}), "compatible_sdk"),
        (
            json!({"bundle_name": "com.example.hello", "app_name": "H", "runtime_os": "OpenHarmony", "compatible_sdk": "6.0.0(20)"}),
            "compatible_sdk",
        ),
        (
            json!({"bundle_name": "com.example.hello", "app_name": "H", "compatible_sdk": "6.0.0(20)", "target_sdk": "5.0.0(12)"}),
            "compatible_sdk",
        ),
        (
            json!({"bundle_name": "com.example.hello", "app_name": "H", "target_sdk": "26.0.0", "compile_sdk": "6.0.0(20)"}),
            "target_sdk",
        ),
        (json!({"bundle_name": "com.example.hello", "app_name": "H", "runtime_os": "Android"}), "runtime_os"),
    ];
    for (args, argument) in cases {
        let e = render(&request(args.clone())).err().unwrap_or_else(|| panic!("{args}"));
        assert_eq!(e.argument, argument, "{args}: {e}");
        assert!(e.problem.contains("write"), "{e}");
    }
}
