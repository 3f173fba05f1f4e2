//! One module's files: `src/main/module.json5` (and `src/ohosTest/module.json5` when there),
//! the module's `build-profile.json5` and `oh-package.json5`. Required fields and types follow
//! the SDK's `module.json` schema (`toolchains/modulecheck/module.json`: a module needs `name`,
//! `type`, `deviceTypes`, and `deliveryWithInstall` unless it is a HAR; an ability needs `name`
//! and `srcEntry`); the rest follows DevEco's template (shared/HARMONY-VERIFY.md §5).

use jsonc_parser::ast::{Object, Value};

use super::fields::{at, optional, required, text, top, Kind};
use super::resources::Resources;
use super::spans::Located;
use super::{join, Found};

/// Module types the schema knows.
const TYPES: [&str; 4] = ["entry", "feature", "har", "shared"];

/// A module build-profile.json5 lists: its name, and its folder (relative to the workspace).
pub struct Listed {
    pub name: String,
    pub dir: String,
}

pub fn check(found: &mut Found, module: &Listed, app_resources: &str) {
    let main = join(&module.dir, "src/main");
    manifest(found, &main, Some(&module.name), app_resources, true);
    let test = join(&module.dir, "src/ohosTest");
    manifest(found, &test, None, app_resources, false);
    module_profile(found, &module.dir);
    if let Some(file) = found.load(&join(&module.dir, "oh-package.json5"), true) {
        parsed(found, &file, |found, file, object| {
            optional(found, file, object, "name", Kind::Str, "\"entry\"");
            optional(found, file, object, "version", Kind::Str, "\"1.0.0\"");
            optional(found, file, object, "dependencies", Kind::Object, "{}");
        });
    }
}

/// Parses `file` and runs `rules` on its top object; a syntax error is the one problem.
pub fn parsed(found: &mut Found, file: &Located, rules: impl FnOnce(&mut Found, &Located, &Object)) -> Option<()> {
    let value = match file.parse() {
        Ok(value) => value,
        Err(e) => {
            found.error(
                file,
                e.offset,
                format!("not valid JSON5: {}", e.message),
                "fix the syntax at this place".into(),
            );
            return None;
        }
    };
    let object = top(found, file, &value)?;
    rules(found, file, object);
    Some(())
}

fn module_profile(found: &mut Found, dir: &str) {
    let Some(file) = found.load(&join(dir, "build-profile.json5"), true) else { return };
    parsed(found, &file, |found, file, object| {
        optional(found, file, object, "apiType", Kind::Str, "\"stageMode\"");
        if let Some(Value::Array(targets)) =
            optional(found, file, object, "targets", Kind::Array, "[{ \"name\": \"default\" }]")
        {
            for target in &targets.elements {
                match target.as_object() {
                    Some(t) => {
                        required(found, file, t, "name", Kind::Str, "\"default\"");
                    }
                    None => found.error(
                        file,
                        at(target),
                        "a target must be an object".into(),
                        "write { \"name\": \"default\" }".into(),
                    ),
                }
            }
        }
    });
}

/// `<sources>/module.json5`: `listed` is the name build-profile.json5 gives the module (the
/// main sources only; the ohosTest module is `<name>_test`).
fn manifest(found: &mut Found, sources: &str, listed: Option<&str>, app_resources: &str, required_file: bool) {
    let Some(file) = found.load(&join(sources, "module.json5"), required_file) else { return };
    let mut resources = Resources::new(vec![join(sources, "resources"), app_resources.to_string()]);
    parsed(found, &file, |found, file, object| {
        let Some(Value::Object(module)) =
            required(found, file, object, "module", Kind::Object, "{ \"name\": \"entry\", … }")
        else {
            return;
        };
        fields(found, file, module, listed);
        let names = abilities(found, file, module, sources);
        main_element(found, file, module, &names);
        for prop in &module.properties {
            resources.check_all(found, file, &prop.value);
        }
        pages(found, file, module, sources, &resources);
    });
}

