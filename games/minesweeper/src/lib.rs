//! Minesweeper on Arbiter's kernel: the design's example of a second game, and the worked
//! example of "how to add a game" (ARCHITECTURE.md).
//!
//! Rules (as in the classic game):
//! - A board W×H with M mines; cells named by column letter and row number, `a1` at the top
//!   left. Moves: `open c4`, `flag c4`, `unflag c4`.
//! - The first `open` is always safe: the mines are placed from the recorded random source
//!   only then, never on that cell.
//! - Opening a cell shows how many of its (up to 8) neighbours are mines; opening a 0 opens its
//!   neighbours too, and so on (a cascade; flagged cells are left closed).
//! - Opening a mine loses at once; opening the last safe cell wins. At the end every mine is
//!   shown.
//!
//! Secrecy: the player's view and log hold only what is open; where the mines are is recorded
//! (the move's random outcomes, for replay) but never shown before the end.
//!
//! # How the computer plays
//!
//! Through the kernel's search hooks ([`arbiter_kernel::search`]), from what the player sees:
//! the open cells' numbers, the board's size and the mine count. Flags are the player's notes,
//! not knowledge: the computer reads a flagged cell as closed (and lifts a flag that may hide a
//! safe cell before it guesses).
//!
//! - Its first open is the corner a1 (safe by the rules; a corner is likeliest to be a 0).
//! - It works out what the numbers imply: first rule by rule (a number that has its mines, or
//!   needs every closed cell around it; two numbers whose closed cells nest), then exactly:
//!   every placement of mines on the frontier (the closed cells next to a number) that fits
//!   the numbers, group by group, each weighed by the ways to put the remaining mines in the
//!   other closed cells, C(interior cells, mines left). A group is counted cell by cell along
//!   the frontier (dynamic programming over the cells whose numbers are still open), not
//!   listed, so a long frontier costs little. That gives each cell's chance of a mine.
//! - A cell that is certainly safe is opened at once (no search: one move). Otherwise the
//!   search weighs the safest guesses only (at most six of equal, lowest chance): each of its
//!   iterations (10,000 at the default level) opens one in a sample of the mines; a mine
//!   scores 0, else the position after every risk-free open that follows scores 0.1 + 0.9 ×
//!   the fraction of safe cells open (1 for a win). It plays the move searched most: among
//!   equally safe cells, the one that opens up most. (Weighing a riskier cell for what it
//!   opens up lost games: the chances decide, the search only breaks their ties.)
//!
//! The samples ([`arbiter_kernel::Searchable::determinize`]) are uniform among the placements that
//! fit the numbers: a frontier total drawn by its weight, each group's placement among those
//! with its share, the rest of the mines uniformly elsewhere. Before the first open the sample
//! stays unplaced. Its random source is always drawn afresh, never the game's.
//!
//! Limits: counting gives up on a thick frontier (more than 4,096 states in a layer, or 800
//! cells); in 130 games on 16×30 and 26×50 boards it never did. Then the group's placements are
//! listed one by one, up to 400,000 search steps or 50,000 placements; cut short there, chances
//! are estimated from the placements found (what is certain then comes from the rules alone,
//! which are never wrong) and each sample is moved on by a block Gibbs Markov chain (blocks of
//! 14 frontier cells with the interior, redrawn exactly given the rest): its stationary
//! distribution is the uniform one, but a finite run from one start, with blocks smaller than
//! a group, is near uniform, not exactly.
//!
//! Strength, measured with `examples/strength.rs` (boards from seeds 1 on): at the default
//! level, 92 % of 1,000 boards 9×9 with 10 mines won and 79 % of 300 boards 16×16 with 40, a
//! guess taking 1 to 2 s (most moves are certain and take milliseconds); at level 1, 91 % and
//! 78 %, and 39 % of 16×30 boards with 99 mines. The search adds little to the chances: it
//! only chooses among equally safe cells.

mod cell;
mod computer;
mod encode;
pub mod fixture;
mod options;

pub use cell::Cell;
pub use options::Options;

use arbiter_kernel::kind::{Capabilities, Information, OptionSpec, OptionType, SeatRange, Shape};
use arbiter_kernel::{Decision, GameKind, Match, Outcome, Randomness, Refusal, Report, Seat, Viewer};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The rule every refusal cites.
const RULES: &str = "Minesweeper rules";

