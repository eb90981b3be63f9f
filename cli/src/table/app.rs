//! The table's state machine: which screen is up, what has been typed, which move is
//! highlighted. Keys go in, moves go to the `Session`; nothing here draws (see `render`), so the
//! whole flow is testable without a terminal.

use crate::ts_session::{row_side, TsSession as Session};
use crate::warn;
use arbiter_kernel::search::{Agent, Plan};
use arbiter_store::SessionError;
use arbiter_twilight::{Game, Region, Side};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What fills the terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The keyboard changes hands: nothing secret is shown, only Enter goes on.
    HandOver(Side),
    /// The deciding side at the table.
    Table,
    /// A move a player would regret, waiting for `y`.
    Confirm { text: String, warnings: Vec<String> },
    /// The side that just moved reads what its move did, and may still undo it (when the
    /// rules of undo allow) before the keyboard changes hands.
    EndOfRound { side: Side, can_undo: bool },
    /// The side not deciding asks to interject (a move "at any time"): the keyboard goes to
    /// it first, nothing secret shown, only Enter goes on (Esc: back).
    InterjectHandOver(Side),
    /// The interjecting side at the keyboard, choosing among its interjections.
    Interject { side: Side, selected: usize },
    /// The computer decides for its side; the player watches the board (and may scroll the log).
    Thinking(Side),
    /// Keys and commands.
    Help,
    /// The summary of a finished game.
    GameOver,
}

/// The computer playing one side (`arbiter play --vs computer`).
pub struct Opponent {
    pub side: Side,
    pub agent: Agent,
    /// Iterations searched so far in the decision being thought about.
    pub progress: Arc<AtomicU64>,
}

impl Opponent {
    pub fn new(side: Side, agent: Agent) -> Opponent {
        Opponent { side, agent, progress: Arc::new(AtomicU64::new(0)) }
    }
    /// How far the current decision's search has come, in percent.
    pub fn percent(&self) -> u64 {
        let of = match self.agent {
            Agent::Computer(level) => u64::from(level.iterations()),
            Agent::Random | Agent::Greedy => 1,
        };
        (self.progress.load(Ordering::Relaxed) * 100 / of.max(1)).min(100)
    }
}

pub struct App {
    pub session: Session,
    /// The computer's side, if one side is the computer's.
    pub computer: Option<Opponent>,
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
    /// The map area shows the whole log instead (F2 or `log`), scrolled back this many lines.
    pub log_view: bool,
    pub log_scroll: usize,
    /// VP at each turn's end, replayed once when the game is over (`summary::vp_by_turn`).
    pub vp_chart: std::cell::OnceCell<Vec<(u8, i8)>>,
    pub quit: bool,
}

impl App {
    pub fn new(session: Session) -> App {
        // A resumed game: each side has seen the log up to its own last move, so what the
        // other side did after it is news.
        let last_own = |side: Side| session.rows().iter().rev().find(|r| row_side(r) == side).map_or(0, |r| r.seq);
        let seen = [last_own(Side::Us), last_own(Side::Ussr)];
        let mut app = App {
            computer: None,
            seen,
            news_from: 0,
            session,
            screen: Screen::Table,
            seated: None,
            input: String::new(),
            selected: 0,
            region: 0,
            message: Vec::new(),
            log_view: false,
            log_scroll: 0,
            vp_chart: std::cell::OnceCell::new(),
            quit: false,
        };
        app.settle();
        app
    }

    /// The same table with the computer playing `side`: the other player keeps the keyboard
    /// (no hand-overs) and sees only its own side.
    pub fn against(mut self, computer: Opponent) -> App {
        self.seated = Some(computer.side.opponent());
        self.computer = Some(computer);
        self.settle();
        self
    }

    pub fn game(&self) -> &Game {
        self.session.game()
    }

    /// The decision the computer must make now: its side and how (the seed drawn from the
    /// game's seed and the move's number, so a game replays the same whatever the clock).
    pub fn computer_turn(&self) -> Option<(Side, Plan)> {
        let c = self.computer.as_ref()?;
        let Screen::Thinking(side) = self.screen else { return None };
        let seed = arbiter_kernel::stable_hash(&(self.session.header().seed, self.session.seq()));
        (side == c.side).then(|| (side, Plan::new(c.agent, seed)))
    }

