//! Discovery tables for Linux, macOS and Windows: (OS, environment) -> candidates, in order.

use super::*;

fn env_of<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
}

/// Each candidate as `program: shown`, in order.
fn table(os: Os, vars: &[(&str, &str)]) -> Vec<String> {
    candidates(os, &env_of(vars)).into_iter().map(|(name, c)| format!("{name}: {c}")).collect()
}

#[test]
fn linux_command_line_tools() {
    let got = table(
        Os::Linux,
        &[("DEVECO_SDK_HOME", "/opt/clt/sdk/"), ("JAVA_HOME", "/usr/lib/jvm/17"), ("HOME", "/home/dev")],
    );
    assert_eq!(
        got,
        [
            "hdc: /opt/clt/sdk/default/openharmony/toolchains/hdc (DEVECO_SDK_HOME)",
            "hap-sign-tool.jar: /opt/clt/sdk/default/openharmony/toolchains/lib/hap-sign-tool.jar (DEVECO_SDK_HOME)",
            "hvigorw: /opt/clt/bin/hvigorw (DEVECO_SDK_HOME)",
            "hvigorw: /opt/clt/hvigor/bin/hvigorw (DEVECO_SDK_HOME)",
            "ohpm: /opt/clt/bin/ohpm (DEVECO_SDK_HOME)",
            "ohpm: /opt/clt/ohpm/bin/ohpm (DEVECO_SDK_HOME)",
            "codelinter: /opt/clt/bin/codelinter (DEVECO_SDK_HOME)",
            "hstack: /opt/clt/bin/hstack (DEVECO_SDK_HOME)",
            "emulator: /opt/clt/emulator/Emulator (DEVECO_SDK_HOME)",
            "java: /usr/lib/jvm/17/bin/java (JAVA_HOME)",
            "hvigorw: /opt/clt/tools/node/bin/node /opt/clt/tools/hvigor/bin/hvigorw.js (DEVECO_SDK_HOME)",
            "hvigorw: /opt/clt/tools/hvigor/bin/hvigorw (DEVECO_SDK_HOME)",
            "ohpm: /opt/clt/tools/ohpm/bin/ohpm (DEVECO_SDK_HOME)",
            "java: /opt/clt/jbr/bin/java (DEVECO_SDK_HOME)",
            "emulator: /opt/clt/tools/emulator/Emulator (DEVECO_SDK_HOME)",
        ],
        "no DevEco Studio places on Linux but the one DEVECO_SDK_HOME may be inside"
    );
    assert!(table(Os::Linux, &[]).is_empty());
}

#[test]
fn macos_deveco_studio_app_bundle() {
    let got = table(Os::Macos, &[("HOME", "/Users/dev")]);
    let app = "/Applications/DevEco-Studio.app/Contents";
    let user = "/Users/dev/Applications/DevEco-Studio.app/Contents";
    let mut want = Vec::new();
    for (root, via) in [(app, "DevEco Studio"), (user, "DevEco Studio (user)")] {
        want.extend([
            format!("hvigorw: {root}/tools/node/bin/node {root}/tools/hvigor/bin/hvigorw.js ({via})"),
            format!("hvigorw: {root}/tools/hvigor/bin/hvigorw ({via})"),
            format!("ohpm: {root}/tools/ohpm/bin/ohpm ({via})"),
            format!("java: {root}/jbr/Contents/Home/bin/java ({via})"),
            format!("emulator: {root}/tools/emulator/Emulator ({via})"),
            format!("hdc: {root}/sdk/default/openharmony/toolchains/hdc ({via})"),
            format!("hap-sign-tool.jar: {root}/sdk/default/openharmony/toolchains/lib/hap-sign-tool.jar ({via})"),
        ]);
    }
    assert_eq!(got, want);
}

