//! Tools and recipes as MCP tools, and results and failures as MCP call results: text for the
//! model plus `structuredContent` for programs.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Value};

use crate::error::Failure;
use crate::host::registry::ToolInfo;
use crate::host::Host;
use crate::lua::annotations::Annotations;

/// Every tool, then every recipe, under its MCP name (`team_kit__greet`,
/// `recipe_build_verify`; see [`crate::host::registry::mcp_name`]).
pub fn list(host: &Host) -> Vec<Tool> {
    host.tools().into_iter().chain(host.recipes()).map(tool).collect()
}

fn tool(info: ToolInfo) -> Tool {
    let schema = match info.schema {
        Value::Object(object) => object,
        _ => JsonObject::from_iter([("type".to_string(), json!("object"))]),
    };
    let mut tool = Tool::new(Cow::Owned(info.mcp_name), info.description, Arc::new(schema));
    // Which hint rein's kernel holds the tool to (the others are its word): a few bytes, for
    // the tools that declare one.
    if let Some(hint) = info.annotations.enforced_hint() {
        tool.meta = Some(rmcp::model::MetaObject(JsonObject::from_iter([(ENFORCED.to_string(), json!(hint))])));
    }
    match hints(&info.annotations) {
        Some(hints) => tool.annotate(hints),
        None => tool,
    }
}

/// The `_meta` key naming the annotation the kernel enforces.
pub const ENFORCED: &str = "rein/enforced";

/// What a tool declared, as MCP's `ToolAnnotations`; nothing when it declared nothing (an
/// empty object would say no more than its absence).
pub fn hints(annotations: &Annotations) -> Option<ToolAnnotations> {
    if annotations.is_empty() {
        return None;
    }
    Some(ToolAnnotations::from_raw(
        None,
        annotations.read_only,
        annotations.destructive,
        annotations.idempotent,
        annotations.open_world,
    ))
}

/// Calls a tool; a cancelled request drops the call, and with it every process it started (a
/// script running in the VM stops at its next budget check, which sees the same token).
/// Programs the call runs (a build, an install) are reported as progress notifications.
pub async fn call(host: &Host, name: &str, args: Value, context: &RequestContext<RoleServer>) -> CallToolResult {
    let progress = std::sync::Arc::new(super::progress::PeerProgress::start(context));
    let mut call = host
        .new_call()
        .with_listener(progress.listener(super::progress::Shows::Programs))
        .with_cancel(context.ct.clone());
    if let Some(approver) = super::approver::for_request(host, context) {
        call = call.with_approver(approver);
    }
    // The host stops the call when the token is cancelled (see Host::call_with).
    let outcome = host.call_with(call, name, args).await;
    if let Ok(progress) = std::sync::Arc::try_unwrap(progress) {
        progress.finish().await;
    }
    match outcome {
        Ok(value) => success(value),
        Err(failure) => refusal(&failure, None),
    }
}

/// The result as JSON text, and as `structuredContent` when it is an object. The text is
/// compact: it reaches the model (whitespace would only cost tokens), and it is escaped once
/// more inside the response, so every byte saved is saved twice.
pub fn success(value: Value) -> CallToolResult {
    let text = super::json_text::compact(&value);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if value.is_object() {
        result.structured_content = Some(value);
    }
    result
}

/// An `isError` result: `{code, message, details}` as `structuredContent`, and text that starts
/// with the code (then the message, the details as compact JSON like a result's, and `more` —
/// e.g. a recipe's report).
pub fn refusal(failure: &Failure, more: Option<&str>) -> CallToolResult {
    let mut text = format!("{}: {}", failure.code, failure.message);
    if !failure.details.is_null() {
        text.push_str("\n\ndetails: ");
        text.push_str(&super::json_text::compact(&failure.details));
    }
    if let Some(more) = more {
        text.push_str("\n\n");
        text.push_str(more);
    }
    let structured = json!({"code": failure.code, "message": failure.message, "details": failure.details});
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[test]
    fn a_refusal_text_starts_with_its_code_and_keeps_the_details() {
        let failure = Failure::new(Code::OldStringNotUnique, "3 matches").with_details(json!({"count": 3}));
        let result = refusal(&failure, None);
        assert_eq!(result.is_error, Some(true));
        let text = &result.content[0].as_text().unwrap().text;
        assert!(text.starts_with("OLD_STRING_NOT_UNIQUE: 3 matches"), "{text}");
        assert!(text.ends_with("details: {\"count\":3}"), "compact, as results are: {text}");
        assert_eq!(result.structured_content.unwrap()["details"]["count"], 3);
    }

    #[test]
    fn only_objects_become_structured_content() {
        assert!(success(json!({"a": 1})).structured_content.is_some());
        assert!(success(json!([1, 2])).structured_content.is_none());
    }
}