    /// The computer chose `text` (or could not): play it as any move is played.
    pub fn computer_moved(&mut self, chosen: Result<String, arbiter_kernel::Refusal>) -> Result<(), SessionError> {
        let Some((side, _)) = self.computer_turn() else { return Ok(()) };
        let human = side.opponent();
        match chosen.map(|text| self.session.play(&text, Some(side)).map(|(_, report)| report)) {
            Ok(Ok(report)) => {
                // Every move since the player's last, as the player may read them (a secret
                // headline stays secret), then the last log line of this one: at 80x24 the
                // status line tells what the computer did without the log.
                let done = recap(&self.session.moves_since(human));
                let mut lines = vec![format!("The computer ({side}): {done}")];
                lines.extend(report.lines_for(Some(arbiter_twilight::contract::seat(human))).last().map(String::from));
                self.message = lines;
            }
            Ok(Err(SessionError::Rejected(r))) | Err(r) => {
                // Never expected (its move is a listed one); the game goes on hot-seat.
                self.message = vec![format!("The computer could not move ({r}); both sides are yours now.")];
                self.computer = None;
            }
            Ok(Err(e)) => return Err(e),
        }
        if let Some(c) = &self.computer {
            c.progress.store(0, Ordering::Relaxed);
        }
        self.settle();
        Ok(())
    }

    /// The side whose eyes are on the screen now, if any (none during a hand-over).
    pub fn viewer(&self) -> Option<Side> {
        match self.screen {
            Screen::HandOver(_) | Screen::InterjectHandOver(_) => None,
            Screen::GameOver => None,
            Screen::Thinking(side) => Some(side.opponent()),
            Screen::EndOfRound { side, .. } | Screen::Interject { side, .. } => Some(side),
            _ => self.seated,
        }
    }

    /// The legal moves in notation, those matching what has been typed ([`matching`]), the
    /// move the typed text reads as first: what Enter plays unless another is highlighted.
    /// Only the deciding side's own moves: none while another side's eyes are on the screen
    /// (the end of a round shows the next decision to the player who just moved).
    pub fn filtered(&self) -> Vec<String> {
        let Some(d) = self.game().decision() else { return Vec::new() };
        if self.viewer() != Some(d.side) {
            return Vec::new();
        }
        if self.input.split_whitespace().next().is_some_and(|w| COMMANDS.contains(&w.to_lowercase().as_str())) {
            return Vec::new();
        }
        let listed: Vec<String> = d.moves.iter().map(|m| self.game().move_text(m)).collect();
        let reads_as = self.game().parse(&self.input).ok().filter(|m| d.moves.contains(m)).map(|m| self.game().move_text(&m));
        matching(listed, &self.input, reads_as.as_deref())
    }

    /// The moves `side` may make now although the other side decides ("at any time":
    /// cancelling the Cuban Missile Crisis), in notation.
    pub fn interjections(&self, side: Side) -> Vec<String> {
        self.game().interjections(side).iter().map(|m| self.game().move_text(m)).collect()
    }

    /// The side not deciding, if it may interject now.
    pub fn may_interject(&self) -> Option<Side> {
        let other = self.game().to_move()?.opponent();
        (!self.game().interjections(other).is_empty()).then_some(other)
    }

    /// F4: the side not deciding interjects. At the end of its own round it has the keyboard
    /// already; otherwise the keyboard goes to it first, the decider's hand hidden.
    fn ask_interjection(&mut self) {
        // Against the computer only the player's own side may interject (never the computer's:
        // its hand would show, and the player would move for it).
        let own = |side: Side| self.computer.as_ref().is_none_or(|c| c.side != side);
        let Some(side) = self.may_interject().filter(|s| own(*s)) else {
            let other = self.game().to_move().map(Side::opponent);
            self.message = vec![match other {
                Some(o) => format!("The {o} has no move it may make now while the other side decides (F4 is for \"at any time\" moves such as cancelling the Cuban Missile Crisis)."),
                None => "No decision is pending.".into(),
            }];
            return;
        };
        self.screen = match self.screen {
            Screen::EndOfRound { side: prev, .. } if prev == side => Screen::Interject { side, selected: 0 },
            _ => Screen::InterjectHandOver(side),
        };
    }