/// A move of the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Move {
    Open(Cell),
    Flag(Cell),
    Unflag(Cell),
}

/// What the player knows of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Square {
    Closed,
    Flagged,
    /// Open, with the number of mines among its neighbours.
    Open(u8),
}

/// Where the mines are: nowhere yet until the first open places them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Minefield {
    Unplaced,
    /// One flag per cell, row by row.
    Placed(Vec<bool>),
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Every safe cell is open.
    Won,
    /// The player opened the mine at this cell.
    Lost(Cell),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Minesweeper {
    options: Options,
    squares: Vec<Square>,
    mines: Minefield,
    rng: Randomness,
    end: Option<End>,
    /// In a computer's sample only: what the rules proved from the view it was drawn for (not
    /// part of the game's state: equal and hashed as nothing).
    hint: computer::Hint,
}

/// What the player (or an observer: the same) sees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    pub width: u8,
    pub height: u8,
    pub mines: u16,
    pub flags: usize,
    /// One string per row, top first: `#` closed, `F` flagged, `0`–`8` open; once the game is
    /// over, `*` for a mine and `X` for the mine that was opened.
    pub board: Vec<String>,
    /// `null` while playing, else `won` or `lost`.
    pub outcome: Option<&'static str>,
    pub to_move: Option<&'static str>,
    pub prompt: Option<String>,
}

impl Minesweeper {
    /// A new game whose mines will be placed by `rng` at the first open.
    pub fn new(options: Options, rng: Randomness) -> Result<Minesweeper, Refusal> {
        options.check()?;
        Ok(Minesweeper {
            options,
            squares: vec![Square::Closed; options.cells()],
            mines: Minefield::Unplaced,
            rng,
            end: None,
            hint: computer::Hint::default(),
        })
    }

    /// A game with its mines already placed (fixtures, tests): the first open is then not
    /// protected.
    pub fn with_mines(width: u8, height: u8, mines: &[Cell]) -> Result<Minesweeper, Refusal> {
        let count = u16::try_from(mines.len()).map_err(|_| Refusal::new("too many mines", RULES))?;
        let options = Options { width, height, mines: count };
        let mut g = Minesweeper::new(options, Randomness::scripted([]))?;
        let mut field = vec![false; options.cells()];
        for c in mines {
            let i = g.index(*c).ok_or_else(|| Refusal::new(format!("{} is not on a {width}×{height} board", c.name()), RULES))?;
            if field[i] {
                return Err(Refusal::new(format!("{} holds two mines", c.name()), RULES));
            }
            field[i] = true;
        }
        g.mines = Minefield::Placed(field);
        Ok(g)
    }

    pub fn options(&self) -> Options {
        self.options
    }
    pub fn end(&self) -> Option<End> {
        self.end
    }

