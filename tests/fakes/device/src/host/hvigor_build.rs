//! The fake hvigorw's build: the project's product, build mode and modules, each module's
//! tasks as hvigor prints them, and its package (a `.hap` or `.hsp`, [`super::hap_write`])
//! signed through [`super::hvigor_sign`].

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::common::{conf_str, outln, Conf};
use super::hvigor::{Args, Failed, P};
use super::hvigor_arkts::{self as arkts, Marker};
use super::json5::{self, Json5Error};
use super::{hap_write, hvigor_modules as modules, hvigor_pages, hvigor_sign, hvigor_tests};

const TASKS: [&str; 4] = ["clean", "assembleHap", "assembleHsp", "test"];
const BEFORE_COMPILE: [&str; 5] =
    ["GenerateMetadata", "MergeProfile", "CreateBuildProfile", "GenerateLoaderJson", "CompileResource"];

struct Ctx<'a> {
    conf: &'a Conf,
    root: &'a Path,
    app: Value,
    profile: Value,
    product: String,
    product_config: Value,
    build_mode: String,
    signing: Option<Value>,
    markers: Vec<Marker>,
    task: String,
}

pub fn read_json5(path: &Path) -> Result<Value, Failed> {
    json5::load_file(path).map_err(|e| {
        let why = match e {
            Json5Error::Io(e) => json5::strerror(&e),
            Json5Error::Syntax(e) => e,
        };
        Failed::line(format!("{P}ERROR: {}: {why}", path.display()))
    })
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// A path joined and cleaned of `.` and `..` as text (Python's `os.path.normpath`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where a module's sources are: its `srcPath`, else `./<name>`.
pub fn module_dir(root: &Path, module: &Value) -> PathBuf {
    let name = str_of(module, "name").unwrap_or("entry");
    normalize(&root.join(str_of(module, "srcPath").map(String::from).unwrap_or(format!("./{name}"))))
}

fn target_of(module: &Value, product: &str) -> String {
    for t in list(module, "targets") {
        let applies = t.get("applyToProducts").and_then(Value::as_array);
        if applies.is_none_or(|ps| ps.iter().any(|p| p.as_str() == Some(product))) {
            return str_of(t, "name").unwrap_or("default").to_string();
        }
    }
    "default".into()
}

fn select_modules(profile: &Value, args: &Args, product: &str) -> Result<Vec<(Value, String)>, Failed> {
    let modules = list(profile, "modules");
    let Some(wanted) = args.props.get("module").filter(|w| !w.is_empty()) else {
        return Ok(modules.iter().map(|m| (m.clone(), target_of(m, product))).collect());
    };
    let mut chosen = Vec::new();
    for spec in wanted.split(',') {
        let (name, target) = spec.split_once('@').unwrap_or((spec, ""));
        let Some(found) = modules.iter().find(|m| str_of(m, "name") == Some(name)) else {
            // GUESS: the words for an unknown module.
            return Err(Failed::line(format!("{P}ERROR: Unknown module '{name}'.")));
        };
        let target = if target.is_empty() { target_of(found, product) } else { target.to_string() };
        chosen.push((found.clone(), target));
    }
    Ok(chosen)
}

fn signing_config(profile: &Value, product: &str) -> Option<Value> {
    let app = profile.get("app")?;
    let wanted = list(app, "products").iter().find(|p| str_of(p, "name") == Some(product))?.get("signingConfig")?;
    list(app, "signingConfigs").iter().find(|c| c.get("name") == Some(wanted)).cloned()
}

/// Whether hvigor has an SDK at all: DEVECO_SDK_HOME, `hwsdk.dir`/`sdk.dir` in the project's
/// local.properties, or (OpenHarmony) OHOS_BASE_SDK_HOME. Without one the real hvigor stops with
/// 00303217 (shared/HARMONY.md §1, "Other failure lines"; "Windows installs").
fn sdk_given(sdk: Option<&str>) -> bool {
    if sdk.is_some() || std::env::var("OHOS_BASE_SDK_HOME").is_ok_and(|v| !v.is_empty()) {
        return true;
    }
    let Ok(text) = std::fs::read_to_string("local.properties") else { return false };
    let given = regex::Regex::new(r"(?m)^\s*(hwsdk|sdk)\.dir\s*[=:]\s*\S").expect("a valid pattern");
    given.is_match(&text)
}

/// The failures scenario.json's `fail` scripts, and a missing SDK (shared/HARMONY.md §1).
fn config_failures(conf: &Conf, daemon: bool) -> Result<(), Failed> {
    let fail = conf_str(conf, "fail").unwrap_or_default();
    let line = |text: &str| Err(Failed::line(format!("{P}ERROR: {text}")));
    if fail == "daemon" && daemon {
        return line("ENOENT: no such file or directory, uv_cwd");
    }
    let sdk = std::env::var("DEVECO_SDK_HOME").ok().filter(|s| !s.is_empty());
    if fail == "sdk_home" || sdk.as_ref().is_some_and(|s| !Path::new(s).is_dir()) || !sdk_given(sdk.as_deref()) {
        return line(
            "00303217 Configuration Error: Invalid value of 'DEVECO_SDK_HOME' in the system environment path.",
        );
    }
    match fail.as_str() {
        "sdk_home_old" => line("Unable to find 'DEVECO_SDK_HOME' in the system environment path."),
        "sdk_component" => {
            line("SDK component missing. Unable to find the following components: toolchains:12 ArkTS:12")
        }
        "dependency" => Err(Failed(vec![
            "ohpm ERROR: NOTFOUND package '@ohos/hamock@1.0.1' not found from all the registries".into(),
            format!("{P}ERROR: Failed to install dependencies with ohpm."),
        ])),
        "unknown" => line("Something went wrong while building the project."),
        _ => Ok(()),
    }
}

fn clean(root: &Path, profile: &Value) {
    for m in list(profile, "modules") {
        let dir = str_of(m, "srcPath").or(str_of(m, "name")).unwrap_or("entry");
        let _ = std::fs::remove_dir_all(root.join(dir).join("build"));
        outln(&format!("{P}Finished :{}:clean... after 3 ms", str_of(m, "name").unwrap_or("None")));
    }
    let _ = std::fs::remove_dir_all(root.join("build"));
    outln(&format!("{P}Finished ::clean... after 1 ms"));
}

pub fn build(root: &Path, args: &Args, conf: &Conf) -> Result<(), Failed> {
    super::hvigor_arkts::run_build_script(root);
    let daemon = !args.flags.contains("--no-daemon");
    if daemon {
        outln(&format!("{P}hvigor client: Starting hvigor daemon."));
        outln(&format!("{P}Hvigor Daemon started in 944 ms"));
    }
    config_failures(conf, daemon)?;
    let profile = read_json5(&root.join("build-profile.json5"))?;
    let app = read_json5(&root.join("AppScope").join("app.json5"))?.get("app").cloned().unwrap_or(json!({}));
    let product = args.props.get("product").cloned().unwrap_or_else(|| "default".into());
    let empty = json!({});
    let app_profile = profile.get("app").unwrap_or(&empty);
    let Some(product_config) =
        list(app_profile, "products").iter().find(|p| str_of(p, "name") == Some(&product)).cloned()
    else {
        return Err(Failed::line(format!("{P}ERROR: Unknown product '{product}'.")));
    };
    let build_mode = args.props.get("buildMode").cloned().unwrap_or_else(|| "debug".into());
    let modes: Vec<&str> = match app_profile.get("buildModeSet").and_then(Value::as_array) {
        Some(set) if !set.is_empty() => set.iter().filter_map(|m| str_of(m, "name")).collect(),
        _ => vec!["debug", "release"],
    };
    if !modes.contains(&build_mode.as_str()) {
        return Err(Failed::line(format!("{P}ERROR: Unknown buildMode '{build_mode}'.")));
    }
    if let Some(task) = args.tasks.iter().find(|t| !TASKS.contains(&t.as_str())) {
        return Err(Failed::line(format!("{P}ERROR: Task '{task}' was not found in the project.")));
    }
    let signing = signing_config(&profile, &product);
    let mut ctx = Ctx {
        conf,
        root,
        app,
        profile,
        product,
        product_config,
        build_mode,
        signing,
        markers: Vec::new(),
        task: String::new(),
    };
    for task in &args.tasks {
        if task == "clean" {
            clean(root, &ctx.profile);
            continue;
        }
        if task == "test" {
            for (module, _) in select_modules(&ctx.profile, args, &ctx.product)? {
                super::hvigor_local_tests::run(root, &module, &module_dir(root, &module), args, conf);
            }
            continue;
        }
        ctx.markers = arkts::scan_markers(root);
        ctx.task = task.clone();
        for (module, target) in select_modules(&ctx.profile, args, &ctx.product)? {
            build_module(&module, &target, &ctx)?;
        }
    }
    Ok(())
}

/// Prints the module's tasks and writes its package when `ctx.task` builds it (a HAP, or an HSP
/// for a shared module: [`modules`]).
fn build_module(module: &Value, target: &str, ctx: &Ctx) -> Result<(), Failed> {
    let name = str_of(module, "name").unwrap_or("entry");
    let tag = format!(":{name}:{target}@");
    let src = module_dir(ctx.root, module);
    // The ohosTest target is the test HAP, built from `src/ohosTest` (shared/HARMONY-VERIFY.md §1.5).
    let testing = target == "ohosTest";
    let sources = src.join("src").join(if testing { "ohosTest" } else { "main" });
    let manifest = read_json5(&sources.join("module.json5"))?;
    let mod_ = manifest.get("module").cloned().unwrap_or(json!({}));
    if !modules::built_by(&ctx.task, &mod_) {
        return Ok(());
    }
    let ext = modules::extension(&mod_);
    let kind = if ext == ".hsp" { "Hsp" } else { "Hap" };
    outln(&format!("{P}UP-TO-DATE {tag}PreBuild...  "));
    for task in BEFORE_COMPILE {
        outln(&format!("{P}Finished {tag}{task}... after 5 ms"));
    }
    let blocks = arkts::blocks(&ctx.markers, ctx.conf);
    if blocks.errors > 0 {
        let mut lines = vec![format!("{P}ERROR: Failed {tag}CompileArkTS... ")];
        lines.extend(blocks.warn_lines);
        lines.extend(blocks.error_lines);
        let result = format!("COMPILE RESULT:FAIL {{ERROR:{} WARN:{}}}", blocks.errors, blocks.warns);
        let tail = [
            "",
            "",
            &result,
            "",
            "* Try:",
            "> Run with --stacktrace option to get the stack trace.",
            "> Run with --debug option to get more log output.",
            "",
        ];
        lines.extend(tail.iter().map(|s| s.to_string()));
        return Err(Failed(lines));
    }
    blocks.warn_lines.iter().for_each(|l| outln(l));
    let compile = if testing { "OhosTestCompileArkTS" } else { "CompileArkTS" };
    if !testing {
        let version = read_json5(&src.join("oh-package.json5"))
            .ok()
            .and_then(|p| str_of(&p, "version").map(String::from))
            .unwrap_or_else(|| "1.0.0".into());
        super::hvigor_source_map::write(&src, name, &version, &ctx.product, &ctx.build_mode)
            .map_err(|e| Failed::line(format!("{P}ERROR: {}: {e}", src.display())))?;
    }
    outln(&format!("{P}Finished {tag}{compile}... after 2 s 117 ms"));
    outln(&format!("{P}Finished {tag}Package{kind}... after 95 ms"));
    let outdir = src.join("build").join(&ctx.product).join("outputs").join(target);
    std::fs::create_dir_all(&outdir).map_err(|e| Failed::line(format!("{P}ERROR: {}: {e}", outdir.display())))?;
    let base = outdir.join(format!("{name}-{target}"));
    let with = |suffix: &str| PathBuf::from(format!("{}-{suffix}{ext}", base.display()));
    let mut product = ctx.product_config.as_object().cloned().unwrap_or_default();
    product.insert("buildMode".into(), json!(ctx.build_mode));
    let mut module_json = hap_write::module_json(&ctx.app, &mod_, &Value::Object(product));
    module_json["module"]["dependencies"] = json!(modules::dependencies(ctx.root, &ctx.profile, &src));
    let (unsigned, signed) = (with("unsigned"), with("signed"));
    // The code beyond onCreate: a test HAP's runner and cases, an app's pages.
    let mut extra = if testing { hvigor_tests::code(ctx.root, &src) } else { json!({}) };
    let pages = hvigor_pages::pages(&mod_, &src);
    if !testing && !pages.is_null() {
        extra["pages"] = pages;
    }
    hap_write::write(&unsigned, &module_json, &arkts::abilities_logs(&mod_, &src), Some(&extra))
        .map_err(|e| Failed::line(format!("{P}ERROR: {}: {e}", unsigned.display())))?;
    let _ = std::fs::remove_file(&signed);
    sign(&tag, ctx, &unsigned, &signed)?;
    outln(&format!("{P}Finished {tag}Sign{kind}... after 4 ms"));
    outln(&format!("{P}Finished :{name}:{}... after 1 ms", ctx.task));
    Ok(())
}

/// Signs with the product's signingConfig (the real hap-sign-tool, [`hvigor_sign`]), or prints
/// the real warning when the product has none (shared/HARMONY.md §1).
fn sign(tag: &str, ctx: &Ctx, unsigned: &Path, signed: &Path) -> Result<(), Failed> {
    let Some(config) = &ctx.signing else {
        outln(&format!(
            "{P}WARN: Will skip sign 'hos_hap'. No signingConfigs profile is configured in current project."
        ));
        outln(&format!(
            "             If needed, configure the signingConfigs in {}.",
            ctx.root.join("build-profile.json5").display()
        ));
        return Ok(());
    };
    let failed = format!("{P}ERROR: Failed {tag}SignHap... ");
    let with_failed = |lines: Vec<String>| Failed(std::iter::once(failed.clone()).chain(lines).collect());
    match conf_str(ctx.conf, "fail").as_deref() {
        Some("signing") => {
            return Err(with_failed(vec![format!("{P}ERROR: Unsupported state or unable to authenticate data")]))
        }
        Some("java_missing") => {
            return Err(with_failed(vec![
                format!("{P}ERROR: Error Code: 00308018 Unknown Error"),
                "spawn java ENOENT".into(),
            ]))
        }
        _ => {}
    }
    let material: Map<String, Value> = config.get("material").and_then(Value::as_object).cloned().unwrap_or_default();
    for key in ["storeFile", "certpath", "profile"] {
        let rel = material.get(key).and_then(Value::as_str).unwrap_or("");
        let path = ctx.root.join(rel);
        if rel.is_empty() || !path.is_file() {
            return Err(with_failed(vec![format!(
                "{P}ERROR: The signing material file does not exist: {}",
                path.display()
            )]));
        }
    }
    hvigor_sign::sign(ctx.root, &material, unsigned, signed).map_err(with_failed)
}
