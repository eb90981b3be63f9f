//! The table's state machine: which screen is up, what has been typed, which move is
//! highlighted. Keys go in, moves go to the `Session`; nothing here draws (see `render`), so the
//! whole flow is testable without a terminal.

use crate::warn;
use arbiter_engine::{Game, Region, Side};
use arbiter_store::{Session, SessionError};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What fills the terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The keyboard changes hands: nothing secret is shown, only Enter goes on.
    HandOver(Side),
    /// The deciding side at the table.
    Table,
    /// A move a player would regret, waiting for `y`.
    Confirm { text: String, warnings: Vec<String> },
    /// The side that just moved may still undo before the keyboard changes hands.
    EndOfRound(Side),
    /// Keys and commands.
    Help,
    /// The summary of a finished game.
    GameOver,
}

pub struct App {
    pub session: Session,
    pub screen: Screen,
    /// The side at the keyboard (who took it at the last hand-over).
    pub seated: Option<Side>,
    /// The last move each side has seen the log of: [US, USSR]. Lines after it are news.
    pub seen: [u64; 2],
    /// `seen` as it was when the seated side took the keyboard: the recap starts there.
    pub news_from: u64,
    /// What has been typed at the prompt; it filters the legal moves.
    pub input: String,
    /// The highlighted line of the filtered moves.
    pub selected: usize,
    /// The region the map starts at (Left/Right).
    pub region: usize,
    /// The result of the last command: the move's log or the reason it was refused.
    pub message: Vec<String>,
    pub quit: bool,
}

impl App {
    pub fn new(session: Session) -> App {
        let seq = session.seq();
        let mut app = App {
            session,
            screen: Screen::Table,
            seated: None,
            seen: [seq; 2],
            news_from: seq,
            input: String::new(),
            selected: 0,
            region: 0,
            message: Vec::new(),
            quit: false,
        };
        app.settle();
        app
    }

    pub fn game(&self) -> &Game {
        self.session.game()
    }

    /// The side whose eyes are on the screen now, if any (none during a hand-over).
    pub fn viewer(&self) -> Option<Side> {
        match self.screen {
            Screen::HandOver(_) => None,
            Screen::GameOver => None,
            Screen::EndOfRound(s) => Some(s),
            _ => self.seated,
        }
    }

    /// The legal moves in notation, those matching what has been typed: every typed word must
    /// occur in the move (case-insensitive), so `coup ira` finds `coup Iran` and `coup Iraq`.
    pub fn filtered(&self) -> Vec<String> {
        let Some(d) = self.game().decision() else { return Vec::new() };
        let words: Vec<String> = self.input.split_whitespace().map(str::to_lowercase).collect();
        if words.first().is_some_and(|w| COMMANDS.contains(&w.as_str())) {
            return Vec::new();
        }
        d.moves
            .iter()
            .map(|m| self.game().move_text(m))
            .filter(|t| {
                let t = t.to_lowercase();
                words.iter().all(|w| t.contains(w.as_str()))
            })
            .collect()
    }

    /// The highlighted move, if any.
    pub fn highlighted(&self) -> Option<String> {
        self.filtered().into_iter().nth(self.selected)
    }

    /// After every change: end of game, end of round or hand-over when the decider changes.
    fn settle(&mut self) {
        if self.game().outcome().is_some() {
            self.screen = Screen::GameOver;
            return;
        }
        let Some(side) = self.game().to_move() else {
            self.screen = Screen::GameOver;
            return;
        };
        self.screen = match self.seated {
            Some(s) if s == side => Screen::Table,
            // The player who just moved may take it back, unless it revealed something.
            Some(prev) if self.session.undo_check_for(Some(prev)).is_ok() && self.screen != Screen::EndOfRound(prev) => {
                Screen::EndOfRound(prev)
            }
            _ => Screen::HandOver(side),
        };
    }

