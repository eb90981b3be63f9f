//! Minesweeper in the terminal: the grid as text with its column letters and row numbers (`a1`
//! top left), as `arbiter state` and the line mode show it; `screen` is the full-screen board.

pub mod screen;

/// How a square of the view (`board`) is drawn in a terminal: `.` closed, a blank for an open
/// 0, else as the view has it.
fn shown(square: char) -> char {
    match square {
        '#' => '.',
        '0' => ' ',
        x => x,
    }
}

/// The header line of column letters over the grid.
fn column_letters(v: &View) -> String {
    format!("   {}", (0..v.width).map(|c| format!(" {}", char::from(b'a' + c))).collect::<String>())
}

use arbiter_minesweeper::View;

/// The grid: a header of column letters, then each row with its number; `.` for a closed cell
/// (the view's `#`), `F` flagged, ` ` for an open 0, `1`–`8`, and at the end `*` a mine, `X`
/// the one opened.
pub fn grid(v: &View) -> String {
    let mut out = format!("{}\n", column_letters(v));
    for (r, row) in v.board.iter().enumerate() {
        let cells: String = row.chars().map(|ch| format!(" {}", shown(ch))).collect();
        out += &format!("{:>3}{cells}\n", r + 1);
    }
    out += &format!("{} mines, {} flagged\n", v.mines, v.flags);
    out
}

/// Minesweeper's line mode (`arbiter play`): the grid, then one move a line (`open c4`,
/// `flag c4`, `unflag c4`, or a cell alone to open it); `undo`, `help`, `quit`. Every move is
/// stored as soon as it is accepted.
pub fn play_lines(mut session: arbiter_store::Session) -> Result<(), crate::Failure> {
    use std::io::BufRead;
    let player = arbiter_kernel::Seat(0);
    let show = |s: &arbiter_store::Session| match s.game_as::<arbiter_minesweeper::Minesweeper>() {
        Some(ms) => grid(&arbiter_kernel::Game::view(ms, Some(player))),
        None => format!("{}\n", s.game().view(Some(player))),
    };
    say_inline!("{}", show(&session));
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        if let Some(o) = session.game().outcome() {
            say!("Game over: {}", o.text);
            return Ok(());
        }
        if let Some(t) = session.game().decision() {
            say!("{}", t.first().prompt);
        }
        say_inline!("> ");
        let Some(line) = lines.next() else { return Ok(()) };
        let line = line?;
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "q" => return Ok(()),
            "help" => {
                say!("open CELL (or just CELL), flag CELL, unflag CELL; cells are a1 (top left) to the bottom right. undo, quit.");
                continue;
            }
            "board" => {
                say_inline!("{}", show(&session));
                continue;
            }
            "undo" => {
                match session.undo() {
                    Ok(row) => say!("Undone: {}", row.move_text),
                    Err(arbiter_store::SessionError::Rejected(m)) => say!("{m}"),
                    Err(e) => return Err(e.into()),
                }
                say_inline!("{}", show(&session));
                continue;
            }
            _ => {}
        }
        // A cell alone opens it (every move is a verb and a cell).
        let text = if text.split_whitespace().count() == 1 { format!("open {text}") } else { text.to_string() };
        match session.play(&text, None) {
            Ok((_, report)) => {
                for l in report.lines_for(Some(player)) {
                    say!("{l}");
                }
                say_inline!("{}", show(&session));
            }
            Err(arbiter_store::SessionError::Rejected(m)) => say!("{m}"),
            Err(e) => return Err(e.into()),
        }
    }
}
