//! config_check's rules on the new project in memory: DevEco's template as rein writes it is
//! clean, and each broken reference is reported at its place with what to write.

use std::collections::BTreeMap;

use super::{render, Request};
use crate::harmony::config_check::{check, Fetched, Problem, ProjectFiles, Severity};

pub struct Memory(pub BTreeMap<String, String>);

impl ProjectFiles for Memory {
    fn read(&self, path: &str) -> Fetched {
        match self.0.get(path) {
            Some(text) => Fetched::Text(text.clone()),
            None => Fetched::Missing,
        }
    }

    fn names_in(&self, dir: &str) -> Vec<String> {
        let prefix = if dir == "." { String::new() } else { format!("{dir}/") };
        let mut names: Vec<String> = self
            .0
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .map(|rest| rest.split('/').next().unwrap().to_string())
            .collect();
        names.dedup();
        names
    }
}

fn template() -> Memory {
    let request: Request =
        serde_json::from_value(serde_json::json!({"bundle_name": "com.example.hello", "app_name": "Hello"})).unwrap();
    let files = render(&request).unwrap();
    Memory(files.into_iter().map(|f| (f.path.to_string(), String::from_utf8_lossy(&f.bytes).into_owned())).collect())
}

impl Memory {
    fn replace(&mut self, path: &str, from: &str, to: &str) {
        let text = self.0.get_mut(path).unwrap();
        assert!(text.contains(from), "{path} holds {from}");
        *text = text.replacen(from, to, 1);
    }

    /// Line and column (from 1) of the first `needle` in `path`.
    fn place(&self, path: &str, needle: &str) -> (usize, usize) {
        let text = &self.0[path];
        let at = text.find(needle).unwrap();
        let line = text[..at].matches('\n').count() + 1;
        (line, at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1)
    }
}

fn only_error(problems: &[Problem]) -> &Problem {
    let errors: Vec<&Problem> = problems.iter().filter(|p| p.severity == Severity::Error).collect();
    assert_eq!(errors.len(), 1, "{problems:#?}");
    errors[0]
}

const MODULE: &str = "entry/src/main/module.json5";
const PROFILE: &str = "build-profile.json5";

#[test]
fn the_template_has_one_warning_the_unsigned_default_and_no_error() {
    let problems = check(&template(), ".");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].severity, Severity::Warning);
    assert!(problems[0].message.contains("unsigned"), "{problems:#?}");
}

#[test]
fn a_wrong_main_element_is_reported_where_it_is_with_the_abilities_there_are() {
    let mut project = template();
    project.replace(MODULE, "\"mainElement\": \"EntryAbility\"", "\"mainElement\": \"EntryAbilty\"");
    let problem = only_error(&check(&project, ".")).clone();
    assert_eq!(
        (problem.file.as_str(), (problem.line, problem.column)),
        (MODULE, project.place(MODULE, "\"EntryAbilty\""))
    );
    assert!(problem.fix.contains("\"mainElement\": \"EntryAbility\""), "{problem:?}");
}

#[test]
fn a_page_without_its_file_is_reported_in_the_pages_profile() {
    let mut project = template();
    let pages = "entry/src/main/resources/base/profile/main_pages.json";
    project.replace(pages, "\"pages/Index\"", "\"pages/Index\", \"pages/Second\"");
    let problem = only_error(&check(&project, ".")).clone();
    assert_eq!(
        (problem.file.as_str(), (problem.line, problem.column)),
        (pages, project.place(pages, "\"pages/Second\""))
    );
    assert!(problem.fix.contains("entry/src/main/ets/pages/Second.ets"), "{problem:?}");
}

#[test]
fn a_string_reference_without_its_resource_names_the_file_to_add_it_to() {
    let mut project = template();
    project.replace(MODULE, "\"$string:EntryAbility_label\"", "\"$string:EntryAbility_title\"");
    let problem = only_error(&check(&project, ".")).clone();
    assert_eq!((problem.line, problem.column), project.place(MODULE, "\"$string:EntryAbility_title\""));
    assert!(problem.fix.contains("entry/src/main/resources/base/element/string.json"), "{problem:?}");
    assert!(problem.fix.contains("EntryAbility_label"), "names what is defined: {problem:?}");
}

#[test]
fn sdk_levels_out_of_order_are_an_error_at_the_lower_one() {
    let mut project = template();
    project.replace(PROFILE, "\"compatibleSdkVersion\": \"6.0.0(20)\"", "\"compatibleSdkVersion\": \"26.0.0\"");
    let problem = only_error(&check(&project, ".")).clone();
    assert_eq!(
        (problem.file.as_str(), (problem.line, problem.column)),
        (PROFILE, project.place(PROFILE, "\"26.0.0\""))
    );
    assert!(problem.message.contains("targetSdkVersion"), "{problem:?}");
    // compile only where written: a lower compileSdkVersion is out of order too.
    let mut project = template();
    project.replace(
        PROFILE,
        "\"targetSdkVersion\"",
        "\"compileSdkVersion\": \"5.0.0(12)\",\n        \"targetSdkVersion\"",
    );
    assert!(only_error(&check(&project, ".")).message.contains("compileSdkVersion"));
}

#[test]
fn syntax_types_required_fields_and_references_between_files() {
    let cases: [(&str, &str, &str, &str); 8] = [
        (MODULE, "\"deliveryWithInstall\": true,", "", "deliveryWithInstall"),
        (MODULE, "\"deviceTypes\": [", "\"deviceTypes\": 3, \"x\": [", "deviceTypes"),
        ("AppScope/app.json5", "\"versionCode\": 1000000", "\"versionCode\": \"1\"", "versionCode"),
        ("AppScope/app.json5", "\"bundleName\": \"com.example.hello\"", "\"bundleName\": \"hello\"", "bundleName"),
        ("hvigor/hvigor-config.json5", "\"modelVersion\": \"6.0.0\"", "\"modelVersion\": \"5.0.0\"", "modelVersion"),
        (PROFILE, "\"srcPath\": \"./entry\"", "\"srcPath\": \"./entri\"", "no folder"),
        (PROFILE, "\"signingConfig\": \"default\"", "\"signingConfig\": \"release\"", "release"),
        (MODULE, "\"name\": \"entry\",", "\"name\": \"entry\"", "JSON5"),
    ];
    for (path, from, to, says) in cases {
        let mut project = template();
        project.replace(path, from, to);
        let problems = check(&project, ".");
        let problem =
            problems.iter().find(|p| p.severity == Severity::Error).unwrap_or_else(|| panic!("{to}: {problems:#?}"));
        assert_eq!(problem.file, path, "{to}: {problems:#?}");
        assert!(format!("{} {}", problem.message, problem.fix).contains(says), "{to}: {problem:?}");
        assert!(problem.line > 1 || path == "hvigor/hvigor-config.json5", "{problem:?}");
    }
}

#[test]
fn a_module_folder_not_listed_is_a_warning_and_a_project_elsewhere_is_found_by_its_root() {
    let mut project = template();
    let extra = "feature/src/main/module.json5".to_string();
    project.0.insert(extra, project.0[MODULE].clone());
    assert!(check(&project, ".").iter().any(|p| p.severity == Severity::Warning && p.message.contains("feature")));
    let nested = Memory(project.0.iter().map(|(k, v)| (format!("apps/hello/{k}"), v.clone())).collect());
    let problems = check(&nested, "apps/hello");
    assert!(problems.iter().all(|p| p.file.starts_with("apps/hello/")), "{problems:#?}");
    assert!(problems.iter().all(|p| p.severity == Severity::Warning), "{problems:#?}");
}