    fn index(&self, c: Cell) -> Option<usize> {
        (c.col < self.options.width && c.row < self.options.height).then(|| c.row as usize * self.options.width as usize + c.col as usize)
    }
    fn cell(&self, i: usize) -> Cell {
        let w = self.options.width as usize;
        Cell { col: (i % w) as u8, row: (i / w) as u8 }
    }
    fn neighbours(&self, c: Cell) -> impl Iterator<Item = usize> + '_ {
        (-1i16..=1).flat_map(move |dr| (-1i16..=1).map(move |dc| (dr, dc))).filter_map(move |(dr, dc)| {
            if (dr, dc) == (0, 0) {
                return None;
            }
            let (r, k) = (c.row as i16 + dr, c.col as i16 + dc);
            let cell = Cell { col: u8::try_from(k).ok()?, row: u8::try_from(r).ok()? };
            self.index(cell)
        })
    }

    /// Place the mines anywhere but `first` (the first open is always safe).
    fn place_mines(&mut self, first: usize, report: &mut Report) -> Result<(), Refusal> {
        let mut candidates: Vec<usize> = (0..self.squares.len()).filter(|i| *i != first).collect();
        let mut field = vec![false; self.squares.len()];
        for _ in 0..self.options.mines {
            let k = self.rng.pick(candidates.len()).map_err(|e| Refusal::new(e.to_string(), "scripted randomness"))?;
            field[candidates.swap_remove(k)] = true;
        }
        let placed: Vec<String> = (0..field.len()).filter(|i| field[*i]).map(|i| self.cell(i).name()).collect();
        report.drew(&serde_json::json!({ "mines": placed }));
        self.mines = Minefield::Placed(field);
        Ok(())
    }

    fn is_mine(&self, i: usize) -> bool {
        match &self.mines {
            Minefield::Unplaced => false,
            Minefield::Placed(f) => f[i],
        }
    }

    fn count(&self, c: Cell) -> u8 {
        self.neighbours(c).filter(|i| self.is_mine(*i)).count() as u8
    }

    /// Why `m` is refused now, if it is.
    fn check(&self, m: &Move) -> Result<(), Refusal> {
        if let Some(end) = self.end {
            let how = match end {
                End::Won => "won",
                End::Lost(_) => "lost",
            };
            return Err(Refusal::new(format!("the game is over ({how}): no more moves"), RULES));
        }
        let (Move::Open(c) | Move::Flag(c) | Move::Unflag(c)) = *m;
        let Some(i) = self.index(c) else {
            let (w, h) = (self.options.width, self.options.height);
            let last = Cell { col: w - 1, row: h - 1 };
            return Err(Refusal::new(format!("{} is not on the board (a1 to {})", c.name(), last.name()), RULES));
        };
        let name = c.name();
        match (m, self.squares[i]) {
            (Move::Open(_) | Move::Flag(_), Square::Closed) | (Move::Unflag(_), Square::Flagged) => Ok(()),
            (Move::Open(_), Square::Flagged) => Err(Refusal::new(format!("{name} is flagged: `unflag {name}` first"), RULES)),
            (Move::Flag(_), Square::Flagged) => Err(Refusal::new(format!("{name} is flagged already"), RULES)),
            (_, Square::Open(_)) => Err(Refusal::new(format!("{name} is open already: choose a closed cell"), RULES)),
            (Move::Unflag(_), Square::Closed) => Err(Refusal::new(format!("{name} is not flagged: `flag {name}` marks it"), RULES)),
        }
    }

    /// Open `first` and, from every 0 reached, its closed neighbours. How many cells opened.
    fn cascade(&mut self, first: usize) -> usize {
        let mut queue = VecDeque::from([first]);
        let mut opened = 0;
        while let Some(i) = queue.pop_front() {
            if self.squares[i] != Square::Closed {
                continue;
            }
            let n = self.count(self.cell(i));
            self.squares[i] = Square::Open(n);
            opened += 1;
            if n == 0 {
                queue.extend(self.neighbours(self.cell(i)).filter(|j| self.squares[*j] == Square::Closed));
            }
        }
        opened
    }

    fn safe_cells_left(&self) -> usize {
        (0..self.squares.len()).filter(|i| !self.is_mine(*i) && !matches!(self.squares[*i], Square::Open(_))).count()
    }

    /// Apply a checked move.
    fn apply(&mut self, m: Move, report: &mut Report) -> Result<(), Refusal> {
        match m {
            Move::Flag(c) => {
                let i = self.index(c).expect("checked");
                self.squares[i] = Square::Flagged;
                report.public(format!("flag {}", c.name()));
            }
            Move::Unflag(c) => {
                let i = self.index(c).expect("checked");
                self.squares[i] = Square::Closed;
                report.public(format!("unflag {}", c.name()));
            }
            Move::Open(c) => {
                let i = self.index(c).expect("checked");
                if self.mines == Minefield::Unplaced {
                    self.place_mines(i, report)?;
                    report.public(format!("The {} mines are placed, none at {} (the first open is safe)", self.options.mines, c.name()));
                }
                report.revealed = true;
                if self.is_mine(i) {
                    self.end = Some(End::Lost(c));
                    report.public(format!("open {}: a mine! The game is lost; every mine is shown", c.name()));
                    return Ok(());
                }
                let opened = self.cascade(i);
                let Square::Open(n) = self.squares[i] else { unreachable!("just opened") };
                if opened > 1 {
                    report.public(format!("open {}: {n}, and {} more cells open around it", c.name(), opened - 1));
                } else {
                    report.public(format!("open {}: {n}", c.name()));
                }
                if self.safe_cells_left() == 0 {
                    self.end = Some(End::Won);
                    report.public("Every safe cell is open: the game is won");
                }
            }
        }
        Ok(())
    }

    fn board(&self) -> Vec<String> {
        let w = self.options.width as usize;
        self.squares
            .chunks(w)
            .enumerate()
            .map(|(r, row)| {
                row.iter()
                    .enumerate()
                    .map(|(k, s)| {
                        let i = r * w + k;
                        match (self.end, *s) {
                            (Some(End::Lost(c)), _) if self.index(c) == Some(i) => 'X',
                            // A mine flagged rightly stays a flag when the game ends.
                            (Some(_), Square::Flagged) if self.is_mine(i) => 'F',
                            (Some(_), _) if self.is_mine(i) => '*',
                            (_, Square::Closed) => '#',
                            (_, Square::Flagged) => 'F',
                            (_, Square::Open(n)) => char::from(b'0' + n),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn flags(&self) -> usize {
        self.squares.iter().filter(|s| **s == Square::Flagged).count()
    }
}

impl arbiter_kernel::Game for Minesweeper {
    type Move = Move;
    type View = View;

    fn seats(&self) -> Vec<String> {
        vec!["Player".into()]
    }
    fn decision(&self) -> Option<Decision> {
        if self.end.is_some() {
            return None;
        }
        let o = self.options;
        let prompt = format!("open, flag or unflag a cell ({}×{}, {} mines, {} flagged)", o.width, o.height, o.mines, self.flags());
        Some(Decision::turn(Seat(0), prompt))
    }
    fn legal_moves(&self) -> Vec<Move> {
        if self.end.is_some() {
            return Vec::new();
        }
        let mut v = Vec::new();
        for (i, s) in self.squares.iter().enumerate() {
            let c = self.cell(i);
            match s {
                Square::Closed => v.extend([Move::Open(c), Move::Flag(c)]),
                Square::Flagged => v.push(Move::Unflag(c)),
                Square::Open(_) => {}
            }
        }
        v
    }
    fn play_as(&mut self, seat: Seat, m: &Move) -> Result<Report, Refusal> {
        if seat != Seat(0) {
            return Err(Refusal::new("Minesweeper has one player: seat 0", RULES));
        }
        self.check(m)?;
        // Applied to a copy, kept only on success (scripted randomness may run out).
        let mut next = self.clone();
        let mut report = Report::default();
        next.apply(*m, &mut report)?;
        *self = next;
        Ok(report)
    }
    fn view(&self, _viewer: Viewer) -> View {
        let d = arbiter_kernel::Game::decision(self);
        View {
            width: self.options.width,
            height: self.options.height,
            mines: self.options.mines,
            flags: self.flags(),
            board: self.board(),
            outcome: self.end.map(|e| match e {
                End::Won => "won",
                End::Lost(_) => "lost",
            }),
            to_move: d.as_ref().map(|_| "player"),
            prompt: d.map(|d| d.first().prompt.clone()),
        }
    }
    fn state_hash(&self) -> u64 {
        arbiter_kernel::stable_hash(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        self.end.map(|e| match e {
            End::Won => Outcome::won_by(&[Seat(0)], 1, "won", "every safe cell is open: the player wins"),
            End::Lost(c) => Outcome::won_by(&[], 1, "lost", format!("a mine at {}: the player loses", c.name())),
        })
    }
    fn move_text(&self, m: &Move) -> String {
        match m {
            Move::Open(c) => format!("open {}", c.name()),
            Move::Flag(c) => format!("flag {}", c.name()),
            Move::Unflag(c) => format!("unflag {}", c.name()),
        }
    }
    fn parse_move(&self, text: &str) -> Result<Move, Refusal> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let usage =
            "a move is `open CELL`, `flag CELL` or `unflag CELL`, a cell such as c4 (column letter, row number, a1 at the top left)";
        let [verb, cell] = words[..] else {
            return Err(Refusal::new(format!("cannot read {:?}: {usage}", arbiter_kernel::echo(text)), "notation"));
        };
        let c =
            Cell::parse(cell).map_err(|why| Refusal::new(format!("cannot read {:?}: {why}", arbiter_kernel::echo(cell)), "notation"))?;
        match verb.to_ascii_lowercase().as_str() {
            "open" => Ok(Move::Open(c)),
            "flag" => Ok(Move::Flag(c)),
            "unflag" => Ok(Move::Unflag(c)),
            other => Err(Refusal::new(format!("no move {other:?}: {usage}"), "notation")),
        }
    }

    // The computer opponent: see "How the computer plays" above, and computer.rs.

    // Learning: see encode.rs.
}

impl arbiter_kernel::Searchable for Minesweeper {
    /// The mines drawn uniformly among the placements that fit every number shown (flags
    /// ignored); before the first open, still unplaced. The sample's random source is drawn
    /// from `rng`, never the game's.
    fn determinize(&self, _seat: Seat, rng: &mut Randomness) -> Option<Minesweeper> {
        self.sample(rng)
    }
    /// Only opens (and the lifting of a flag that may hide a safe cell): a certainly safe cell
    /// alone when there is one, else the safest guesses, safest first.
    fn search_moves(&self) -> Vec<Move> {
        self.computer_moves()
    }
    /// The first of the search moves: the certainly safe cell, or the safest guess.
    fn playout_move(&self, _moves: &[Move], _rng: &mut Randomness) -> usize {
        0
    }
    /// No playout: a move's result is its outcome, or the evaluation of where it leads.
    fn playout_depth(&self) -> Option<u32> {
        Some(0)
    }
    /// Every cell the numbers alone prove safe opened (again and again), then 1 for a win,
    /// else 0.1 + 0.9 × the fraction of the safe cells open.
    fn evaluate(&self, _seat: Seat) -> f64 {
        self.judge()
    }
}

impl arbiter_kernel::Encodable for Minesweeper {
    fn encoding(&self) -> Option<arbiter_kernel::learn::Encoding> {
        Some(Minesweeper::encoding(self))
    }
    fn action_id(&self, m: &Move) -> Option<u32> {
        Minesweeper::action_id(self, m)
    }
    fn move_of(&self, id: u32) -> Option<Move> {
        Minesweeper::move_of(self, id)
    }
    fn frame(&self) -> Option<arbiter_kernel::learn::Frame> {
        Minesweeper::frame(self)
    }
    fn observation_len(&self) -> usize {
        encode::PLANES * self.squares.len()
    }
    fn observe(&self, seat: Seat, out: &mut [f32]) {
        if seat == Seat(0) {
            Minesweeper::observe(self, out)
        } else {
            out.fill(0.0)
        }
    }
}

/// Minesweeper as a kind of game a host offers.
pub struct Kind;

/// The rules this build implements.
pub const RULES_VERSION: &str = "minesweeper-2026.11.1";

impl GameKind for Kind {
    fn id(&self) -> &'static str {
        "minesweeper"
    }
    fn title(&self) -> &'static str {
        "Minesweeper"
    }
    fn rules_version(&self) -> &'static str {
        RULES_VERSION
    }
    fn shape(&self) -> Shape {
        let d = Options::default();
        let int =
            |key, min, max, default: u16, help| OptionSpec { key, kind: OptionType::Integer { min, max }, default: default.into(), help };
        Shape {
            seats: SeatRange::exactly(1),
            options: vec![
                int("width", 2, 26, d.width.into(), "columns (a to z)"),
                int("height", 2, 50, d.height.into(), "rows"),
                int("mines", 1, 1299, d.mines, "mines (fewer than the cells)"),
                OptionSpec {
                    key: "preset",
                    kind: OptionType::Choice { choices: &options::PRESET_NAMES },
                    default: serde_json::Value::Null,
                    help: "a classic board: its width, height and mines (given ones still change it)",
                },
            ],
            information: Information::Imperfect,
            capabilities: Capabilities { computer: true, encoding: true, clock: false },
        }
    }
    /// A preset resolved into its numbers (a saved game records the board, not its name).
    fn complete_options(&self, given: &serde_json::Value) -> Result<serde_json::Value, Refusal> {
        let o = Options::from_json(given)?;
        serde_json::to_value(o).map_err(|e| Refusal::new(format!("bad options: {e}"), "game options"))
    }
    fn create(&self, options: &serde_json::Value, seed: u64) -> Result<(Box<dyn Match>, Report), Refusal> {
        let o = Options::from_json(options)?;
        let g = Minesweeper::new(o, Randomness::seeded(seed))?;
        let mut report = Report::default();
        report.public(format!("New game of Minesweeper: {}×{}, {} mines", o.width, o.height, o.mines));
        Ok((Box::new(g), report))
    }
}
