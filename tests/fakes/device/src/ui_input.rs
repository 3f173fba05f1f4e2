//! `uitest uiInput …`, as `openharmony/testfwk_arkxtest` uitest/input/ui_input.cpp prints it
//! (the version read: `UiActionInput`, `ClickActionInput`, `SwipeActionInput`,
//! `KeyEventActionInput`, `TextActionInput`, `CheckParams`, `PrintInputMessage`; every text goes
//! out through `std::cout << … << std::endl`, so a message ending in " \n" is followed by an
//! empty line). The action's own result is `ApiCallErr`'s message, `No Error` on success —
//! printed also for a point off the screen or a dark or locked screen, where nothing happens
//! (shared/HARMONY-VERIFY.md §3.1, measured by argent). `text <text>` (uitest ≥ 5.1.1.1, not in
//! the version read) types at the focus, per the same sheet; its usage error is a GUESS.
//!
//! The exit status (1 after a usage error) is not the fake's to give: hdc discards it.
//! What an action does to the screen is screen.rs.

use crate::device::Device;
use crate::screen::{self, BACK, HOME, POWER};

const USAGE: &str = "The command and default sources are : \n   dircFling <direction>, direction can choose from 0,1,2,3 (left, right, up, down)\n   click/doubleClick/longClick <x> <y> \n   swipe/drag <from_x> <from_y> <to_x> <to_y> [velocity: Value range from 200 to 40000, default 600] \n   fling <from_x> <from_y> <to_x> <to_y> [velocity stepLength] \n    keyEvent <keyID/Back/Home/Power> \n   keyEvent <keyID_0> <keyID_1> [keyID_2: default None] \n";
const NO_ERROR: &str = "No Error";
const MIN_VELOCITY: i64 = 200;
const MAX_VELOCITY: i64 = 40000;

/// C's `atoi`: the leading (signed) digits after white space, 0 when there are none.
fn atoi(word: &str) -> i64 {
    let t = word.trim_start();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let n: String = digits.chars().take_while(char::is_ascii_digit).collect();
    sign * n.parse::<i64>().unwrap_or(0)
}

/// The action's answer: `No Error`, or the message a test scripted (`"ui_input_error"`, one
/// of uitest's `ApiCallErr` texts: "The window or component is invisible or destroyed.").
fn answer(device: &Device, out: &mut String) {
    let scripted = device.flag("ui_input_error").as_str().map(String::from);
    line(out, scripted.as_deref().unwrap_or(NO_ERROR));
}

fn line(out: &mut String, text: &str) {
    out.push_str(text);
    out.push('\n');
}

fn usage(out: &mut String) {
    line(out, USAGE);
}

/// `CheckParams`: too few words print `Missing parameter.` and the usage.
fn check_params(argc: usize, want: usize, out: &mut String) -> bool {
    if argc < want {
        line(out, "Missing parameter. \n");
        usage(out);
        return false;
    }
    true
}

/// `uitest uiInput ARGS…` (words[0] is `uitest`, so `argc` counts as the C code's does).
pub fn ui_input(words: &[String], device: &mut Device, out: &mut String) {
    let argc = words.len();
    if !check_params(argc, 4, out) {
        return;
    }
    match words[2].as_str() {
        "keyEvent" => key_event(words, device, out),
        "fling" | "dircFling" | "swipe" | "drag" => swipe(words, device, out),
        "click" | "longClick" | "doubleClick" => click(words, device, out),
        "inputText" => input_text(words, device, out),
        "text" => text(words, device, out),
        _ => {
            line(out, "Invalid parameters. \n");
            usage(out);
        }
    }
}

fn point(words: &[String], out: &mut String) -> Option<(i64, i64)> {
    let (x, y) = (atoi(&words[3]), atoi(&words[4]));
    if x <= 0 || y <= 0 {
        line(out, "Please confirm that the coordinate values are correct. \n");
        usage(out);
        return None;
    }
    Some((x, y))
}

fn click(words: &[String], device: &mut Device, out: &mut String) {
    if words.len() != 5 {
        line(out, "The number of parameters is incorrect. \n");
        usage(out);
        return;
    }
    let Some((x, y)) = point(words, out) else { return };
    match words[2].as_str() {
        "click" => screen::tap(device, x, y),
        // Two taps in a row, as ArkUI delivers them to an onClick.
        "doubleClick" => {
            screen::tap(device, x, y);
            screen::tap(device, x, y);
        }
        // A long press fires no onClick (GUESS: a LongPressGesture would; the model has none).
        _ => {}
    }
    answer(device, out);
}

