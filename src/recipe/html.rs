//! report.html: the run as one page a person opens from CI or a chat — the steps as a
//! timeline with their durations, who approved what, a failure with its ArkTS file:line and
//! what to do, and the launched app's screenshot and UI tree. It is self-contained (inline
//! CSS, the screenshot embedded as a data: URI, no script, nothing fetched), so it shows the
//! same offline, as a CI artifact or attached to a review. Its sentences are the report's
//! (`wording`), and everything a run recorded is escaped (`markup::text`: one line, no markup).

use std::fmt::Write as _;

use super::markup::{block_html, escape, inline_html, lines, text};
use super::report::{Report, StepReport, StepStatus};
use super::wording;

/// The files a page embeds, read from the run's folder by whoever renders it: a screen per
/// label, in the order the run kept them (one without a label for a single device).
#[derive(Debug, Default, Clone)]
pub struct Embedded {
    pub screens: Vec<Screen>,
}

/// One device's screen.
#[derive(Debug, Default, Clone)]
pub struct Screen {
    /// The device's label (`ctx:attach`'s), None for the only one.
    pub label: Option<String>,
    /// The screenshot: its path (relative to the workspace) and its JPEG bytes.
    pub screenshot: Option<(String, Vec<u8>)>,
    /// The UI tree in its compact text form: its path and the text.
    pub ui_tree: Option<(String, String)>,
}

impl Embedded {
    /// The screen of `label`, made when it is the first of its label.
    pub fn screen_of(&mut self, label: Option<&str>) -> &mut Screen {
        let at = match self.screens.iter().position(|s| s.label.as_deref() == label) {
            Some(at) => at,
            None => {
                self.screens.push(Screen { label: label.map(String::from), ..Screen::default() });
                self.screens.len() - 1
            }
        };
        &mut self.screens[at]
    }

    /// The screenshot of `label` as its path and a data: URI, if the run kept one.
    pub fn screenshot_uri(&self, label: &str) -> Option<(String, String)> {
        let screen = self.screens.iter().find(|s| s.label.as_deref() == Some(label))?;
        let (path, jpeg) = screen.screenshot.as_ref()?;
        Some((path.clone(), format!("data:image/jpeg;base64,{}", base64(jpeg))))
    }