    /// Back from an interjection (made or not): the deciding side takes the keyboard again.
    fn end_interjection(&mut self) {
        // Against the computer the player keeps the keyboard.
        self.seated = self.computer.as_ref().map(|c| c.side.opponent());
        self.input.clear();
        self.selected = 0;
        self.settle();
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
        let ending = matches!(self.screen, Screen::EndOfRound { .. });
        if let Some(c) = &self.computer {
            let human = c.side.opponent();
            let was_human = matches!(self.screen, Screen::Table | Screen::Confirm { .. });
            self.screen = if side == human {
                Screen::Table
            } else if was_human && !ending && self.session.undo_check_for(Some(human)).is_ok() {
                // The player's round is over: it may read what its move did and take it back
                // before the computer answers.
                Screen::EndOfRound { side: human, can_undo: true }
            } else {
                Screen::Thinking(side)
            };
            return;
        }
        self.screen = match self.seated {
            Some(s) if s == side => Screen::Table,
            // The player who just moved reads what it did, and may take it back unless it
            // revealed something.
            Some(prev) if !ending => Screen::EndOfRound { side: prev, can_undo: self.session.undo_check_for(Some(prev)).is_ok() },
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
            Screen::HandOver(_) if k.code == KeyCode::F(4) => self.ask_interjection(),
            Screen::EndOfRound { .. } if k.code == KeyCode::F(4) => self.ask_interjection(),
            Screen::InterjectHandOver(side) => match k.code {
                KeyCode::Enter => self.screen = Screen::Interject { side, selected: 0 },
                KeyCode::Esc => self.end_interjection(),
                _ => {}
            },
            Screen::Interject { side, selected } => {
                let n = self.interjections(side).len();
                match k.code {
                    KeyCode::Up => self.screen = Screen::Interject { side, selected: selected.saturating_sub(1) },
                    KeyCode::Down => self.screen = Screen::Interject { side, selected: (selected + 1).min(n.saturating_sub(1)) },
                    KeyCode::Enter => match self.interjections(side).get(selected).cloned() {
                        Some(text) => match self.session.play(&text, Some(side)) {
                            Ok((_, report)) => {
                                // Public lines only: the deciding side takes the keyboard next.
                                self.message = report.lines_for(None).into_iter().map(String::from).collect();
                                self.seen[side.idx()] = self.session.seq();
                                self.end_interjection();
                            }
                            Err(SessionError::Rejected(m)) => {
                                self.message = vec![m.to_string()];
                                self.end_interjection();
                            }
                            Err(e) => return Err(e),
                        },
                        // Nothing left to interject (the position changed): back to the decider.
                        None => self.end_interjection(),
                    },
                    KeyCode::Esc => {
                        self.message = vec![format!("The {side} did not interject.")];
                        self.end_interjection();
                    }
                    _ => {}
                }
            }
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
            Screen::EndOfRound { side: prev, can_undo } => match k.code {
                KeyCode::Enter => {
                    self.message.clear();
                    self.log_scroll = 0;
                    self.settle();
                }
                KeyCode::PageUp => self.log_scroll += 10,
                KeyCode::PageDown => self.log_scroll = self.log_scroll.saturating_sub(10),
                KeyCode::Char('u') | KeyCode::Char('U') if can_undo => {
                    match self.session.undo_before_hand_over(prev) {
                        Ok(row) => self.message = vec![format!("Undone: {}", row.move_text)],
                        Err(SessionError::Rejected(m)) => self.message = vec![m.to_string()],
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
            Screen::Thinking(_) => match k.code {
                KeyCode::PageUp => self.log_scroll += 10,
                KeyCode::PageDown => self.log_scroll = self.log_scroll.saturating_sub(10),
                KeyCode::F(2) => self.toggle_log(),
                _ => {}
            },
            Screen::GameOver => match k.code {
                KeyCode::Enter | KeyCode::Esc | KeyCode::Char('q') => self.quit = true,
                KeyCode::PageUp => self.log_scroll += 10,
                KeyCode::PageDown => self.log_scroll = self.log_scroll.saturating_sub(10),
                _ => {}
            },
            Screen::Table => self.table_key(k, ctrl)?,
        }
        Ok(())
    }

    fn table_key(&mut self, k: KeyEvent, ctrl: bool) -> Result<(), SessionError> {
        let n = self.filtered().len();
        match k.code {
            KeyCode::Char('z') if ctrl => self.command("undo")?,
            // Alt-combinations are not text (an Esc typed just before an arrow key arrives so).
            KeyCode::Char(_) if k.modifiers.contains(KeyModifiers::ALT) => {}
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
            KeyCode::PageUp if self.log_view => self.log_scroll += 10,
            KeyCode::PageDown if self.log_view => self.log_scroll = self.log_scroll.saturating_sub(10),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(8),
            KeyCode::PageDown => self.selected = (self.selected + 8).min(n.saturating_sub(1)),
            KeyCode::F(2) => self.toggle_log(),
            KeyCode::F(4) => self.ask_interjection(),
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
                Err(SessionError::Rejected(m)) => self.message = vec![m.to_string()],
                Err(e) => return Err(e),
            },
            "help" => self.screen = Screen::Help,
            "log" => self.toggle_log(),
            _ => self.quit = true,
        }
        Ok(())
    }

    fn toggle_log(&mut self) {
        self.log_view = !self.log_view;
        self.log_scroll = 0;
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
        let canonical = self.game().parse(text).ok().map(|m| self.game().move_text(&m));
        match self.session.play(text, side) {
            Ok((_, report)) => {
                self.message = report.lines_for(side.map(arbiter_twilight::contract::seat)).map(String::from).collect();
                if let Some(s) = side {
                    self.seen[s.idx()] = self.session.seq();
                }
                self.input.clear();
                self.selected = 0;
                self.settle();
                // The same move highlighted again where it is still open (another Influence
                // in the same country), else the first.
                if let Some(i) = canonical.and_then(|t| self.filtered().iter().position(|m| *m == t)) {
                    self.selected = i;
                }
            }
            Err(SessionError::Rejected(m)) => self.message = vec![m.to_string()],
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// Words typed at the prompt that are commands, not moves.
pub const COMMANDS: [&str; 5] = ["undo", "help", "log", "quit", "exit"];

/// The moves of `listed` that match `typed`: every typed word occurs in the move
/// (case-insensitive), so `coup ira` finds `coup Iran` and `coup Iraq`. Ranked: first the move
/// the typed text reads as (`reads_as`: its notation, exactly or by unambiguous prefixes), then
/// those whose words occur in the order typed, then the others, each in the listing's order;
/// so `play Fidel event then ops` typed in full is never played as `play Fidel ops then event`.
pub fn matching(listed: Vec<String>, typed: &str, reads_as: Option<&str>) -> Vec<String> {
    let words: Vec<String> = typed.split_whitespace().map(str::to_lowercase).collect();
    let in_order = |t: &str| {
        let mut rest = t;
        words.iter().all(|w| match rest.find(w.as_str()) {
            Some(i) => {
                rest = &rest[i + w.len()..];
                true
            }
            None => false,
        })
    };
    let mut hits: Vec<(u8, String)> = listed
        .into_iter()
        .filter_map(|t| {
            let low = t.to_lowercase();
            if !words.iter().all(|w| low.contains(w.as_str())) {
                return None;
            }
            let rank = if Some(t.as_str()) == reads_as {
                0
            } else if in_order(&low) {
                1
            } else {
                2
            };
            Some((rank, t))
        })
        .collect();
    hits.sort_by_key(|(rank, _)| *rank);
    hits.into_iter().map(|(_, t)| t).collect()
}

/// Moves retold in short: a run of Influence placements as one ("placed 6 Influence: Poland 4,
/// East Germany 2"), each other move as written, in order, `; ` between.
pub fn recap(moves: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut run: Vec<(String, usize)> = Vec::new();
    let flush = |run: &mut Vec<(String, usize)>, parts: &mut Vec<String>| {
        if run.is_empty() {
            return;
        }
        let n: usize = run.iter().map(|(_, k)| k).sum();
        let each: Vec<String> = run.iter().map(|(c, k)| format!("{c} {k}")).collect();
        parts.push(format!("placed {n} Influence: {}", each.join(", ")));
        run.clear();
    };
    for m in moves {
        match m.strip_prefix("influence ") {
            Some(country) => {
                let country = country.trim_matches('"').to_string();
                match run.iter_mut().find(|(c, _)| *c == country) {
                    Some((_, k)) => *k += 1,
                    None => run.push((country, 1)),
                }
            }
            None => {
                flush(&mut run, &mut parts);
                parts.push(m.clone());
            }
        }
    }
    flush(&mut run, &mut parts);
    parts.join("; ")
}