fn swipe(words: &[String], device: &Device, out: &mut String) {
    let argc = words.len();
    let opt = words[2].as_str();
    let mut velocity = 600;
    let points;
    if opt == "dircFling" && check_params(argc, 4, out) {
        let direction = atoi(&words[3]);
        if !(0..=3).contains(&direction) {
            usage(out);
            return;
        }
        if argc >= 5 {
            velocity = atoi(&words[4]);
        }
        if argc > 6 {
            line(out, " Too many parameters. \n");
            usage(out);
            return;
        }
        let (cx, cy) = (screen::WIDTH / 2, screen::HEIGHT / 2);
        let from = match direction {
            0 => (cx - screen::WIDTH / 4, cy),
            1 => (cx + screen::WIDTH / 4, cy),
            2 => (cx, cy - screen::HEIGHT / 4),
            _ => (cx, cy + screen::HEIGHT / 4),
        };
        points = Some((from, (cx, cy)));
    } else if matches!(opt, "fling" | "swipe" | "drag") && check_params(argc, 7, out) {
        let coords: Vec<i64> = words[3..7].iter().map(|w| atoi(w)).collect();
        if coords.iter().any(|c| *c <= 0) {
            line(out, "Please confirm that the coordinate values are correct. \n");
            usage(out);
            return;
        }
        if argc == 8 {
            velocity = atoi(&words[7]);
        }
        points = Some(((coords[0], coords[1]), (coords[2], coords[3])));
    } else {
        line(out, "Missing parameters. \n");
        usage(out);
        return;
    }
    let ((fx, fy), (tx, ty)) = points.expect("points");
    if opt == "fling" && argc == 9 {
        let step = atoi(&words[8]);
        let distance = (((tx - fx).pow(2) + (ty - fy).pow(2)) as f64).sqrt() as i64;
        if step <= 0 || step > distance {
            line(out, "The stepLen is out of range");
            return;
        }
    } else if (opt == "fling" && argc > 9) || (matches!(opt, "swipe" | "drag") && argc > 8) {
        line(out, "Too many parameters. \n");
        return;
    }
    if !(MIN_VELOCITY..=MAX_VELOCITY).contains(&velocity) {
        line(out, "The swipe velocity out of range, the default value will be used. \n");
    }
    // The model's pages do not scroll: a swipe reaches the screen and changes nothing.
    let _ = device;
    answer(device, out);
}

fn key_event(words: &[String], device: &mut Device, out: &mut String) {
    let argc = words.len();
    let key = words[3].as_str();
    let code = match key {
        "Home" if argc == 4 => HOME,
        "Back" if argc == 4 => BACK,
        "Power" if argc == 4 => POWER,
        _ if atoi(key) != 0 => {
            if argc > 6 {
                line(out, "Too many parameters. \n");
                usage(out);
                return;
            }
            // A combination of two or three keys presses them together: none of the model's
            // keys is a combination.
            if argc == 4 {
                atoi(key)
            } else {
                0
            }
        }
        _ => {
            line(out, "Invalid parameters. \n");
            usage(out);
            return;
        }
    };
    screen::key(device, code);
    answer(device, out);
}

fn input_text(words: &[String], device: &mut Device, out: &mut String) {
    if words.len() != 6 {
        line(out, "The number of parameters is incorrect. \n");
        usage(out);
        return;
    }
    let Some((x, y)) = point(words, out) else { return };
    screen::tap(device, x, y);
    screen::type_text(device, &words[5]);
    answer(device, out);
}

fn text(words: &[String], device: &mut Device, out: &mut String) {
    if words.len() != 4 {
        line(out, "The number of parameters is incorrect. \n"); // GUESS
        usage(out);
        return;
    }
    screen::type_text(device, &words[3]);
    answer(device, out);
}

#[cfg(test)]
mod tests {
    use super::atoi;

    #[test]
    fn atoi_reads_as_c_does() {
        assert_eq!([atoi("12"), atoi("-3"), atoi("Enter"), atoi("7px"), atoi(" 9")], [12, -3, 0, 7, 9]);
    }
}