    /// These files without the screens of `labels` (shown elsewhere on the page).
    pub fn without(&self, labels: &[String]) -> Embedded {
        let mut rest = self.clone();
        rest.screens.retain(|s| !s.label.as_ref().is_some_and(|l| labels.contains(l)));
        rest
    }
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:62rem;padding:0 1rem;color:#1b1f24}\
h1{font-size:1.35rem}h2{font-size:1.1rem;margin-top:2rem}code{background:#f0f2f5;padding:0 .25em;border-radius:3px}\
.status{font-weight:600;padding:.1em .5em;border-radius:4px}.verified,.succeeded{background:#dcf5e3}\
.failed,.cancelled{background:#fde2e1}.done,.skipped,.reused{background:#eef0f3}\
ol.timeline{list-style:none;padding:0}ol.timeline>li{border-left:3px solid #c8ced6;margin:0 0 1rem;padding:.2rem 0 .2rem 1rem}\
.bar{height:6px;background:#7aa7e0;border-radius:3px;margin:.3rem 0}.failure{border:1px solid #e5a3a0;background:#fff6f5;padding:.6rem 1rem}\
pre{background:#f6f8fa;padding:.6rem;overflow:auto;font-size:13px}img.screen{max-width:22rem;border:1px solid #c8ced6}";

impl Report {
    /// The page, with `embedded` files shown inline (embedders: [`crate::Host::run_report_page`]).
    pub(crate) fn to_html(&self, embedded: &Embedded) -> String {
        let mut page = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        // No network, no script: the page may only show itself.
        page.push_str(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">",
        );
        let _ = write!(page, "<title>rein run {} — {}</title>", text(&self.run_id), text(&self.recipe));
        let _ = writeln!(page, "<style>{STYLE}</style></head><body>");
        self.heading(&mut page);
        self.failure_html(&mut page);
        page.push_str(&super::tests_section_html::render(&self.tests));
        self.timeline(&mut page);
        let shown = super::flow_section::html_strip(&mut page, self, &|label| embedded.screenshot_uri(label));
        screen(&mut page, &embedded.without(&shown));
        page.push_str("</body></html>\n");
        page
    }

    fn heading(&self, page: &mut String) {
        let _ = writeln!(
            page,
            "<h1>rein run <code>{}</code> — recipe <code>{}</code>: <span class=\"status {}\" id=\"run-status\">{}</span></h1>",
            text(&self.run_id),
            text(&self.recipe),
            self.status,
            self.status
        );
        let _ = writeln!(
            page,
            "<p>Started {}, took {}. Arguments: {}</p>",
            text(&self.started),
            duration(self.duration_ms),
            text(&wording::arguments(&self.args))
        );
    }

    fn failure_html(&self, page: &mut String) {
        let Some(f) = &self.failure else { return };
        let _ = writeln!(
            page,
            "<div class=\"failure\" id=\"failure\"><p><strong>Failed at step <code>{}</code></strong>: {} — {}</p><ul>",
            text(&f.step),
            escape(f.code.as_str()),
            text(&f.message)
        );
        if let Some(location) = &f.location {
            let _ = writeln!(page, "<li>where: <code class=\"location\">{}</code></li>", text(location));
        }
        if let Some(remedy) = &f.remedy {
            let _ = writeln!(page, "<li>what to do: {}</li>", text(remedy));
        }
        page.push_str("</ul>\n");
        page.push_str(&block_html(&super::details_md::render(&f.details)));
        page.push_str("</div>\n");
    }

    fn timeline(&self, page: &mut String) {
        page.push_str("<h2>Steps</h2>\n<ol class=\"timeline\" id=\"steps\">\n");
        let longest = self.steps.iter().map(|s| s.duration_ms).max().unwrap_or(0).max(1);
        let tools = self.names_tools();
        for (i, step) in self.steps.iter().enumerate() {
            step_html(page, i + 1, step, longest, tools);
        }
        page.push_str("</ol>\n");
        let unverified: Vec<&str> =
            self.steps.iter().filter(|s| s.status == StepStatus::Done).map(|s| s.name.as_str()).collect();
        if !unverified.is_empty() {
            let _ = writeln!(page, "<p>{}</p>", inline_html(&wording::unverified(&unverified)));
        }
        let claimed = self.claimed_steps();
        if !claimed.is_empty() {
            let _ = writeln!(page, "<p id=\"claimed\">{}</p>", inline_html(&wording::claimed(&claimed)));
        }
        if self.steps.iter().any(|s| !s.files.is_empty()) {
            let undo = format!("rein undo {}", self.run_id);
            let _ = writeln!(page, "<p>Undo every file this run changed: <code>{}</code></p>", text(&undo));
        }
    }
}

fn step_html(page: &mut String, number: usize, step: &StepReport, longest: u64, tools: bool) {
    let width = (step.duration_ms.saturating_mul(100) / longest).max(1);
    let status = step.status.to_string();
    let class = status.split(' ').next().unwrap_or_default();
    let _ = writeln!(
        page,
        "<li class=\"step\"><strong>{number}. <span class=\"step-name\">{}</span></strong> \
         <span class=\"status {class}\">{}</span> {}{}<div class=\"bar\" style=\"width:{width}%\"></div><ul>",
        text(&step.name),
        escape(&status),
        duration(step.duration_ms),
        attempts(step)
    );
    if tools && !step.tools.is_empty() {
        let _ = writeln!(page, "<li class=\"tools\">{}</li>", inline_html(&wording::served_tools(&step.tools)));
    }
    for line in &step.evidence {
        let _ = writeln!(page, "<li>evidence: <code>{}</code></li>", text(line));
    }
    for a in &step.approvals {
        let target = super::markdown_text::code(&a.target);
        let line = format!("approval: {} {target} allowed by {}", a.action, wording::decider(&a.decided_by));
        let _ = writeln!(page, "<li class=\"approval\">{}</li>", inline_html(&line));
    }
    for c in &step.commands {
        let _ = writeln!(page, "<li class=\"command\">{}</li>", inline_html(&wording::command(c)));
    }
    for f in &step.files {
        let _ = writeln!(page, "<li>changed <code>{}</code></li>", text(&f.path));
    }
    for r in &step.rolled_back {
        let _ = writeln!(page, "<li>rolled back <code>{}</code></li>", text(r));
    }
    for a in &step.attachments {
        let kind = inline_html(&wording::attachment_kind(a));
        let _ = writeln!(page, "<li>{kind}: <code>{}</code></li>", text(&a.path));
    }
    page.push_str("</ul></li>\n");
}

/// The screenshot and the UI tree of the launched app on each device, when the run saved them.
fn screen(page: &mut String, embedded: &Embedded) {
    for screen in embedded.screens.iter().filter(|s| s.screenshot.is_some() || s.ui_tree.is_some()) {
        let (heading, suffix) = match &screen.label {
            None => ("The app on the device".to_string(), String::new()),
            Some(label) => (format!("The app on device <code>{}</code>", text(label)), format!("-{}", text(label))),
        };
        let _ = writeln!(page, "<h2>{heading}</h2>");
        if let Some((path, jpeg)) = &screen.screenshot {
            let _ = writeln!(
                page,
                "<figure><img class=\"screen\" id=\"screenshot{suffix}\" alt=\"the device's screen after the launch\" \
                 src=\"data:image/jpeg;base64,{}\"><figcaption><code>{}</code></figcaption></figure>",
                base64(jpeg),
                text(path)
            );
        }
        if let Some((path, tree)) = &screen.ui_tree {
            let _ = writeln!(
                page,
                "<p>UI tree (<code>{}</code>):</p><pre id=\"ui-tree{suffix}\">{}</pre>",
                text(path),
                lines(tree)
            );
        }
    }
}

fn attempts(step: &StepReport) -> String {
    match step.attempts.len() {
        0 | 1 => String::new(),
        n => format!(", {n} attempts"),
    }
}

fn duration(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// Standard base64 (RFC 4648 §4, with padding), for the data: URI; a dozen lines do not
/// warrant a crate.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        for (plain, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn details_become_a_list_and_fenced_blocks_pre() {
        let html = block_html("- error `a.ets:3:5`: <b>\n  ```\n  line <i>\n  ```\n");
        assert!(html.contains("<li>error <code>a.ets:3:5</code>: &lt;b&gt;"), "{html}");
        assert!(html.contains("<pre><code>line &lt;i&gt;\n</code></pre>"), "{html}");
    }
}
