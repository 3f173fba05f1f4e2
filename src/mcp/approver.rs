//! Approvals over MCP: the person behind the client answers through elicitation, when the
//! client offers it. Otherwise, and for what only a person at a terminal may allow (writing
//! rein's home), the answer is No, so the caller gets APPROVAL_REQUIRED with the command a
//! person could run. `--yes` plays no part here.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, EnumSchema};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::RoleServer;
use tokio::runtime::{Handle, RuntimeFlavor};

use crate::kernel::policy::{Answer, ApprovalRequest, Approver, Asked};
use crate::visible;

/// How long a question may wait for the person before it counts as No.
const ASK_TIMEOUT: Duration = Duration::from_secs(10 * 60);

tokio::task_local! {
    /// The request being served, so the approver knows whom to ask and when to give up.
    static CALL: RequestContext<RoleServer>;
}

/// Runs `call` with `context` as the request the approver asks about.
pub async fn serving<F: Future>(context: RequestContext<RoleServer>, call: F) -> F::Output {
    CALL.scope(context, call).await
}

/// Asks the person behind the MCP client, through elicitation, when the client offers it
/// (and answers No otherwise, or for what only a person at rein's terminal may allow). Build
/// the host with it to serve it with [`serve`](super::serve); [`serve_stdio`](super::serve_stdio)
/// always does.
pub struct ElicitingApprover;

impl Approver for ElicitingApprover {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        match CALL.try_with(Clone::clone) {
            Ok(context) => ask_on_this_thread(&context, request),
            // A call's script runs on a Lua state's own thread, outside the request's task: the
            // server gives such calls a `ClientApprover` (`for_request`), which asks instead.
            Err(_) => Answer::No,
        }
    }

    fn name(&self) -> &'static str {
        NAME
    }
}

const NAME: &str = "mcp elicitation";

/// The approver of one request's call, when the host asks through elicitation: it asks the
/// person behind that request's client from whichever thread the call's script runs on.
pub(crate) struct ClientApprover {
    context: RequestContext<RoleServer>,
    /// The server's runtime, which drives the question while the script's thread waits.
    server: Handle,
}

/// The approver for the call serving `context`, if the host asks through elicitation (an
/// embedder serving a host built with another approver keeps it). Call on the server's runtime.
pub(crate) fn for_request(host: &crate::Host, context: &RequestContext<RoleServer>) -> Option<Arc<ClientApprover>> {
    (host.approver_name() == NAME)
        .then(|| Arc::new(ClientApprover { context: context.clone(), server: Handle::current() }))
}

impl Approver for ClientApprover {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        let on_a_server_worker =
            Handle::try_current().is_ok_and(|handle| handle.runtime_flavor() == RuntimeFlavor::MultiThread);
        if on_a_server_worker {
            return ask_on_this_thread(&self.context, request);
        }
        // Waiting below on any other thread could be waiting on the runtime that must bring
        // the answer.
        if !crate::lua::pool::on_state_thread() || !offers_elicitation(&self.context, request) {
            return Answer::No;
        }
        // A Lua state's thread, whose own runtime runs only this call: it waits for the answer
        // the server's runtime brings (the client's reply arrives there).
        let (answered, answer) = std::sync::mpsc::channel();
        let (context, request) = (self.context.clone(), request.clone());
        self.server.spawn(async move {
            let _ = answered.send(ask(&context, &request).await);
        });
        answer.recv().unwrap_or(Answer::No)
    }

    fn name(&self) -> &'static str {
        NAME
    }
}

fn offers_elicitation(context: &RequestContext<RoleServer>, request: &ApprovalRequest) -> bool {
    request.who != Asked::PersonAtTerminal
        && context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form)
}

/// Asks from a thread of the server's runtime.
fn ask_on_this_thread(context: &RequestContext<RoleServer>, request: &ApprovalRequest) -> Answer {
    if !offers_elicitation(context, request) {
        return Answer::No;
    }
    // `answer` is synchronous and runs inside the call's task: lend this worker thread to
    // the wait, so the runtime keeps serving the client (and its reply) meanwhile.
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| handle.block_on(ask(context, request)))
        }
        _ => Answer::No,
    }
}

