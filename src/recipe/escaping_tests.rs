//! The property behind the report escapers (issue 35, point 4): whatever text from outside
//! rein a report holds — in any field, in any format — the document has the structure it has
//! with plain text there. Hostile strings (line breaks, markdown and HTML structure, code
//! fences, entities, control and bidi characters, what XML 1.0 forbids) from a seeded
//! generator go through every field at once; real parsers judge: pulldown-cmark (with GitHub's
//! tables, task lists, strikethrough and footnotes) for report.md, html5ever (`scraper`) for
//! report.html, roxmltree for the JUnit XML; the terminal (what `rein runs show` prints) keeps
//! its line count and shows no character a screen acts on.

use pulldown_cmark::{Event, Options, Parser};
use serde_json::{json, Value};

use super::html::{Embedded, Screen};
use super::report::*;
use super::served::ServedTool;
use super::tests_section::{StackFrame, TestCase, TestCounts, TestLocation, TestRun, TestStatus};
use crate::error::Code;
use crate::kernel::journal::Action;
use crate::kernel::policy::DecidedBy;
use crate::kernel::FileChange;
use crate::kernel::Origin;

/// Pieces of hostile text: each starts or ends some structure in one of the formats.
const PIECES: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    "# h",
    "## launch",
    "| launch | verified |",
    "|---|---|",
    "- [ ] task",
    "- [x] done",
    "* item",
    "+ item",
    "1. one",
    "2) two",
    "> quote",
    "```",
    "~~~",
    "`",
    "``",
    "    indented",
    "\t",
    "---",
    "===",
    "***",
    "![img](http://evil.example/x.png)",
    "[link](http://evil.example)",
    "<http://evil.example>",
    "[^1]",
    "[^1]: note",
    "<b>",
    "</li><li>",
    "</ul>",
    "<script>alert(1)</script>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?xml?>",
    "&#10;",
    "&#x202e;",
    "&lt;",
    "&amp;",
    "\\",
    "*",
    "_",
    "~",
    "a_b",
    "\"",
    "'",
    "&",
    "<",
    ">",
    "|",
    "\u{1b}[2J",
    "\u{1b}]8;;http://e\u{7}",
    "\u{202e}",
    "\u{2066}",
    "\u{200b}",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\u{0}",
    "\u{b}",
    "\u{c}",
    "\u{7f}",
    "\u{fffe}",
    "\u{ffff}",
    "\u{feff}",
    "x",
    " ",
    "  ",
    "签名",
    "é",
];

/// xorshift64*: the same strings on every run, so a failure names its seed.
struct Hostile(u64);

impl Hostile {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn string(&mut self) -> String {
        let pieces = 1 + self.next() % 8;
        (0..pieces).map(|_| PIECES[(self.next() % PIECES.len() as u64) as usize]).collect()
    }
}

