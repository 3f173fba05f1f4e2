//! The project's root files and the references between them: `AppScope/app.json5`, the root
//! `build-profile.json5` (products, their signingConfig and SDK levels; modules ↔ folders),
//! `oh-package.json5` and `hvigor/hvigor-config.json5` (the same `modelVersion`), then each
//! listed module (`module`).

use jsonc_parser::ast::{Object, Value};
use jsonc_parser::common::Ranged;

use super::fields::{at, optional, required, text, Kind};
use super::module::{self, parsed, Listed};
use super::resources::Resources;
use super::sdk_level::{self, Form, SdkLevel};
use super::spans::Located;
use super::{join, Found};

/// Folders at a project's root that are never modules.
const NOT_MODULES: [&str; 6] = ["AppScope", "hvigor", "oh_modules", "node_modules", "build", "signing"];

pub fn check(found: &mut Found, root: &str) {
    let app_resources = join(root, "AppScope/resources");
    app(found, root, &app_resources);
    let modules = build_profile(found, root);
    model_versions(found, root);
    for listed in &modules {
        module::check(found, listed, &app_resources);
    }
}

fn app(found: &mut Found, root: &str, app_resources: &str) {
    let Some(file) = found.load(&join(root, "AppScope/app.json5"), true) else { return };
    let mut resources = Resources::new(vec![app_resources.to_string()]);
    parsed(found, &file, |found, file, object| {
        let Some(Value::Object(app)) =
            required(found, file, object, "app", Kind::Object, "{ \"bundleName\": \"com.example.app\", … }")
        else {
            return;
        };
        let bundle = required(found, file, app, "bundleName", Kind::Str, "\"com.example.app\"");
        if let Some(name) = text(bundle).filter(|n| !is_bundle_name(n)) {
            found.error(
                file,
                at(bundle.unwrap()),
                format!("bundleName \"{name}\" is not a bundle name"),
                "write a reverse domain name of 7 to 128 characters with at least three parts, e.g. \"com.example.app\"".into(),
            );
        }
        required(found, file, app, "versionCode", Kind::Int, "1000000");
        required(found, file, app, "versionName", Kind::Str, "\"1.0.0\"");
        required(found, file, app, "icon", Kind::Str, "\"$media:layered_image\"");
        required(found, file, app, "label", Kind::Str, "\"$string:app_name\"");
        optional(found, file, app, "vendor", Kind::Str, "\"example\"");
        for prop in &app.properties {
            resources.check_all(found, file, &prop.value);
        }
    });
}

/// The SDK schema's pattern for bundleName (`toolchains/modulecheck/app.json`):
/// `^(?:[a-zA-Z](?:\w*[0-9a-zA-Z])?)(?:\.[0-9a-zA-Z](?:\w*[0-9a-zA-Z])?){2,}$`, 7 to 128 long.
pub fn is_bundle_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('.').collect();
    let part_ok = |p: &str, first: bool| {
        let (Some(a), Some(z)) = (p.chars().next(), p.chars().last()) else { return false };
        (if first { a.is_ascii_alphabetic() } else { a.is_ascii_alphanumeric() })
            && z.is_ascii_alphanumeric()
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    (7..=128).contains(&name.len()) && parts.len() >= 3 && parts.iter().enumerate().all(|(i, p)| part_ok(p, i == 0))
}

