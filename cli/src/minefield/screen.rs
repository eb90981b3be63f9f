//! Minesweeper full-screen (ratatui): the grid with a cursor; arrows (or h j k l) move it,
//! Space or Enter opens the cell, `f` flags or unflags it, `u` undoes, `q` leaves. Every move
//! is stored as soon as it is accepted. `Board` is the state machine (keys in, moves to the
//! `Session`), `draw` renders it; no terminal is needed to test either.

use arbiter_kernel::Seat;
use arbiter_minesweeper::{Minesweeper, View};
use arbiter_store::{Session, SessionError};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

pub struct Board {
    pub session: Session,
    /// The cell under the cursor: (column, row), from 0.
    pub cursor: (u8, u8),
    /// What the last key did, or why it was refused.
    pub message: String,
    pub quit: bool,
}

const PLAYER: Seat = Seat(0);

impl Board {
    pub fn new(session: Session) -> Board {
        Board { session, cursor: (0, 0), message: "Arrows move, Space opens, f flags, u undoes, q leaves.".into(), quit: false }
    }

    /// The player's view (a Minesweeper session: the caller dispatched on the game).
    pub fn view(&self) -> Option<View> {
        self.session.game_as::<Minesweeper>().map(|g| arbiter_kernel::Game::view(g, Some(PLAYER)))
    }

    fn cell(&self) -> String {
        format!("{}{}", char::from(b'a' + self.cursor.0), self.cursor.1 + 1)
    }

    pub fn key(&mut self, k: KeyEvent) -> Result<(), SessionError> {
        let Some(v) = self.view() else {
            self.quit = true;
            return Ok(());
        };
        let (w, h) = (v.width, v.height);
        let (c, r) = self.cursor;
        match k.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => self.quit = true,
            KeyCode::Left | KeyCode::Char('h') => self.cursor.0 = c.saturating_sub(1),
            KeyCode::Right | KeyCode::Char('l') => self.cursor.0 = (c + 1).min(w - 1),
            KeyCode::Up | KeyCode::Char('k') => self.cursor.1 = r.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.cursor.1 = (r + 1).min(h - 1),
            KeyCode::Char(' ') | KeyCode::Enter => self.play(&format!("open {}", self.cell()))?,
            KeyCode::Char('f') => {
                let flagged = v.board[r as usize].as_bytes().get(c as usize) == Some(&b'F');
                self.play(&format!("{} {}", if flagged { "unflag" } else { "flag" }, self.cell()))?
            }
            KeyCode::Char('u') => match self.session.undo() {
                Ok(row) => self.message = format!("Undone: {}", row.move_text),
                Err(SessionError::Rejected(m)) => self.message = m.to_string(),
                Err(e) => return Err(e),
            },
            _ => {}
        }
        Ok(())
    }

    fn play(&mut self, text: &str) -> Result<(), SessionError> {
        match self.session.play(text, None) {
            Ok((_, report)) => self.message = report.lines_for(Some(PLAYER)).collect::<Vec<_>>().join("; "),
            Err(SessionError::Rejected(m)) => self.message = m.to_string(),
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// The board, the counts, the last message and the keys.
pub fn draw(f: &mut Frame, b: &Board) {
    let Some(v) = b.view() else { return };
    let [grid, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(4)]).areas(f.area());
    let mut lines = vec![Line::from(super::column_letters(&v))];
    for (r, row) in v.board.iter().enumerate() {
        let mut spans = vec![Span::raw(format!("{:>3}", r + 1))];
        for (c, ch) in row.chars().enumerate() {
            let shown = super::shown(ch);
            let mut style = Style::new();
            if (c as u8, r as u8) == b.cursor {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::raw(" "));
            spans.push(Span::styled(shown.to_string(), style));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" Minesweeper ")), grid);
    let ended = b.session.game().outcome();
    let time = elapsed(b.session.rows(), ended.is_some(), chrono::Utc::now()).map(clock).unwrap_or_else(|| "0:00".into());
    let state = match ended {
        Some(o) => format!("Game over: {}, in {time}. q leaves.", o.text),
        None => format!("{} mines, {} flagged · time {time} · cursor on {}.", v.mines, v.flags, b.cell()),
    };
    let text = vec![Line::from(state), Line::from(b.message.clone())];
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }).block(Block::default().borders(Borders::TOP)), status);
}

/// The time played: from the first move to the last once the game is over, else to `now`;
/// none before the first move (the clock starts with it, as the classic game's does).
pub fn elapsed(rows: &[arbiter_store::EventRow], ended: bool, now: chrono::DateTime<chrono::Utc>) -> Option<chrono::Duration> {
    let at = |r: &arbiter_store::EventRow| chrono::DateTime::parse_from_rfc3339(&r.at).ok().map(|t| t.with_timezone(&chrono::Utc));
    let first = at(rows.first()?)?;
    let last = if ended { at(rows.last()?)? } else { now };
    Some((last - first).max(chrono::Duration::zero()))
}

