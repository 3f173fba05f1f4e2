//! A UI flow in the report (the `ui-flow` recipe, docs/src/ui.md): the records a step hands
//! over in its output as `flow_steps` become a JUnit testcase per flow step (named by its
//! number and action; a failure with what was expected and what the screen showed) and, in
//! report.html, a strip of the step screens with the action drawn on each (a marker where the
//! input landed, placed by the point relative to the display: CSS only, no script).
//!
//! A step's output is whatever its Lua returned — an agent's recipe can write it — so every
//! text goes through `markup` and the marker's place is computed from numbers, clamped to the
//! screen: nothing in a record becomes markup.

use std::fmt::Write as _;

use serde::Deserialize;

use super::markup::{lines, text};
use super::report::{Report, StepReport};

/// One flow step as the recipe recorded it.
#[derive(Debug, Clone, Deserialize)]
pub struct FlowStep {
    /// 1 for the first.
    pub number: u32,
    /// What it does (`tap text "Tap me"`).
    pub action: String,
    /// Whether it held; absent for a step that did not run.
    #[serde(default)]
    pub passed: bool,
    /// It did not run (an earlier step failed).
    #[serde(default)]
    pub skipped: bool,
    /// What it did, or why it failed (the expectation and the screen).
    #[serde(default)]
    pub said: String,
    /// The label of the screen kept after it (`step-2`).
    #[serde(default)]
    pub screen: Option<String>,
    /// Where the input landed, and the display it lies in.
    #[serde(default)]
    pub at: Option<Point>,
    #[serde(default)]
    pub display: Option<Size>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Size {
    pub width: f64,
    pub height: f64,
}

/// One device's flow: the device (None for ui-flow's one) and its steps.
pub struct Flow {
    pub device: Option<String>,
    pub steps: Vec<FlowStep>,
}

/// The flows a step recorded: its output's `flow_steps` (ui-flow), or each of its rows'
/// (device-matrix: a row per device, named by its `target`; in the failure's details when it
/// failed).
pub fn flows_of(step: &StepReport) -> Vec<Flow> {
    let parse = |records: &serde_json::Value| serde_json::from_value::<Vec<FlowStep>>(records.clone()).ok();
    if let Some(steps) = step.output.get("flow_steps").and_then(parse) {
        return vec![Flow { device: None, steps }];
    }
    // A matrix that failed returned nothing: its rows are in the failure's details.
    let failed = step.attempts.last().and_then(|a| a.failure.as_ref()).map(|f| &f.details);
    let rows = [Some(&step.output), failed]
        .into_iter()
        .flatten()
        .find_map(|v| v.get("rows").and_then(|r| r.as_array()))
        .map(Vec::as_slice)
        .unwrap_or_default();
    rows.iter()
        .filter_map(|row| {
            let steps = row.get("flow_steps").and_then(parse)?;
            Some(Flow { device: row.get("target").and_then(|t| t.as_str()).map(String::from), steps })
        })
        .collect()
}

impl Flow {
    /// `step 2 tap …`, or `D1 step 2 tap …` on a device of several.
    fn case_name(&self, f: &FlowStep) -> String {
        match &self.device {
            Some(device) => format!("{device} step {} {}", f.number, f.action),
            None => format!("step {} {}", f.number, f.action),
        }
    }
}

/// What the flows add to the JUnit suite's counts.
pub struct JunitCounts {
    pub tests: usize,
    pub failures: usize,
    pub skipped: usize,
}

/// How many testcases, failures and skipped ones the flows add to the JUnit suite.
pub fn junit_counts(report: &Report) -> JunitCounts {
    let flows: Vec<FlowStep> = report.steps.iter().flat_map(flows_of).flat_map(|flow| flow.steps).collect();
    JunitCounts {
        tests: flows.len(),
        failures: flows.iter().filter(|f| !f.passed && !f.skipped).count(),
        skipped: flows.iter().filter(|f| f.skipped).count(),
    }
}

/// A testcase per flow step of `step`, after the step's own testcase.
pub fn junit_cases(xml: &mut String, report: &Report, step: &StepReport) {
    let classname = text(&format!("rein.{}.{}", report.recipe, step.name));
    for flow in flows_of(step) {
        for f in &flow.steps {
            junit_case(xml, &classname, &flow.case_name(f), f);
        }
    }
}

fn junit_case(xml: &mut String, classname: &str, name: &str, f: &FlowStep) {
    {
        let _ = writeln!(xml, "    <testcase name=\"{}\" classname=\"{classname}\" time=\"0.000\">", text(name));
        if f.skipped {
            xml.push_str("      <skipped message=\"an earlier flow step failed\"/>\n");
        } else if !f.passed {
            let first = f.said.lines().next().unwrap_or_default();
            let _ = writeln!(
                xml,
                "      <failure type=\"flow step\" message=\"{}\">{}</failure>",
                text(first),
                lines(&f.said)
            );
        } else {
            let _ = writeln!(xml, "      <system-out>{}</system-out>", text(&f.said));
        }
        xml.push_str("    </testcase>\n");
    }
}

const STYLE: &str = "<style>.flow{display:flex;gap:.8rem;overflow-x:auto;padding:.3rem 0}\
.flow figure{margin:0;flex:0 0 11rem}.flow .shot{position:relative}.flow img{width:100%;border:1px solid #c8ced6;display:block}\
.flow .tap{position:absolute;width:1.4rem;height:1.4rem;margin:-.7rem 0 0 -.7rem;border:3px solid #e0312b;border-radius:50%;background:rgba(224,49,43,.25)}\
.flow .failed figcaption{color:#b3261e}.flow figcaption{font-size:13px}</style>\n";

/// The strip of the flows' screens (`screenshot`: a label's path and data: URI); returns the
/// labels of the screens it showed.
pub fn html_strip(
    page: &mut String,
    report: &Report,
    screenshot: &dyn Fn(&str) -> Option<(String, String)>,
) -> Vec<String> {
    let mut shown: Vec<String> = Vec::new();
    let flows: Vec<(&StepReport, Flow)> =
        report.steps.iter().flat_map(|step| flows_of(step).into_iter().map(move |flow| (step, flow))).collect();
    if !flows.is_empty() {
        page.push_str(STYLE);
    }
    for (step, flow) in flows {
        let (heading, suffix) = match &flow.device {
            None => (format!("Flow of step <code>{}</code>", text(&step.name)), String::new()),
            Some(device) => (format!("Flow on device <code>{}</code>", text(device)), format!("-{}", text(device))),
        };
        let _ = writeln!(page, "<h2>{heading}</h2>\n<div class=\"flow\" id=\"flow{suffix}\">");
        for f in flow.steps.iter().filter(|f| !f.skipped) {
            let class = if f.passed { "passed" } else { "failed" };
            let _ = write!(
                page,
                "<figure class=\"flow-step {class}\" id=\"flow{suffix}-step-{}\"><div class=\"shot\">",
                f.number
            );
            if let Some((path, uri)) = f.screen.as_deref().and_then(screenshot) {
                let _ = write!(
                    page,
                    "<img alt=\"the screen after step {}\" title=\"{}\" src=\"{uri}\">",
                    f.number,
                    text(&path)
                );
                shown.push(f.screen.clone().unwrap_or_default());
            }
            if let Some((left, top)) = marker(f) {
                let _ = write!(page, "<span class=\"tap\" style=\"left:{left:.2}%;top:{top:.2}%\"></span>");
            }
            let _ = writeln!(
                page,
                "</div><figcaption><strong>{}. {}</strong><br>{}</figcaption></figure>",
                f.number,
                text(&f.action),
                text(&f.said)
            );
        }
        page.push_str("</div>\n");
    }
    shown
}

/// Where the marker goes, in percent of the screen: None without a point inside a display.
fn marker(f: &FlowStep) -> Option<(f64, f64)> {
    let (at, display) = (f.at?, f.display?);
    if !(display.width > 0.0 && display.height > 0.0 && at.x.is_finite() && at.y.is_finite()) {
        return None;
    }
    let percent = |v: f64, of: f64| (v / of * 100.0).clamp(0.0, 100.0);
    Some((percent(at.x, display.width), percent(at.y, display.height)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(at: (f64, f64), display: (f64, f64)) -> FlowStep {
        FlowStep {
            number: 1,
            action: "tap".into(),
            passed: true,
            skipped: false,
            said: String::new(),
            screen: None,
            at: Some(Point { x: at.0, y: at.1 }),
            display: Some(Size { width: display.0, height: display.1 }),
        }
    }

    #[test]
    fn the_marker_sits_where_the_tap_landed_relative_to_the_screen_and_never_outside() {
        assert_eq!(marker(&step((630.0, 790.0), (1260.0, 2720.0))), Some((50.0, 790.0 / 2720.0 * 100.0)));
        assert_eq!(marker(&step((99999.0, -5.0), (1260.0, 2720.0))), Some((100.0, 0.0)));
        assert_eq!(marker(&step((10.0, 10.0), (0.0, 2720.0))), None, "no display, no marker");
        assert_eq!(marker(&step((f64::NAN, 10.0), (10.0, 10.0))), None);
    }
}