#[test]
fn windows_program_files_and_per_user_installs() {
    let got = table(
        Os::Windows,
        &[
            ("ProgramFiles", r"D:\Apps"),
            ("LOCALAPPDATA", r"C:\Users\dev\AppData\Local"),
            ("DEVECO_SDK_HOME", r"C:\clt\sdk"),
            ("OHOS_BASE_SDK_HOME", r"C:\ohos\12"),
        ],
    );
    let mut want = vec![
        r"hdc: C:\clt\sdk\default\openharmony\toolchains\hdc.exe (DEVECO_SDK_HOME)".to_string(),
        r"hap-sign-tool.jar: C:\clt\sdk\default\openharmony\toolchains\lib\hap-sign-tool.jar (DEVECO_SDK_HOME)".into(),
        r"hvigorw: C:\clt\bin\hvigorw.bat (DEVECO_SDK_HOME)".into(),
        r"hvigorw: C:\clt\hvigor\bin\hvigorw.bat (DEVECO_SDK_HOME)".into(),
        r"ohpm: C:\clt\bin\ohpm.bat (DEVECO_SDK_HOME)".into(),
        r"ohpm: C:\clt\ohpm\bin\ohpm.bat (DEVECO_SDK_HOME)".into(),
        r"codelinter: C:\clt\bin\codelinter.bat (DEVECO_SDK_HOME)".into(),
        r"hstack: C:\clt\bin\hstack.bat (DEVECO_SDK_HOME)".into(),
        r"emulator: C:\clt\emulator\Emulator.exe (DEVECO_SDK_HOME)".into(),
        r"hdc: C:\ohos\12\toolchains\hdc.exe (OHOS_BASE_SDK_HOME)".into(),
        r"hap-sign-tool.jar: C:\ohos\12\toolchains\lib\hap-sign-tool.jar (OHOS_BASE_SDK_HOME)".into(),
        r"hvigorw: C:\clt\tools\node\node.exe C:\clt\tools\hvigor\bin\hvigorw.js (DEVECO_SDK_HOME)".into(),
        r"hvigorw: C:\clt\tools\hvigor\bin\hvigorw.bat (DEVECO_SDK_HOME)".into(),
        r"ohpm: C:\clt\tools\ohpm\bin\ohpm.bat (DEVECO_SDK_HOME)".into(),
        r"java: C:\clt\jbr\bin\java.exe (DEVECO_SDK_HOME)".into(),
        r"emulator: C:\clt\tools\emulator\Emulator.exe (DEVECO_SDK_HOME)".into(),
    ];
    for (root, via) in [
        (r"D:\Apps\Huawei\DevEco Studio", "DevEco Studio"),
        (r"C:\Users\dev\AppData\Local\Huawei\DevEco Studio", "DevEco Studio (user)"),
        (r"C:\Users\dev\AppData\Local\Programs\DevEco Studio", "DevEco Studio (user)"),
    ] {
        want.extend([
            format!(r"hvigorw: {root}\tools\node\node.exe {root}\tools\hvigor\bin\hvigorw.js ({via})"),
            format!(r"hvigorw: {root}\tools\hvigor\bin\hvigorw.bat ({via})"),
            format!(r"ohpm: {root}\tools\ohpm\bin\ohpm.bat ({via})"),
            format!(r"java: {root}\jbr\bin\java.exe ({via})"),
            format!(r"emulator: {root}\tools\emulator\Emulator.exe ({via})"),
            format!(r"hdc: {root}\sdk\default\openharmony\toolchains\hdc.exe ({via})"),
            format!(r"hap-sign-tool.jar: {root}\sdk\default\openharmony\toolchains\lib\hap-sign-tool.jar ({via})"),
        ]);
    }
    assert_eq!(got, want);
    let default = table(Os::Windows, &[]);
    assert_eq!(
        default[0],
        r"hvigorw: C:\Program Files\Huawei\DevEco Studio\tools\node\node.exe C:\Program Files\Huawei\DevEco Studio\tools\hvigor\bin\hvigorw.js (DevEco Studio)",
        "without ProgramFiles set, the default install folder"
    );
}

#[test]
fn local_properties_are_parsed_like_java_properties() {
    let text = "## This file is automatically generated by DevEco Studio.\n\
                # Do not modify this file -- YOUR CHANGES WILL BE ERASED!\n\
                sdk.dir=C:\\\\Program Files\\\\Huawei\\\\DevEco Studio\\\\sdk\\\\default\n\
                nodejs.dir : C:\\\\Program Files\\\\Huawei\\\\DevEco Studio\\\\tools\\\\node\n\
                ! a comment\n\
                hwsdk.dir=/Users/dev/Library/Huawei/Sdk\n";
    let props = parse_local_properties(text);
    assert_eq!(props.sdk_dir.as_deref(), Some(r"C:\Program Files\Huawei\DevEco Studio\sdk\default"));
    assert_eq!(props.nodejs_dir.as_deref(), Some(r"C:\Program Files\Huawei\DevEco Studio\tools\node"));
    assert_eq!(parse_local_properties("# nothing\n"), LocalProperties::default());
}