/// `m:ss`, or `h:mm:ss` from an hour.
fn clock(d: chrono::Duration) -> String {
    let s = d.num_seconds();
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

/// Play `session` full-screen until the player leaves.
pub fn run(session: Session) -> Result<(), crate::Failure> {
    use ratatui::crossterm::event::{self, Event, KeyEventKind};
    let mut board = Board::new(session);
    let mut terminal = ratatui::try_init().map_err(|e| crate::Failure::Failed(format!("cannot use the terminal: {e}")))?;
    let result = (|| -> Result<(), crate::Failure> {
        while !board.quit {
            terminal.draw(|f| draw(f, &board)).map_err(|e| crate::Failure::Failed(format!("cannot draw: {e}")))?;
            // Twice a second without a key: the timer moves on.
            let ready = event::poll(std::time::Duration::from_millis(500))
                .map_err(|e| crate::Failure::Failed(format!("cannot read the terminal: {e}")))?;
            if !ready {
                continue;
            }
            match event::read().map_err(|e| crate::Failure::Failed(format!("cannot read the terminal: {e}")))? {
                Event::Key(k) if k.kind != KeyEventKind::Release => board.key(k)?,
                _ => {}
            }
        }
        Ok(())
    })();
    ratatui::try_restore().map_err(|e| crate::Failure::Failed(format!("cannot restore the terminal: {e}")))?;
    result?;
    match board.session.game().outcome() {
        Some(o) => say!("Game over: {}", o.text),
        None => say!("Saved; `arbiter play` with the same file resumes."),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    fn key(b: &mut Board, code: KeyCode) {
        b.key(KeyEvent::new(code, KeyModifiers::NONE)).unwrap();
    }

    fn screen(b: &Board) -> String {
        let mut t = Terminal::new(TestBackend::new(40, 16)).unwrap();
        t.draw(|f| draw(f, b)).unwrap();
        let buf = t.backend().buffer().clone();
        (0..buf.area.height).map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect::<String>()).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn the_timer_runs_from_the_first_move_and_stops_at_the_end() {
        use chrono::TimeZone;
        let row = |at: &str| arbiter_store::EventRow {
            seq: 1,
            at: at.into(),
            seat: Seat(0),
            move_text: "open a1".into(),
            move_json: String::new(),
            record: arbiter_store::Record::new(&arbiter_kernel::Report::default(), 0, 1),
        };
        let now = chrono::Utc.with_ymd_and_hms(2026, 12, 1, 10, 5, 0).unwrap();
        let rows = [row("2026-12-01T10:00:00.000Z"), row("2026-12-01T10:01:05.500Z")];
        assert_eq!(elapsed(&[], false, now), None, "no clock before the first move");
        assert_eq!(elapsed(&rows, false, now).map(clock).as_deref(), Some("5:00"), "running: to now");
        assert_eq!(elapsed(&rows, true, now).map(clock).as_deref(), Some("1:05"), "over: to the last move");
        assert_eq!(clock(chrono::Duration::seconds(3 * 3600 + 62)), "3:01:02");
    }

    #[test]
    fn keys_move_the_cursor_flag_open_and_undo() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::create(
            &dir.path().join("m.arbiter"),
            &arbiter_games::MINESWEEPER,
            &serde_json::json!({"width": 5, "height": 4, "mines": 3}),
            9,
        )
        .unwrap();
        let mut b = Board::new(s);
        let first = screen(&b);
        assert!(first.contains("a b c d e") && first.contains("3 mines, 0 flagged · time 0:00 · cursor"), "{first}");
        key(&mut b, KeyCode::Right);
        key(&mut b, KeyCode::Down);
        key(&mut b, KeyCode::Right);
        assert_eq!(b.cursor, (2, 1));
        key(&mut b, KeyCode::Char('f'));
        assert_eq!(b.view().unwrap().board[1].as_bytes()[2], b'F', "f flags c2");
        key(&mut b, KeyCode::Char('f'));
        assert_eq!(b.view().unwrap().board[1].as_bytes()[2], b'#', "f again unflags it");
        key(&mut b, KeyCode::Char('u'));
        assert_eq!(b.session.seq(), 1, "u undid the unflag");
        assert_eq!(b.view().unwrap().board[1].as_bytes()[2], b'F');
        key(&mut b, KeyCode::Char(' '));
        assert!(b.message.contains("flagged"), "a flagged cell is not opened: {}", b.message);
        key(&mut b, KeyCode::Char('f'));
        key(&mut b, KeyCode::Char(' '));
        assert_ne!(b.view().unwrap().board[1].as_bytes()[2], b'#', "space opened c2");
        key(&mut b, KeyCode::Char('u'));
        assert!(b.message.contains("revealed"), "no undo past the open that placed the mines: {}", b.message);
        // The cursor stays on the board.
        for _ in 0..10 {
            key(&mut b, KeyCode::Left);
            key(&mut b, KeyCode::Up);
        }
        assert_eq!(b.cursor, (0, 0));
        let shown = screen(&b);
        assert!(!shown.contains('*'), "no mine on the screen while playing: {shown}");
        key(&mut b, KeyCode::Char('q'));
        assert!(b.quit);
    }
}
