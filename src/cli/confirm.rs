//! Asking the person at the controlling terminal to type "yes" — for what only a person may
//! do: granting rules, installing packs into rein's home.

use std::io::{BufRead, BufReader, Write};

use rein::kernel::approval::approver::TerminalPrompt;
use rein::{Code, Failure};

pub fn at_terminal(question: &str, why_needed: &str) -> Result<(), Failure> {
    let refused = || {
        Failure::new(
            Code::ApprovalRequired,
            format!("{why_needed} needs a person to confirm it at a terminal; run this command yourself in a terminal"),
        )
    };
    if !TerminalPrompt::available() {
        return Err(refused());
    }
    let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").map_err(|_| refused())?;
    let mut out = tty.try_clone().map_err(|_| refused())?;
    let _ = write!(out, "{question}\nType yes to confirm: ");
    let _ = out.flush();
    let mut line = String::new();
    BufReader::new(tty).read_line(&mut line).map_err(|_| refused())?;
    if line.trim() == "yes" {
        Ok(())
    } else {
        Err(Failure::new(Code::ApprovalDenied, "not confirmed; nothing was changed"))
    }
}
