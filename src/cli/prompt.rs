//! The person at the controlling terminal: answering the policy's questions (`y`, `n`,
//! always this session, persist as a rule), and confirming what only a person may do.

use std::io::{BufRead, BufReader};

use rein::{Answer, ApprovalRequest, Approver, Asked, Code, Failure};

use super::{screen, tty};

/// Asks the person at the controlling terminal (`/dev/tty`; Windows `CONIN$`/`CONOUT$`), so
/// piped stdin/stdout and an agent's output parsing are never involved.
pub struct TerminalPrompt;

impl TerminalPrompt {
    /// Available when this process has a controlling terminal.
    pub fn available() -> bool {
        tty::available()
    }
}

impl Approver for TerminalPrompt {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        let choices = if !offers_more(request) {
            "[y]es once / [n]o"
        } else {
            "[y]es once / [n]o / [a]lways this session / [p]ersist as a rule"
        };
        match ask(&question(request, choices)) {
            Ok(line) => parse_answer(&line, request),
            Err(_) => Answer::No,
        }
    }

    fn name(&self) -> &'static str {
        "person"
    }

    fn is_person(&self) -> bool {
        true
    }
}

/// The whole question: what would happen, why rein asks, what a yes means, the choices.
fn question(request: &ApprovalRequest, choices: &str) -> String {
    let mut text =
        format!("\nrein wants to {}\n  ({})\n", rein::visible::line(&request.what), rein::visible::line(&request.why));
    for line in &request.context {
        text.push_str(&format!("  {}\n", rein::visible::line(line)));
    }
    // "Always" and "persist" allow what this rule matches, not only this one command.
    if let Some(rule) = request.rule.as_ref().filter(|_| offers_more(request)) {
        text.push_str(&format!(
            "  [a] or [p] allow what this rule matches: {}\n",
            rein::visible::line(&rule.describe())
        ));
    }
    text.push_str(&format!("Allow? {choices}: "));
    text
}

/// Puts `question` on the person's terminal and reads the line typed after it. Whatever was
/// typed before is discarded first: a keystroke made before the question was shown — or input
/// that something else put in the terminal's queue — never answers it.
fn ask(question: &str) -> std::io::Result<String> {
    let terminal = tty::open()?;
    terminal.discard_typed_ahead()?;
    let mut out = &terminal.output;
    screen::write(&mut out, question)?;
    let mut line = String::new();
    BufReader::new(&terminal.input).read_line(&mut line)?;
    Ok(line)
}

/// "Always" and "persist" are offered only where anyone may answer and a rule can say so.
fn offers_more(request: &ApprovalRequest) -> bool {
    request.who == Asked::Anyone && request.rule.is_some()
}

fn parse_answer(line: &str, request: &ApprovalRequest) -> Answer {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Answer::Once,
        "a" | "always" if offers_more(request) => Answer::Session,
        "p" | "persist" if offers_more(request) => Answer::Persist,
        _ => Answer::No,
    }
}

/// Asks the person to type "yes" — for what only a person may do: granting rules, installing
/// packs into rein's home.
pub fn confirm(question: &str, why_needed: &str) -> Result<(), Failure> {
    let refused = || {
        Failure::new(
            Code::ApprovalRequired,
            format!("{why_needed} needs a person to confirm it at a terminal; run this command yourself in a terminal"),
        )
    };
    if !TerminalPrompt::available() {
        return Err(refused());
    }
    let line = ask(&format!("{question}\nType yes to confirm: ")).map_err(|_| refused())?;
    if line.trim() == "yes" {
        Ok(())
    } else {
        Err(Failure::new(Code::ApprovalDenied, "not confirmed; nothing was changed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein::Rule;

    fn request(person_only: bool) -> ApprovalRequest {
        let rule = Some(Rule::for_command("hdc", vec!["install".into()]));
        let who = if person_only { Asked::Person } else { Asked::Anyone };
        ApprovalRequest { what: "hdc install".into(), why: "device".into(), context: Vec::new(), who, rule }
    }

    #[test]
    fn the_question_shows_everything_escaped() {
        let mut asked = request(true);
        asked.what = "write /x/a\u{1b}[2J\u{202e}".into();
        asked.context = vec!["runs /usr/bin/hdc".into(), "in /w\r/fake".into()];
        let shown = question(&asked, "[y]es");
        assert_eq!(
            shown,
            "\nrein wants to write /x/a\\u{1b}[2J\\u{202e}\n  (device)\n  runs /usr/bin/hdc\n  in /w\\r/fake\nAllow? [y]es: "
        );
        let offered = question(&request(false), "[y]es");
        assert!(offered.contains("  [a] or [p] allow what this rule matches: hdc install\n"), "{offered}");
    }

    #[test]
    fn answers_are_read_strictly() {
        assert_eq!(parse_answer("y\n", &request(false)), Answer::Once);
        assert_eq!(parse_answer("A\n", &request(false)), Answer::Session);
        assert_eq!(parse_answer("p", &request(false)), Answer::Persist);
        assert_eq!(parse_answer("maybe", &request(false)), Answer::No);
        assert_eq!(parse_answer("", &request(false)), Answer::No);
        assert_eq!(parse_answer("p", &request(true)), Answer::No, "home writes are never persisted");
        assert_eq!(parse_answer("a", &request(true)), Answer::No);
    }
}