#[test]
fn local_properties_candidates_are_shown_never_run() {
    let props = parse_local_properties("sdk.dir=C\\:\\\\sdk\\\\default\nnodejs.dir=C\\:\\\\node\n");
    let got: Vec<String> =
        from_local_properties(Os::Windows, &props).into_iter().map(|(n, c)| format!("{n}: {}", c.program)).collect();
    assert_eq!(
        got,
        [
            r"hdc: C:\sdk\default\openharmony\toolchains\hdc.exe",
            r"hap-sign-tool.jar: C:\sdk\default\openharmony\toolchains\lib\hap-sign-tool.jar",
            r"node: C:\node\node.exe",
        ]
    );
    let mac = parse_local_properties("sdk.dir=/Applications/DevEco-Studio.app/Contents/sdk\nnodejs.dir=/opt/node\n");
    let got: Vec<(&str, String)> =
        from_local_properties(Os::Macos, &mac).into_iter().map(|(n, c)| (n, c.program)).collect();
    assert_eq!(got[0].1, "/Applications/DevEco-Studio.app/Contents/sdk/default/openharmony/toolchains/hdc");
    assert_eq!(got[2], ("node", "/opt/node/bin/node".to_string()));
    assert!(from_local_properties(Os::Macos, &mac).iter().all(|(_, c)| c.via.contains("not run")));
}

#[test]
fn windows_deveco_on_another_drive_through_its_user_variable() {
    // DevEco's installer sets the user variable `DevEco Studio=<root>\bin` (hdc_py `_which_hdc`
    // takes its parent); the install need not be under Program Files.
    let got = table(Os::Windows, &[("DevEco Studio", r"E:\Huawei\DevEco Studio\bin;"), ("ProgramFiles", r"C:\PF")]);
    let root = r"E:\Huawei\DevEco Studio";
    assert_eq!(
        got[..3],
        [
            format!(
                r"hvigorw: {root}\tools\node\node.exe {root}\tools\hvigor\bin\hvigorw.js (the DevEco Studio user variable)"
            ),
            format!(r"hvigorw: {root}\tools\hvigor\bin\hvigorw.bat (the DevEco Studio user variable)"),
            format!(r"ohpm: {root}\tools\ohpm\bin\ohpm.bat (the DevEco Studio user variable)"),
        ],
        "{got:#?}"
    );
    assert!(got.iter().any(|c| c == &format!(r"java: {root}\jbr\bin\java.exe (the DevEco Studio user variable)")));
    assert!(
        got.iter().any(|c| c.starts_with(r"hvigorw: C:\PF\Huawei\DevEco Studio\tools")),
        "Program Files still tried"
    );
}

#[test]
fn deveco_sdk_home_leads_to_the_deveco_it_belongs_to() {
    // DEVECO_SDK_HOME=<DevEco>\sdk on any drive: DevEco's own hvigor, node and java sit beside it.
    let got = table(Os::Windows, &[("DEVECO_SDK_HOME", r"F:\DevEco Studio\sdk")]);
    let root = r"F:\DevEco Studio";
    for want in [
        format!(r"hvigorw: {root}\tools\node\node.exe {root}\tools\hvigor\bin\hvigorw.js (DEVECO_SDK_HOME)"),
        format!(r"java: {root}\jbr\bin\java.exe (DEVECO_SDK_HOME)"),
        format!(r"hdc: {root}\sdk\default\openharmony\toolchains\hdc.exe (DEVECO_SDK_HOME)"),
    ] {
        assert!(got.contains(&want), "{want} in {got:#?}");
    }
}

#[test]
fn local_properties_hwsdk_dir_is_read_like_sdk_dir() {
    let props = parse_local_properties("hwsdk.dir=D\\:\\\\DevEco Studio\\\\sdk\n");
    assert_eq!(props.hwsdk_dir.as_deref(), Some(r"D:\DevEco Studio\sdk"));
    let got: Vec<String> =
        from_local_properties(Os::Windows, &props).into_iter().map(|(n, c)| format!("{n}: {}", c.program)).collect();
    assert_eq!(
        got,
        [
            r"hdc: D:\DevEco Studio\sdk\default\openharmony\toolchains\hdc.exe",
            r"hap-sign-tool.jar: D:\DevEco Studio\sdk\default\openharmony\toolchains\lib\hap-sign-tool.jar",
        ]
    );
}
