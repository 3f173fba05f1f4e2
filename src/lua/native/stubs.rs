//! Native modules in the files `rein types` writes: lua-language-server stubs next to
//! rein's own, and selene globals, from the modules' declarations.

use super::module::{NativeModule, NativeModules};
use crate::lua::api::stubs::doc_lines;

/// `rein.<module> = {}` and a stub per function, for every module.
pub fn lua_stubs(natives: &NativeModules) -> String {
    let mut out = String::new();
    for module in natives.iter() {
        module_stub(&mut out, module);
    }
    out
}

fn module_stub(out: &mut String, module: &NativeModule) {
    out.push('\n');
    doc_lines(out, &module.doc);
    out.push_str(&format!("rein.{} = {{}}\n", module.name));
    for function in &module.functions {
        out.push('\n');
        doc_lines(out, &function.doc);
        for param in &function.params {
            let name = if param.is_optional() { format!("{}?", param.name) } else { param.name.clone() };
            let doc = if param.doc.is_empty() { String::new() } else { format!(" {}", param.doc) };
            out.push_str(&format!("---@param {name} {}{doc}\n", param.base_type()));
        }
        for (ty, doc) in &function.returns {
            let doc = if doc.is_empty() { String::new() } else { format!(" # {doc}") };
            out.push_str(&format!("---@return {ty}{doc}\n"));
        }
        let params: Vec<&str> = function.params.iter().map(|p| p.name.as_str()).collect();
        out.push_str(&format!("function rein.{}.{}({}) end\n", module.name, function.name, params.join(", ")));
    }
}

/// selene's entries for every native function (appended to the `globals:` of rein.yml).
pub fn selene_globals(natives: &NativeModules) -> String {
    let mut out = String::new();
    for module in natives.iter() {
        for function in &module.functions {
            out.push_str(&format!("  rein.{}.{}:\n", module.name, function.name));
            if function.params.is_empty() {
                out.push_str("    args: []\n");
                continue;
            }
            out.push_str("    args:\n");
            for param in &function.params {
                let ty = match param.base_type() {
                    "integer" | "number" => "number",
                    "boolean" => "bool",
                    other => other,
                };
                let required =
                    if param.is_optional() { "      - required: false\n        type" } else { "      - type" };
                out.push_str(&format!("{required}: {ty}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::module::NativeFunction;
    use super::*;

    #[test]
    fn a_module_reads_like_rein_own_stubs() {
        let mut natives = NativeModules::default();
        let open = NativeFunction::new("open", "Opens a file in the editor.", |_, _| Ok(serde_json::Value::Null))
            .param("path", "string", "relative to the workspace")
            .param("line", "integer?", "")
            .returns("boolean", "whether the editor showed it");
        natives.add(NativeModule::new("ide", "The IDE around the project.").function(open)).unwrap();
        let stub = lua_stubs(&natives);
        assert!(stub.contains("---The IDE around the project.\nrein.ide = {}\n"), "{stub}");
        assert!(stub.contains("---@param path string relative to the workspace\n---@param line? integer\n"), "{stub}");
        assert!(
            stub.contains("---@return boolean # whether the editor showed it\nfunction rein.ide.open(path, line) end")
        );
        let selene = selene_globals(&natives);
        assert_eq!(
            selene,
            "  rein.ide.open:\n    args:\n      - type: string\n      - required: false\n        type: number\n"
        );
    }
}
