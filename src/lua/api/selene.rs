//! The `rein` namespace as a selene standard library (`rein.yml`), written from the same
//! declarations `install` builds it from, so `selene` knows every function and the arguments
//! it takes.

use super::areas;
use super::declare::{Home, Param};

/// selene's release binary reads Lua 5.1 standards, so the file starts from lua51 and adds
/// what Lua 5.4 gives rein's scripts (io, os, package, debug, dofile and loadfile do not exist
/// at run time, but lua51 declares them; rein's sandbox is what refuses them).
const LUA54_ADDITIONS: &str = "  utf8:
    any: true
  math.tointeger:
    args:
      - type: any
  math.type:
    args:
      - type: any
  table.move:
    args:
      - type: table
      - type: number
      - type: number
      - type: number
      - required: false
        type: table
  table.unpack:
    args:
      - type: table
      - required: false
        type: number
      - required: false
        type: number
  coroutine.isyieldable:
    args: []
  coroutine.close:
    args:
      - type: any
";

/// `rein.yml`: a selene standard library named `rein`.
pub fn selene_std() -> String {
    let mut out = String::from(
        "# selene's view of the globals a rein script sees, written by `rein types` from the\n\
         # declarations rein builds its API with. Use it with `std = \"rein\"` in a selene.toml next\n\
         # to this file, or `std = \"path/to/rein\"` (without .yml) from elsewhere.\n---\nbase: lua51\nname: rein\nglobals:\n",
    );
    out.push_str(LUA54_ADDITIONS);
    for area in areas() {
        if area.home == Home::Global {
            continue;
        }
        for native in area.natives {
            out.push_str(&format!("  {}{}:\n", area.prefix(), native.name));
            if !native.is_function() {
                out.push_str("    property: read-only\n");
                continue;
            }
            if native.params.is_empty() {
                out.push_str("    args: []\n");
                continue;
            }
            out.push_str("    args:\n");
            for param in native.params {
                let required =
                    if param.is_optional() { "      - required: false\n        type" } else { "      - type" };
                out.push_str(&format!("{required}: {}\n", selene_type(param)));
            }
        }
    }
    out
}

/// selene knows any, bool, function, nil, number, string, table and `...`.
fn selene_type(param: &Param) -> &'static str {
    let ty = param.base_type();
    if param.name == "..." {
        return "\"...\"";
    }
    match ty {
        "string" => "string",
        "integer" | "number" => "number",
        "boolean" => "bool",
        "any" => "any",
        _ if ty.starts_with("fun(") || ty.starts_with("(fun(") && ty.ends_with(')') && !ty.ends_with("[]") => {
            "function"
        }
        _ if ty.starts_with('{') || ty.ends_with("[]") || ty.starts_with("table") || ty.starts_with("rein.") => "table",
        _ => "any",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_selene_std_is_the_generated_one() {
        let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rein.yml")).unwrap();
        let generated = selene_std();
        assert!(
            shipped == generated,
            "rein.yml is out of date with the API declarations (src/lua/api); replace it with:\n{generated}"
        );
    }
}
