//! The approval table in docs/src/approvals.md, rendered from the decision tables themselves so
//! the two cannot drift apart (a test compares them).

use super::programs::documented;
use crate::kernel::policy::shapes::Verdict;

const FILE_ROWS: [(&str, &str); 5] = [
    ("read or write inside the workspace", "allow"),
    ("read a `.git/` folder, `.rein/`, rein.toml, rein.lock, rein's home", "allow"),
    ("read or write outside the workspace", "ask"),
    (
        "write a `.git/` folder (any, nested ones too), `.rein/`, rein.toml or rein.lock",
        "ask a person (terminal or MCP client) — never a rule, never `--yes`",
    ),
    ("write rein's home", "ask a person at rein's terminal prompt — never a rule, never `--yes`, never over MCP"),
];

const TAIL_ROWS: [(&str, &str); 7] = [
    (
        "`emulator -start <name>`, kept running after the call (`emulator_start`; a kept program: docs/src/emulator.md)",
        "ask a person: their answer or a rule they made in home approvals.toml, never --yes",
    ),
    (
        "`hdc -t <key> …`, `hdc -l <n> …`; `hdc -s` to this machine's server (`OHOS_HDC_SERVER_PORT`, default 8710, on loopback) or to a server home config.toml names (`[devices.<name>] server`)",
        "as the command that follows",
    ),
    (
        "`hdc -s <any other server> …` (another machine's hdc server, or a loopback port nobody named: it may tunnel anywhere)",
        "ask, whatever the command",
    ),
    (
        "`hdc target boot`, `target mount`, `flash`, `erase`, `format`, `update`, `smode`, `tmode`, `sideload`; `-cwd`; an option before the hdc command other than `-t`, `-s`, `-l`; a device command line with any shell syntax (`;` `&&` `|` `$( )` backquotes, redirection, variables, globs, escapes, comments)",
        "deny",
    ),
    ("`git --version` (what `rein doctor` asks)", "allow"),
    ("git from a script (rein fetches packs itself)", "deny, unless a person's rule names the exact command"),
    ("any other program or command shape", "deny, unless a person's rule names the exact command"),
];

/// The markdown table docs/src/approvals.md shows under "Approvals".
pub fn approval_table() -> String {
    let mut rows: Vec<(String, String)> = FILE_ROWS.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    for (shape, verdict) in documented() {
        let decision = match verdict {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
        };
        rows.push((format!("`{shape}`"), decision.to_string()));
    }
    rows.extend(TAIL_ROWS.iter().map(|(a, b)| (a.to_string(), b.to_string())));
    let mut table = String::from("| side effect | decision |\n|---|---|\n");
    for (what, decision) in rows {
        table.push_str(&format!("| {} | {decision} |\n", what.replace('|', "\\|")));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_shows_the_tables_as_they_are() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/approvals.md")).unwrap();
        let start = "<!-- approval-table: generated from src/kernel/policy, checked by a test -->\n";
        let end = "<!-- /approval-table -->";
        let shown = readme
            .split_once(start)
            .and_then(|(_, rest)| rest.split_once(end))
            .map(|(table, _)| table)
            .expect("docs/src/approvals.md has the approval table markers");
        let expected = approval_table();
        assert!(
            shown == expected,
            "the approval table in docs/src/approvals.md is out of date; replace it with:\n{expected}"
        );
    }
}