/// A report with `text` in every field that carries text from outside rein.
fn report(text: &str) -> Report {
    let t = || text.to_string();
    let step = |name: String, status: StepStatus| StepReport {
        name,
        status,
        duration_ms: 1200,
        attempts: Vec::new(),
        output: Value::Null,
        evidence: vec![t(), t()],
        commands: vec![CommandRecord {
            command: t(),
            decided_by: Some(DecidedBy::Rule(t())),
            result: CommandEnd::Exited,
            code: None,
            exit_code: Some(1),
            signal: None,
        }],
        approvals: vec![
            ApprovalRecord { action: Action::Spawn, target: t(), decided_by: Some(DecidedBy::Project(t())) },
            ApprovalRecord { action: Action::Spawn, target: t(), decided_by: Some(DecidedBy::Pack(t())) },
            ApprovalRecord { action: Action::Spawn, target: t(), decided_by: Some(DecidedBy::Approver(t())) },
        ],
        files: vec![FileChange { path: t(), sha256_before: None, sha256_after: "ab".repeat(32), preimage: None }],
        rolled_back: vec![t()],
        attachments: vec![Attachment { kind: AttachmentKind::Screenshot, path: t(), label: Some(t()) }],
        tools: vec![
            ServedTool { name: t(), origin: Origin::Project, file: t() },
            ServedTool { name: t(), origin: Origin::BuiltIn, file: t() },
        ],
    };
    let details = json!({
        "errors": [{"file": t(), "line": 3, "column": 5, "code": t(), "message": t()}],
        "marker": t(), "pid": t(),
        "crash": {"error_name": t(), "error_message": t(), "file": t(), "pid": t(), "stack": [t(), t()],
                  "first_lines": [t(), t()]},
        "log": [t(), t()],
        "rows": [{"target": t(), "ok": true, "evidence": t(), "screen": t()},
                 {"target": t(), "ok": false, "code": t(), "detail_code": t(), "message": t(), "remedy": t()}],
    });
    Report {
        run_id: t(),
        recipe: t(),
        args: json!({ "note": t(), "list": [t(), t()], "nested": {"k": t()} }),
        status: RunStatus::Failed,
        started: t(),
        duration_ms: 4000,
        steps: vec![
            step(format!("a{text}"), StepStatus::Verified),
            step(format!("b{text}"), StepStatus::Done),
            step(format!("c{text}"), StepStatus::Failed),
            step(format!("d{text}"), StepStatus::Skipped),
            step(format!("e{text}"), StepStatus::Claimed),
        ],
        failure: Some(FailureSummary {
            step: format!("c{text}"),
            code: Code::StepFailed,
            message: t(),
            location: Some(t()),
            remedy: Some(t()),
            command: Some(t()),
            details,
        }),
        source: Some(RecipeSource { origin: t(), file: t(), replaces: Some(Replaced { origin: t(), file: t() }) }),
        tests: vec![TestRun {
            step: t(),
            target: Some(t()),
            verdict: t(),
            message: t(),
            counts: TestCounts::default(),
            tests: [TestStatus::Failed, TestStatus::Error, TestStatus::Skipped, TestStatus::Passed]
                .into_iter()
                .map(|status| TestCase {
                    suite: t(),
                    test: t(),
                    status,
                    message: Some(t()),
                    location: Some(TestLocation { file: t(), line: 3, column: 5 }),
                    stack: Some(format!("{text}\n    at f ({text}:1:2)")),
                    source: vec![
                        StackFrame {
                            device: t(),
                            mapped: true,
                            file: Some(t()),
                            line: Some(7),
                            column: Some(5),
                            why: None,
                        },
                        StackFrame { device: t(), mapped: false, file: None, line: None, column: None, why: Some(t()) },
                    ],
                    time_ms: Some(4),
                })
                .collect(),
            claimed: true,
        }],
    }
}

fn embedded(text: &str) -> Embedded {
    Embedded {
        screens: vec![Screen {
            label: Some(text.to_string()),
            screenshot: Some((text.to_string(), vec![0xff, 0xd8, 0xff])),
            ui_tree: Some((text.to_string(), format!("Button {text}\nText {text}"))),
        }],
    }
}

/// report.md's structure: every block and inline element CommonMark and GitHub's extensions
/// know, in order (their text left out).
fn markdown_structure(md: &str) -> Vec<String> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    Parser::new_ext(md, options)
        .filter_map(|event| match event {
            Event::Start(tag) => Some(format!("{tag:?}").split(['(', ' ', '{']).next().unwrap_or_default().to_string()),
            Event::End(tag) => Some(format!("/{tag:?}")),
            Event::Text(_) | Event::Code(_) => None,
            other => Some(format!("{other:?}").split('(').next().unwrap_or_default().to_string()),
        })
        .collect()
}