/// The root build-profile.json5; returns the modules it lists.
fn build_profile(found: &mut Found, root: &str) -> Vec<Listed> {
    let mut listed = Vec::new();
    let Some(file) = found.load(&join(root, "build-profile.json5"), true) else { return listed };
    parsed(found, &file, |found, file, object| {
        if let Some(Value::Object(app)) = required(found, file, object, "app", Kind::Object, "{ \"products\": [ … ] }")
        {
            products(found, file, app);
        }
        if let Some(Value::Array(modules)) =
            required(found, file, object, "modules", Kind::Array, "[{ \"name\": \"entry\", \"srcPath\": \"./entry\" }]")
        {
            for item in &modules.elements {
                let Some(m) = item.as_object() else {
                    found.error(
                        file,
                        at(item),
                        "each module must be an object".into(),
                        "write { \"name\": \"entry\", \"srcPath\": \"./entry\" }".into(),
                    );
                    continue;
                };
                let Some(name) = text(required(found, file, m, "name", Kind::Str, "\"entry\"")) else { continue };
                let src = optional(found, file, m, "srcPath", Kind::Str, "\"./entry\"");
                let dir = join(root, text(src).unwrap_or(name));
                if listed.iter().any(|l: &Listed| l.name == name) {
                    found.error(
                        file,
                        at(item),
                        format!("module \"{name}\" is listed twice"),
                        "remove one of them".into(),
                    );
                    continue;
                }
                let manifest = join(&dir, "src/main/module.json5");
                if !found.exists(&manifest) {
                    found.error(
                        file,
                        src.map_or(at(item), at),
                        format!("module \"{name}\" has no folder with {manifest}"),
                        format!("write the module's folder in \"srcPath\", or create {manifest}"),
                    );
                    continue;
                }
                listed.push(Listed { name: name.to_string(), dir });
            }
            unlisted(found, file, root, &listed, modules.range.start);
        }
    });
    listed
}

/// Folders that hold a module but are not listed: hvigor does not build them.
fn unlisted(found: &mut Found, file: &Located, root: &str, listed: &[Listed], offset: usize) {
    for name in found.files.names_in(root) {
        if name.starts_with('.') || NOT_MODULES.contains(&name.as_str()) {
            continue;
        }
        let dir = join(root, &name);
        if listed.iter().any(|l| l.dir == dir) || !found.exists(&join(&dir, "src/main/module.json5")) {
            continue;
        }
        found.warning(
            file,
            offset,
            format!("folder {dir} holds a module that \"modules\" does not list: hvigor does not build it"),
            format!("add {{ \"name\": \"{name}\", \"srcPath\": \"./{name}\", \"targets\": [{{ \"name\": \"default\", \"applyToProducts\": [\"default\"] }}] }}"),
        );
    }
}

fn products(found: &mut Found, file: &Located, app: &Object) {
    let mut configs = Vec::new();
    let signing = optional(found, file, app, "signingConfigs", Kind::Array, "[]");
    if let Some(Value::Array(list)) = signing {
        for item in &list.elements {
            match item.as_object() {
                Some(c) => {
                    configs.extend(text(required(found, file, c, "name", Kind::Str, "\"default\"")).map(String::from))
                }
                None => found.error(
                    file,
                    at(item),
                    "each signingConfig must be an object".into(),
                    "write { \"name\": \"default\", \"material\": { … } }".into(),
                ),
            }
        }
    }
    let Some(Value::Array(list)) = required(found, file, app, "products", Kind::Array, "[{ \"name\": \"default\" }]")
    else {
        return;
    };
    for item in &list.elements {
        let Some(product) = item.as_object() else {
            found.error(
                file,
                at(item),
                "each product must be an object".into(),
                "write { \"name\": \"default\", … }".into(),
            );
            continue;
        };
        required(found, file, product, "name", Kind::Str, "\"default\"");
        signing_config(found, file, product, &configs);
        sdk_levels(found, file, product);
    }
}

/// A product's signingConfig must name one of signingConfigs. DevEco's own template names
/// `"default"` with no signingConfigs at all, and hvigor then builds unsigned with a warning
/// (shared/HARMONY.md §1: "Will skip sign 'hos_hap'"): a warning, not an error.
fn signing_config(found: &mut Found, file: &Located, product: &Object, configs: &[String]) {
    let value = optional(found, file, product, "signingConfig", Kind::Str, "\"default\"");
    let Some(name) = text(value) else { return };
    if configs.iter().any(|c| c == name) {
        return;
    }
    let at_value = at(value.unwrap());
    if configs.is_empty() && name == "default" {
        found.warning(
            file,
            at_value,
            "signingConfig \"default\" names no signingConfigs entry: hvigor builds the packages unsigned".into(),
            "add a \"default\" entry to app.signingConfigs (DevEco: File > Project Structure > Signing Configs), or sign with hap_sign".into(),
        );
        return;
    }
    let known = if configs.is_empty() { "none".to_string() } else { configs.join(", ") };
    found.error(
        file,
        at_value,
        format!("signingConfig \"{name}\" names no entry of app.signingConfigs (defined: {known})"),
        format!("write one of the defined names, or add {{ \"name\": \"{name}\", \"material\": {{ … }} }} to app.signingConfigs"),
    );
}

