//! The tables authors write — a tool, a recipe, their params and checks — and the `ctx` each
//! receives, as lua-language-server classes. Their field lists are the ones the declaration
//! readers accept (tests compare them), so an editor offers exactly what `rein check` allows.

use crate::lua::api::declare::{Class, Field};

pub const CLASSES: [Class; 10] =
    [TOOL, PARAM, CHECK, ANNOTATIONS, TOOL_CONTEXT, RECIPE, BUDGET, STEP, RETRY, STEP_CONTEXT];

const TOOL: Class = Class {
    name: "rein.Tool",
    doc: "What a file in tools/ returns. Annotate it with `---@type rein.Tool` for completion.",
    fields: &[
        Field { name: "name", ty: "string", doc: "lowercase letters, digits and _, starting with a letter" },
        Field { name: "description", ty: "string", doc: "what the tool does and returns (agents read this)" },
        Field { name: "params", ty: "table<string, rein.Param>?", doc: "the arguments, validated before run" },
        Field {
            name: "run",
            ty: "fun(args: table, ctx: rein.ToolContext): table",
            doc: "does the work; the table it returns is the JSON result",
        },
        Field { name: "checks", ty: "rein.Check[]?", doc: "examples `rein test` and hot reload run" },
        Field {
            name: "annotations",
            ty: "rein.Annotations?",
            doc: "what it does to the world, for the agent hosts that decide what to run unasked",
        },
    ],
};

const ANNOTATIONS: Class = Class {
    name: "rein.Annotations",
    doc: "MCP's tool annotations (readOnlyHint …). Undeclared hints mean the worst case to clients.",
    fields: &[
        Field { name: "read_only", ty: "boolean?", doc: "it changes nothing anywhere (never with destructive = true)" },
        Field {
            name: "destructive",
            ty: "boolean?",
            doc: "it may remove or overwrite something (false: it only adds)",
        },
        Field {
            name: "idempotent",
            ty: "boolean?",
            doc: "calling it again with the same arguments changes nothing more",
        },
        Field { name: "open_world", ty: "boolean?", doc: "it reaches outside the workspace (a device, the network)" },
    ],
};

const PARAM: Class = Class {
    name: "rein.Param",
    doc: "One parameter. Required unless it has a default or says optional = true.",
    fields: &[
        Field { name: "type", ty: "\"string\"|\"integer\"|\"number\"|\"boolean\"|\"array\"|\"object\"", doc: "" },
        Field { name: "description", ty: "string?", doc: "" },
        Field { name: "default", ty: "any", doc: "filled in when the caller leaves it out" },
        Field { name: "optional", ty: "boolean?", doc: "" },
        Field { name: "required", ty: "boolean?", doc: "required = false is the same as optional = true" },
        Field { name: "enum", ty: "any[]?", doc: "the only values allowed" },
        Field { name: "items", ty: "rein.Param?", doc: "the element type of an array" },
        Field { name: "properties", ty: "table<string, rein.Param>?", doc: "the fields of an object" },
        Field {
            name: "secret",
            ty: "boolean?",
            doc: "the value never shows in logs, the journal, results, errors or reports",
        },
    ],
};

const CHECK: Class = Class {
    name: "rein.Check",
    doc: "An example run in a fresh scratch workspace by `rein test` and before a hot reload.",
    fields: &[
        Field { name: "args", ty: "table?", doc: "the tool's arguments" },
        Field {
            name: "expect",
            ty: "table",
            doc: "{ error = \"CODE\" }, or a shape the result must contain (objects by key, arrays element by element)",
        },
        Field { name: "files", ty: "table<string, string>?", doc: "files to seed the scratch workspace with" },
    ],
};

const TOOL_CONTEXT: Class = Class {
    name: "rein.ToolContext",
    doc: "The second argument of a tool's run.",
    fields: &[
        Field { name: "tool", ty: "string", doc: "the name this tool was called by" },
        Field { name: "workspace", ty: "string", doc: "the workspace root, absolute" },
        Field { name: "depth", ty: "integer", doc: "0 when called by an agent or person, 1 or more from rein.tool" },
    ],
};

const RECIPE: Class = Class {
    name: "rein.Recipe",
    doc: "What a file in recipes/ returns. Annotate it with `---@type rein.Recipe` for completion.",
    fields: &[
        Field { name: "name", ty: "string", doc: "lowercase letters, digits, - and _" },
        Field { name: "description", ty: "string", doc: "" },
        Field { name: "params", ty: "table<string, rein.Param>?", doc: "" },
        Field { name: "budget", ty: "rein.Budget?", doc: "limits for the whole run" },
        Field { name: "steps", ty: "rein.Step[]", doc: "run in order; each counts only when its verify passes" },
        Field {
            name: "checks",
            ty: "rein.Check[]?",
            doc: "accepted like a tool's; `rein test` runs the checks of tools only",
        },
        Field { name: "annotations", ty: "rein.Annotations?", doc: "as a tool's: what a run does to the world" },
    ],
};