async fn ask(context: &RequestContext<RoleServer>, request: &ApprovalRequest) -> Answer {
    let offers_session = request.who == Asked::Anyone && request.rule.is_some();
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(request),
        requested_schema: question(offers_session),
    };
    tokio::select! {
        reply = context.peer.create_elicitation_with_timeout(params, Some(ASK_TIMEOUT)) => match reply {
            Ok(reply) if reply.action == ElicitationAction::Accept => {
                let choice = reply.content.as_ref().and_then(|c| c.get("answer")).and_then(|a| a.as_str());
                parse(choice, offers_session)
            }
            // The person declined: a no. Cancelled (dismissed without a choice): nobody said yes.
            Ok(reply) if reply.action == ElicitationAction::Decline => Answer::Refused,
            Ok(_) => Answer::No,
            Err(e) => {
                tracing::warn!("approval question not answered: {e}");
                Answer::No
            }
        },
        _ = context.ct.cancelled() => Answer::No,
    }
}

/// The question's text: what would happen, why rein asks and what a yes means, everything a
/// screen would act on or hide shown escaped (an MCP client shows it to the person as it is).
fn message(request: &ApprovalRequest) -> String {
    let mut text = format!("rein wants to {}\n({})", visible::line(&request.what), visible::line(&request.why));
    for line in &request.context {
        text.push_str(&format!("\n{}", visible::line(line)));
    }
    // "Always" allows what the rule matches for the session, not only this one command.
    if let Some(rule) = request.rule.as_ref().filter(|_| request.who == Asked::Anyone) {
        text.push_str(&format!("\n\"Always\" allows what this rule matches: {}", visible::line(&rule.describe())));
    }
    text
}

fn question(offers_session: bool) -> ElicitationSchema {
    let mut values = vec!["yes".to_string(), "no".to_string()];
    let mut titles = vec!["Yes, once".to_string(), "No".to_string()];
    if offers_session {
        values.push("session".into());
        titles.push("Always, until this rein session ends".into());
    }
    let answer =
        EnumSchema::builder(values).enum_titles(titles).expect("as many titles as values").title("Allow?").build();
    ElicitationSchema::builder().required_enum_schema("answer", answer).build().expect("a valid schema")
}

/// A person's choice: only a clear yes allows; "no" (or anything else they picked) refuses.
fn parse(choice: Option<&str>, offers_session: bool) -> Answer {
    match choice {
        Some("yes") => Answer::Once,
        Some("session") if offers_session => Answer::Session,
        Some(_) => Answer::Refused,
        None => Answer::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clear_yes_allows() {
        assert_eq!(parse(Some("yes"), false), Answer::Once);
        assert_eq!(parse(Some("session"), true), Answer::Session);
        assert_eq!(parse(Some("no"), true), Answer::Refused);
        assert_eq!(parse(Some("session"), false), Answer::Refused);
        assert_eq!(parse(Some("persist"), true), Answer::Refused);
        assert_eq!(parse(None, true), Answer::No);
    }

    #[test]
    fn without_a_call_in_scope_nobody_is_asked() {
        let request = ApprovalRequest {
            what: "write /x".into(),
            why: "outside".into(),
            context: Vec::new(),
            who: Asked::Anyone,
            rule: None,
        };
        assert_eq!(ElicitingApprover.answer(&request), Answer::No);
    }

    #[test]
    fn the_message_shows_everything_escaped() {
        let request = ApprovalRequest {
            what: "write /x/\u{202e}fdp.exe".into(),
            why: "outside".into(),
            context: vec!["in /w\u{1b}[2K".into()],
            who: Asked::Anyone,
            rule: None,
        };
        assert_eq!(message(&request), "rein wants to write /x/\\u{202e}fdp.exe\n(outside)\nin /w\\u{1b}[2K");
    }

    #[test]
    fn the_message_says_what_always_allows() {
        let request = ApprovalRequest {
            what: "hdc install -r x.hap".into(),
            why: "device".into(),
            context: Vec::new(),
            who: Asked::Anyone,
            rule: Some(crate::kernel::policy::Rule::for_command("hdc", vec!["install".into(), "-r\u{1b}".into()])),
        };
        let text = message(&request);
        assert!(text.ends_with("\n\"Always\" allows what this rule matches: hdc install $'-r\\x1b'"), "{text}");
        let person_only = ApprovalRequest { who: Asked::Person, ..request };
        assert!(!message(&person_only).contains("Always"));
    }

    #[test]
    fn the_question_offers_the_session_only_with_a_rule() {
        let text = serde_json::to_string(&question(true)).unwrap();
        assert!(text.contains("session"), "{text}");
        let text = serde_json::to_string(&question(false)).unwrap();
        assert!(!text.contains("session"), "{text}");
    }
}