/// report.html's element tree as a browser's parser builds it: each element's name and the
/// names of its attributes, in document order, with its depth.
fn html_structure(html: &str) -> Vec<String> {
    let document = scraper::Html::parse_document(html);
    let mut out = Vec::new();
    for node in document.tree.root().descendants() {
        if let Some(element) = node.value().as_element() {
            let depth = node.ancestors().count();
            let mut attributes: Vec<&str> = element.attrs().map(|(name, _)| name).collect();
            attributes.sort_unstable();
            out.push(format!("{depth} {} {attributes:?}", element.name()));
        }
        if let Some(comment) = node.value().as_comment() {
            out.push(format!("comment {}", comment.len()));
        }
    }
    out
}

/// The JUnit XML's element tree (it must parse: XML 1.0 forbids some characters outright).
fn junit_structure(xml: &str) -> Result<Vec<String>, String> {
    let document = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    Ok(document
        .descendants()
        .filter(|n| n.is_element())
        .map(|n| {
            let attributes: Vec<&str> = n.attributes().map(|a| a.name()).collect();
            format!("{} {} {attributes:?}", n.ancestors().count(), n.tag_name().name())
        })
        .collect())
}

/// What `rein runs show` puts on a terminal: report.md through the screen's escaper.
fn terminal(md: &str) -> String {
    crate::visible::lines(md).into_owned()
}

#[test]
fn hostile_text_in_every_field_leaves_every_format_with_the_structure_of_plain_text() {
    let plain = report("plain");
    let (md, html, xml) = (plain.to_markdown(), plain.to_html(&embedded("plain")), plain.to_junit());
    let (md_shape, html_shape) = (markdown_structure(&md), html_structure(&html));
    let xml_shape = junit_structure(&xml).expect("the plain JUnit XML parses");
    let screen_lines = terminal(&md).lines().count();
    let mut hostile = Hostile(0x005e_ed35);
    for round in 0..400 {
        let text = hostile.string();
        let report = report(&text);
        let md = report.to_markdown();
        assert_eq!(markdown_structure(&md), md_shape, "report.md, round {round}, text {text:?}:\n{md}");
        let html = report.to_html(&embedded(&text));
        assert_eq!(html_structure(&html), html_shape, "report.html, round {round}, text {text:?}:\n{html}");
        let xml = report.to_junit();
        assert_eq!(junit_structure(&xml).as_ref(), Ok(&xml_shape), "JUnit, round {round}, text {text:?}:\n{xml}");
        let shown = terminal(&md);
        assert_eq!(shown.lines().count(), screen_lines, "terminal, round {round}, text {text:?}:\n{shown}");
        assert!(
            !shown.chars().any(|c| c != '\n' && crate::visible::is_hidden(c)),
            "terminal, round {round}, text {text:?}: a character a screen acts on"
        );
    }
}

#[test]
fn the_junit_totals_count_every_testcase_of_every_suite() {
    let xml = report("plain").to_junit();
    let document = roxmltree::Document::parse(&xml).unwrap();
    let root = document.root_element();
    let count = |name: &str| document.descendants().filter(|n| n.has_tag_name(name)).count();
    let total = |attr: &str| root.attribute(attr).unwrap().parse::<usize>().unwrap();
    assert_eq!(total("tests"), count("testcase"), "{xml}");
    assert_eq!(total("failures"), count("failure"), "{xml}");
    assert_eq!(total("errors"), count("error"), "{xml}");
    let suites: usize = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .map(|s| s.attribute("tests").unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(total("tests"), suites, "the suites add up to the total: {xml}");
}

#[test]
fn the_judges_see_a_forged_structure() {
    // Without the escapers, each judge would tell: the check above can fail.
    let forged = "x\n## launch\n| launch | verified |\n- [ ] task\n![i](http://e/x.png)";
    assert_ne!(markdown_structure(&format!("a {forged}")), markdown_structure("a plain"));
    assert_ne!(html_structure(&format!("<p>{forged}<li>x</li></p>")), html_structure("<p>plain</p>"));
    assert!(junit_structure("<a>\u{1}</a>").is_err());
    assert_ne!(junit_structure("<a><b/></a>"), junit_structure("<a>b</a>"));
}