const BUDGET: Class = Class {
    name: "rein.Budget",
    doc: "",
    fields: &[
        Field { name: "time_s", ty: "integer?", doc: "the whole run's time" },
        Field { name: "spawns", ty: "integer?", doc: "how many programs the run may start" },
    ],
};

const STEP: Class = Class {
    name: "rein.Step",
    doc: "",
    fields: &[
        Field { name: "name", ty: "string", doc: "unique in the recipe" },
        Field { name: "description", ty: "string?", doc: "what the step does, shown by --explain" },
        Field {
            name: "run",
            ty: "fun(ctx: rein.StepContext): any",
            doc: "what it returns is ctx.outputs[name] for later steps",
        },
        Field {
            name: "verify",
            ty: "(fun(ctx: rein.StepContext, out: any): boolean, string?)?",
            doc: "return ok, evidence: what proves the step worked, or why it did not",
        },
        Field { name: "retry", ty: "rein.Retry?", doc: "" },
        Field { name: "timeout_s", ty: "integer?", doc: "" },
        Field { name: "approvals", ty: "string[]?", doc: "what it may ask a person for, shown by --explain" },
    ],
};

const RETRY: Class = Class {
    name: "rein.Retry",
    doc: "",
    fields: &[Field { name: "max", ty: "integer", doc: "attempts after the first" }],
};

const STEP_CONTEXT: Class = Class {
    name: "rein.StepContext",
    doc: "The argument of a step's run and verify.",
    fields: &[
        Field { name: "args", ty: "table", doc: "the recipe's arguments, validated" },
        Field { name: "outputs", ty: "table<string, any>", doc: "what earlier steps returned, by step name" },
        Field { name: "step", ty: "string", doc: "this step's name" },
        Field { name: "run_id", ty: "string", doc: "" },
        Field { name: "attempt", ty: "integer", doc: "1 for the first try" },
        Field {
            name: "tool",
            ty: "fun(self: rein.StepContext, name: string, args?: table): table",
            doc: "calls a tool",
        },
        Field {
            name: "log",
            ty: "fun(self: rein.StepContext, message: string, fields?: table)",
            doc: "logs at info level",
        },
        Field {
            name: "evidence",
            ty: "fun(self: rein.StepContext, text: string)",
            doc: "keeps a line of evidence for the report",
        },
        Field {
            name: "attach",
            ty: "fun(self: rein.StepContext, kind: \"screenshot\"|\"ui_tree\"|\"ui_text\", content: string, label?: string): string",
            doc: "keeps a file in the run's folder (screen[-label].jpeg, layout[-label].json, layout[-label].txt) for the report; its path",
        },
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lua::tool::KNOWN_FIELDS;
    use crate::recipe::spec::{RECIPE_FIELDS, STEP_FIELDS};

    fn names(class: &Class) -> Vec<&'static str> {
        let mut names: Vec<_> = class.fields.iter().map(|f| f.name).collect();
        names.sort();
        names
    }

    fn sorted(fields: &[&'static str]) -> Vec<&'static str> {
        let mut fields = fields.to_vec();
        fields.sort();
        fields
    }

    #[test]
    fn the_classes_offer_exactly_the_fields_the_readers_accept() {
        assert_eq!(names(&TOOL), sorted(&KNOWN_FIELDS));
        assert_eq!(names(&RECIPE), sorted(&RECIPE_FIELDS));
        assert_eq!(names(&STEP), sorted(&STEP_FIELDS));
        assert_eq!(names(&ANNOTATIONS), sorted(&crate::lua::annotations::FIELDS));
    }

    #[test]
    fn the_param_class_lists_every_field_the_schema_reads() {
        // serde names the fields it knows when it meets one it does not.
        let err = serde_json::from_value::<crate::lua::schema::Param>(serde_json::json!({"type": "string", "?": 1}))
            .unwrap_err()
            .to_string();
        let known: Vec<&str> = err
            .split("expected one of ")
            .nth(1)
            .unwrap()
            .split(", ")
            .map(|f| f.trim_matches(|c| c == '`' || c == ' '))
            .collect();
        let mut known: Vec<&str> = known.into_iter().map(|f| f.split('`').next().unwrap()).collect();
        known.sort();
        assert_eq!(names(&PARAM), known, "{err}");
    }
}