fn fields(found: &mut Found, file: &Located, module: &Object, listed: Option<&str>) {
    let name = text(required(found, file, module, "name", Kind::Str, "\"entry\""));
    if let (Some(name), Some(listed)) = (name, listed) {
        if name != listed {
            let value = module.get("name").map(|p| at(&p.value)).unwrap_or(module.range.start);
            found.error(
                file,
                value,
                format!("the module is named \"{name}\" here but \"{listed}\" in build-profile.json5"),
                format!("write \"name\": \"{listed}\" (or rename it in build-profile.json5 too)"),
            );
        }
    }
    let kind = required(found, file, module, "type", Kind::Str, "\"entry\"");
    if let Some(k) = text(kind).filter(|k| !TYPES.contains(k)) {
        found.error(
            file,
            at(kind.unwrap()),
            format!("\"type\": \"{k}\" is not a module type"),
            format!("write one of {}", TYPES.join(", ")),
        );
    }
    required(found, file, module, "deviceTypes", Kind::Array, "[\"phone\", \"tablet\"]");
    if text(kind) == Some("har") {
        optional(found, file, module, "deliveryWithInstall", Kind::Bool, "true");
    } else {
        required(found, file, module, "deliveryWithInstall", Kind::Bool, "true");
    }
    optional(found, file, module, "installationFree", Kind::Bool, "false");
    optional(found, file, module, "mainElement", Kind::Str, "\"EntryAbility\"");
    optional(found, file, module, "pages", Kind::Str, "\"$profile:main_pages\"");
}

/// Checks each ability and extension ability; returns their names.
fn abilities(found: &mut Found, file: &Located, module: &Object, sources: &str) -> Vec<String> {
    let mut names = Vec::new();
    for list in ["abilities", "extensionAbilities"] {
        let Some(Value::Array(items)) = optional(found, file, module, list, Kind::Array, "[]") else { continue };
        for item in &items.elements {
            let Some(ability) = item.as_object() else {
                found.error(
                    file,
                    at(item),
                    format!("each of \"{list}\" must be an object"),
                    "write { \"name\": …, \"srcEntry\": … }".into(),
                );
                continue;
            };
            if let Some(name) = text(required(found, file, ability, "name", Kind::Str, "\"EntryAbility\"")) {
                names.push(name.to_string());
            }
            let entry =
                required(found, file, ability, "srcEntry", Kind::Str, "\"./ets/entryability/EntryAbility.ets\"");
            if let Some(src) = text(entry) {
                let path = join(sources, src);
                if !found.exists(&path) {
                    found.error(
                        file,
                        at(entry.unwrap()),
                        format!("srcEntry {src} does not exist ({path})"),
                        format!("create {path}, or write the path of the ability's .ets file relative to {sources}"),
                    );
                }
            }
        }
    }
    names
}

fn main_element(found: &mut Found, file: &Located, module: &Object, names: &[String]) {
    let Some(prop) = module.get("mainElement") else { return };
    let Some(main) = text(Some(&prop.value)) else { return };
    if names.iter().any(|n| n == main) {
        return;
    }
    let fix = if names.is_empty() {
        "add the ability to \"abilities\", or remove \"mainElement\"".to_string()
    } else {
        format!("write \"mainElement\": \"{}\" (the module's abilities: {})", closest(main, names), names.join(", "))
    };
    found.error(file, at(&prop.value), format!("mainElement \"{main}\" names no ability of this module"), fix);
}

fn closest<'n>(word: &str, names: &'n [String]) -> &'n str {
    names.iter().min_by_key(|n| strsim::levenshtein(word, n)).map(String::as_str).unwrap_or("")
}

/// `"pages": "$profile:main_pages"`: the profile's `src` lists pages, each an `.ets` file under
/// `ets/`. (A profile that is missing is reported with the other resource references.)
fn pages(found: &mut Found, file: &Located, module: &Object, sources: &str, resources: &Resources) {
    let Some(reference) = text(module.get("pages").map(|p| &p.value)) else { return };
    let Some(name) = reference.strip_prefix("$profile:") else {
        let value = &module.get("pages").unwrap().value;
        found.error(
            file,
            at(value),
            format!("\"pages\": \"{reference}\" is not a profile reference"),
            "write \"pages\": \"$profile:main_pages\"".into(),
        );
        return;
    };
    let Some(path) = resources.profile(found, name) else { return };
    let Some(profile) = found.load(&path, true) else { return };
    parsed(found, &profile, |found, profile, object| {
        let Some(Value::Array(list)) = required(found, profile, object, "src", Kind::Array, "[\"pages/Index\"]") else {
            return;
        };
        for page in &list.elements {
            let Some(page_name) = text(Some(page)) else {
                found.error(profile, at(page), "each page must be a string".into(), "write \"pages/Index\"".into());
                continue;
            };
            let ets = join(sources, &format!("ets/{page_name}.ets"));
            if !found.exists(&ets) {
                found.error(
                    profile,
                    at(page),
                    format!("page {page_name} has no file {ets}"),
                    format!("create {ets} (an @Entry @Component struct), or remove \"{page_name}\" from this list"),
                );
            }
        }
    });
}
