//! A new HarmonyOS/OpenHarmony project: DevEco 6's "Empty Ability" (shared/HARMONY-VERIFY.md
//! §5, `templates`) with the caller's bundle name, app name and SDK levels, checked before any
//! file is made. This room only renders the files; the caller writes them through the kernel
//! (the `project_create` tool, `rein new app`).

mod templates;

use crate::harmony::config_check::is_bundle_name;
use crate::harmony::config_check::sdk_level::{self, Form, NotALevel, SdkLevel};

/// What the caller asked for, as given (a level is a JSON string or integer).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Request {
    pub bundle_name: String,
    pub app_name: String,
    #[serde(default = "harmony_os")]
    pub runtime_os: String,
    #[serde(default)]
    pub compatible_sdk: Option<serde_json::Value>,
    #[serde(default)]
    pub target_sdk: Option<serde_json::Value>,
    #[serde(default)]
    pub compile_sdk: Option<serde_json::Value>,
    #[serde(default)]
    pub model_version: Option<String>,
}

fn harmony_os() -> String {
    "HarmonyOS".into()
}

/// DevEco 6.0.0's template targets `"6.0.0(20)"` with `modelVersion` `"6.0.0"` (§5).
const DEFAULT_VERSION: &str = "6.0.0(20)";
const DEFAULT_API: i64 = 20;
const DEFAULT_MODEL_VERSION: &str = "6.0.0";

/// Why a request makes no project: the argument, and what to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{argument}: {problem}")]
pub struct BadRequest {
    pub argument: &'static str,
    pub problem: String,
}

/// A project file to write: its path relative to the project folder, and its bytes.
pub struct NewFile {
    pub path: &'static str,
    pub bytes: Vec<u8>,
}

/// The project's files, or why the request makes none.
pub fn render(request: &Request) -> Result<Vec<NewFile>, BadRequest> {
    let bad = |argument, problem: String| BadRequest { argument, problem };
    if !is_bundle_name(&request.bundle_name) {
        return Err(bad("bundle_name", format!("{:?} is not a bundle name: write a reverse domain name of 7 to 128 characters with at least three parts, e.g. \"com.example.hello\"", request.bundle_name)));
    }
    if request.app_name.trim().is_empty() || request.app_name.chars().count() > 63 {
        return Err(bad("app_name", "write the name people see, 1 to 63 characters".into()));
    }
    let form = match request.runtime_os.as_str() {
        "HarmonyOS" => Form::Version,
        "OpenHarmony" => Form::Integer,
        other => {
            return Err(bad(
                "runtime_os",
                format!("{other:?} is not a runtime OS: write \"HarmonyOS\" or \"OpenHarmony\""),
            ))
        }
    };
    let default = match form {
        Form::Version => serde_json::Value::from(DEFAULT_VERSION),
        Form::Integer => serde_json::Value::from(DEFAULT_API),
    };
    let compatible = level("compatible_sdk", request.compatible_sdk.as_ref().unwrap_or(&default), form)?;
    let target = match &request.target_sdk {
        Some(v) => level("target_sdk", v, form)?,
        None => compatible.clone(),
    };
    let compile = request.compile_sdk.as_ref().map(|v| level("compile_sdk", v, form)).transpose()?;
    let mut ordered = vec![("compatible_sdk", &compatible), ("target_sdk", &target)];
    ordered.extend(compile.as_ref().map(|c| ("compile_sdk", c)));
    let apis: Vec<&SdkLevel> = ordered.iter().map(|o| o.1).collect();
    if let Some((low, high)) = sdk_level::out_of_order(&apis) {
        let ((lname, l), (hname, h)) = (ordered[low], ordered[high]);
        return Err(bad(
            lname,
            format!("{l} is above {hname} {h}: write levels that keep compatible ≤ target ≤ compile"),
        ));
    }
    let model_version = request.model_version.as_deref().unwrap_or(DEFAULT_MODEL_VERSION);
    if SdkLevel::from_version(&format!("{model_version}(1)")).is_err() {
        return Err(bad(
            "model_version",
            format!("{model_version:?} is not a version: write the hvigor version, e.g. \"6.0.0\""),
        ));
    }
    let mut sdk_fields = String::new();
    for (field, value) in [
        ("compileSdkVersion", compile.as_ref()),
        ("targetSdkVersion", Some(&target)),
        ("compatibleSdkVersion", Some(&compatible)),
    ] {
        if let Some(v) = value {
            let written = match form {
                Form::Version => json_string(&v.written),
                Form::Integer => v.written.clone(),
            };
            sdk_fields.push_str(&format!("        \"{field}\": {written},\n"));
        }
    }
    let app_name = json_string(&request.app_name);
    let substitutions = [
        ("{{BUNDLE_NAME}}", request.bundle_name.as_str()),
        ("\"{{APP_NAME}}\"", app_name.as_str()),
        ("{{SDK_FIELDS}}\n", sdk_fields.as_str()),
        ("{{RUNTIME_OS}}", request.runtime_os.as_str()),
        ("{{MODEL_VERSION}}", model_version),
    ];
    Ok(templates::EMPTY_ABILITY
        .iter()
        .map(|t| {
            let bytes = if t.text {
                let mut text = String::from_utf8_lossy(t.bytes).into_owned();
                for (from, to) in substitutions {
                    text = text.replace(from, to);
                }
                text.into_bytes()
            } else {
                t.bytes.to_vec()
            };
            NewFile { path: t.path, bytes }
        })
        .collect())
}

/// A level in the form `form` wants: HarmonyOS writes a version string, OpenHarmony an integer.
fn level(argument: &'static str, value: &serde_json::Value, form: Form) -> Result<SdkLevel, BadRequest> {
    let bad = |e: NotALevel| BadRequest { argument, problem: e.to_string() };
    match (value, form) {
        (serde_json::Value::String(s), Form::Version) => SdkLevel::from_version(s).map_err(bad),
        (serde_json::Value::Number(n), Form::Integer) => SdkLevel::from_integer(n.as_i64().unwrap_or(0)).map_err(bad),
        (_, Form::Version) => Err(BadRequest {
            argument,
            problem: format!(
                "{value} is not the form HarmonyOS writes: write a version string such as \"6.0.0(20)\" or \"26.0.0\""
            ),
        }),
        (_, Form::Integer) => Err(BadRequest {
            argument,
            problem: format!("{value} is not the form OpenHarmony writes: write the API level as an integer, e.g. 20"),
        }),
    }
}

fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod checked_tests;
#[cfg(test)]
mod tests;