/// compatible ≤ target ≤ compile, each where written, in the form the product's runtimeOS writes.
fn sdk_levels(found: &mut Found, file: &Located, product: &Object) {
    let runtime = text(optional(found, file, product, "runtimeOS", Kind::Str, "\"HarmonyOS\"")).map(String::from);
    let mut levels: Vec<(&str, SdkLevel, usize)> = Vec::new();
    for field in sdk_level::FIELDS {
        let Some(prop) = product.get(field) else { continue };
        let parsed = match &prop.value {
            Value::StringLit(s) => SdkLevel::from_version(&s.value),
            Value::NumberLit(n) => n
                .value
                .parse::<i64>()
                .map_err(|_| sdk_level::NotALevel { text: n.value.to_string() })
                .and_then(SdkLevel::from_integer),
            other => Err(sdk_level::NotALevel {
                text: {
                    let r = other.range();
                    file.text[r.start..r.end].to_string()
                },
            }),
        };
        match parsed {
            Ok(level) => levels.push((field, level, at(&prop.value))),
            Err(e) => found.error(
                file,
                at(&prop.value),
                format!("{field}: {e}"),
                format!("write \"{field}\": \"6.0.0(20)\" (HarmonyOS) or {field}: 20 (OpenHarmony)"),
            ),
        }
    }
    if let Some(os) = runtime.as_deref() {
        let expected = SdkLevel::expected_form(os);
        for (field, level, offset) in &levels {
            if level.form != expected {
                let write = match expected {
                    Form::Version => "the quoted version string, e.g. \"6.0.0(20)\"",
                    Form::Integer => "the API level as an integer, e.g. 20",
                };
                found.warning(
                    file,
                    *offset,
                    format!("{field} {} is not the form a {os} product writes", level.written),
                    format!("write {write}"),
                );
            }
        }
    }
    let refs: Vec<&SdkLevel> = levels.iter().map(|l| &l.1).collect();
    if let Some((low, high)) = sdk_level::out_of_order(&refs) {
        let ((lf, ll, lo), (hf, hl, _)) = (&levels[low], &levels[high]);
        found.error(
            file,
            *lo,
            format!("{lf} {ll} is above {hf} {hl}: the levels must keep compatible ≤ target ≤ compile"),
            format!("lower {lf} to API {} or less, or raise {hf}", hl.api),
        );
    }
}

/// `modelVersion` of hvigor-config.json5 must equal the root oh-package.json5's (§5).
fn model_versions(found: &mut Found, root: &str) {
    let package = version_of(found, &join(root, "oh-package.json5"));
    let hvigor = version_of(found, &join(root, "hvigor/hvigor-config.json5"));
    let (Some((pf, pv)), Some((hf, hv))) = (package, hvigor) else { return };
    match (pv, hv) {
        (Some((p, _)), Some((h, offset))) if p != h => found.error(
            &hf,
            offset,
            format!("modelVersion \"{h}\" differs from oh-package.json5's \"{p}\""),
            format!("write \"modelVersion\": \"{p}\" in both files (the hvigor version the project is for)"),
        ),
        (Some((p, _)), None) => found.error(
            &hf,
            0,
            format!("modelVersion is missing; oh-package.json5 has \"{p}\""),
            format!("add \"modelVersion\": \"{p}\""),
        ),
        (None, Some((h, _))) => found.error(
            &pf,
            0,
            format!("modelVersion is missing; hvigor-config.json5 has \"{h}\""),
            format!("add \"modelVersion\": \"{h}\""),
        ),
        _ => {}
    }
}

/// The file, and its modelVersion with where it is.
fn version_of(found: &mut Found, path: &str) -> Option<(Located, Option<(String, usize)>)> {
    let file = found.load(path, true)?;
    let mut version = None;
    parsed(found, &file, |found, file, object| {
        let value = optional(found, file, object, "modelVersion", Kind::Str, "\"6.0.0\"");
        version = text(value).map(|v| (v.to_string(), at(value.unwrap())));
        optional(found, file, object, "dependencies", Kind::Object, "{}");
    })?;
    Some((file, version))
}
