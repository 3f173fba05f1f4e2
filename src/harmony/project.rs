//! What the policy knows of the project it guards: its bundle (`AppScope/app.json5`
//! `app.bundleName`) and its modules (`build-profile.json5` `modules[].name`), so that `aa test`
//! of the project's own test module runs unasked and any other bundle or module asks.
//!
//! The agent can write both files. Naming another of the person's debug apps there (one DevEco
//! installed, with a `<module>_test`) would run its tests unasked, so the bundle counts only
//! when rein itself installed it on the device the command names (the profile filters it
//! through the install record, `installed`, as screen input does); aa refuses release-signed
//! apps (10106002, shared/HARMONY-VERIFY.md §1.2).

/// The project's bundle and module names; empty when the files cannot be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectFacts {
    pub bundle: Option<String>,
    pub modules: Vec<String>,
}

impl ProjectFacts {
    /// From the texts of `AppScope/app.json5` and `build-profile.json5` (either may be missing
    /// or broken: then that fact is unknown, and what needs it asks).
    pub fn from_texts(app: Option<&str>, profile: Option<&str>) -> ProjectFacts {
        let parse = |text: Option<&str>| text.and_then(|t| super::json5_value::parse(t).ok());
        let bundle = parse(app).and_then(|v| v["app"]["bundleName"].as_str().map(String::from));
        let modules = parse(profile)
            .and_then(|v| v["modules"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|m| m["name"].as_str().map(String::from))
            .collect();
        ProjectFacts { bundle, modules }
    }

    pub fn is_bundle(&self, bundle: &str) -> bool {
        self.bundle.as_deref() == Some(bundle)
    }

    /// `<module>_test` for a module of the project.
    pub fn is_test_module(&self, name: &str) -> bool {
        name.strip_suffix("_test").is_some_and(|module| self.modules.iter().any(|m| m == module))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_come_from_the_two_files_and_are_unknown_when_broken() {
        let app = r#"{ app: { bundleName: "com.example.hello", versionCode: 1000000, } }"#;
        let profile = r#"{ "app": {}, "modules": [ { "name": "entry", "srcPath": "./entry" }, { name: "library" } ] }"#;
        let facts = ProjectFacts::from_texts(Some(app), Some(profile));
        assert!(facts.is_bundle("com.example.hello") && !facts.is_bundle("com.example"));
        assert!(facts.is_test_module("entry_test") && facts.is_test_module("library_test"));
        assert!(!facts.is_test_module("entry") && !facts.is_test_module("feature_test"));
        let broken = ProjectFacts::from_texts(Some("{ app: "), None);
        assert_eq!(broken, ProjectFacts::default());
        assert!(!broken.is_bundle("com.example.hello"));
    }
}