    pub fn key(&mut self, k: KeyEvent) -> Result<(), SessionError> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(k.code, KeyCode::Char('c') | KeyCode::Char('q')) {
            self.quit = true;
            return Ok(());
        }
        match self.screen.clone() {
            Screen::HandOver(side) => {
                // Only Enter takes the keyboard; anything typed is discarded, never run.
                if k.code == KeyCode::Enter {
                    self.seated = Some(side);
                    self.news_from = self.seen[side.idx()];
                    self.seen[side.idx()] = self.session.seq();
                    self.input.clear();
                    self.selected = 0;
                    self.message.clear();
                    self.screen = Screen::Table;
                }
            }
            Screen::EndOfRound(prev) => match k.code {
                KeyCode::Enter => {
                    self.message.clear();
                    self.settle();
                }
                KeyCode::Char('u') | KeyCode::Char('U') => {
                    match self.session.undo_before_hand_over(prev) {
                        Ok(row) => self.message = vec![format!("Undone: {}", row.move_text)],
                        Err(SessionError::Rejected(m)) => self.message = vec![m],
                        Err(e) => return Err(e),
                    }
                    self.screen = Screen::Table;
                    self.settle();
                }
                _ => {}
            },
            Screen::Confirm { text, .. } => {
                if k.code == KeyCode::Char('y') {
                    self.play(&text)?;
                } else {
                    self.message = vec!["Not played.".into()];
                    self.screen = Screen::Table;
                }
            }
            Screen::Help => self.screen = Screen::Table,
            Screen::GameOver => {
                if matches!(k.code, KeyCode::Enter | KeyCode::Esc | KeyCode::Char('q')) {
                    self.quit = true;
                }
            }
            Screen::Table => self.table_key(k, ctrl)?,
        }
        Ok(())
    }

    fn table_key(&mut self, k: KeyEvent, ctrl: bool) -> Result<(), SessionError> {
        let n = self.filtered().len();
        match k.code {
            KeyCode::Char('z') if ctrl => self.command("undo")?,
            KeyCode::Char(c) if !ctrl => {
                self.input.push(c);
                self.selected = 0;
            }
            KeyCode::Backspace => {
                self.input.pop();
                self.selected = 0;
            }
            KeyCode::Esc => {
                self.input.clear();
                self.selected = 0;
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(n.saturating_sub(1)),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(8),
            KeyCode::PageDown => self.selected = (self.selected + 8).min(n.saturating_sub(1)),
            KeyCode::Left => self.region = (self.region + Region::ALL.len() - 1) % Region::ALL.len(),
            KeyCode::Right => self.region = (self.region + 1) % Region::ALL.len(),
            KeyCode::F(1) => self.screen = Screen::Help,
            KeyCode::Tab => {
                if let Some(m) = self.highlighted() {
                    self.input = m;
                    self.selected = 0;
                }
            }
            KeyCode::Enter => {
                let typed = self.input.trim().to_string();
                let word = typed.split_whitespace().next().unwrap_or("").to_lowercase();
                if COMMANDS.contains(&word.as_str()) {
                    self.command(&word)?;
                } else if let Some(m) = self.highlighted() {
                    self.propose(&m)?;
                } else if !typed.is_empty() {
                    // Not among the legal moves: let the referee say why.
                    self.propose(&typed)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn command(&mut self, word: &str) -> Result<(), SessionError> {
        self.input.clear();
        self.selected = 0;
        match word {
            "undo" => match self.session.undo() {
                Ok(row) => self.message = vec![format!("Undone: {}", row.move_text)],
                Err(SessionError::Rejected(m)) => self.message = vec![m],
                Err(e) => return Err(e),
            },
            "help" => self.screen = Screen::Help,
            _ => self.quit = true,
        }
        Ok(())
    }

    /// A move chosen: warned of first if a player would regret it, else played.
    fn propose(&mut self, text: &str) -> Result<(), SessionError> {
        let Some(side) = self.game().to_move() else { return Ok(()) };
        if let Ok(m) = self.game().parse(text) {
            let warnings = warn::warnings(self.game(), side, &m);
            if !warnings.is_empty() {
                self.screen = Screen::Confirm { text: self.game().move_text(&m), warnings };
                return Ok(());
            }
        }
        self.play(text)
    }

    fn play(&mut self, text: &str) -> Result<(), SessionError> {
        let side = self.seated;
        self.screen = Screen::Table;
        match self.session.play(text, side) {
            Ok((_, report)) => {
                self.message = report.lines_for(side).into_iter().map(String::from).collect();
                if let Some(s) = side {
                    self.seen[s.idx()] = self.session.seq();
                }
                self.input.clear();
                self.selected = 0;
                self.settle();
            }
            Err(SessionError::Rejected(m)) => self.message = vec![m],
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// Words typed at the prompt that are commands, not moves.
pub const COMMANDS: [&str; 4] = ["undo", "help", "quit", "exit"];
