//! `arbiter`: hot-seat play in a terminal, and scripting commands over saved games, for every
//! game this build offers (`arbiter_games::catalogue`): Twilight Struggle (the default) and
//! Minesweeper.

#[macro_use]
mod out;
use arbiter_kernel::search::{Agent, Level};
mod bench;
mod board;
mod hotseat;
mod input;
mod minefield;
mod odds;
mod play;
mod table;
mod transfer;
mod ts_session;
mod warn;

use arbiter_games::catalogue;
use arbiter_kernel::{Match, Seat, Viewer};
use arbiter_store::{EventStore, Replay, Session, SessionError, SqliteStore};
use arbiter_twilight::Options;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc for the whole process (see cli/Cargo.toml: small, short-lived allocations at every
/// decision of a playout, a search or a served game).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "arbiter", version, about = "Arbiter: a rules-enforcing referee for board games: Twilight Struggle (Deluxe), Minesweeper")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a saved game (a SQLite file).
    New {
        file: PathBuf,
        /// The game: twilight-struggle (the default), minesweeper or mafia (`arbiter games`
        /// lists each with its seats and options).
        #[arg(long, default_value = "twilight-struggle")]
        game: String,
        /// Seed of the game's randomness (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// The number of seats, for a game whose number varies (mafia: 5 to 15).
        #[arg(long)]
        seats: Option<u8>,
        /// An option of the game, KEY=VALUE (repeatable; `arbiter games` lists each game's:
        /// `optional_cards=true`, `us_bonus=0`; `preset=expert`, `width=16`, `mines=40`).
        #[arg(long = "option", value_name = "KEY=VALUE")]
        options: Vec<String>,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Play hot-seat: the players share this terminal. Without FILE, uses the default save file
    /// and resumes it if it exists. Full-screen on a terminal; one line at a time otherwise.
    Play {
        file: Option<PathBuf>,
        /// One line at a time even on a terminal (as for scripts and pipes).
        #[arg(long)]
        lines: bool,
        /// The game of a new save file: twilight-struggle (the default), minesweeper or mafia.
        #[arg(long)]
        game: Option<String>,
        /// Play against the computer: `computer` (the search; see --level), `greedy` or
        /// `random`. Give it again when you resume the game.
        #[arg(long)]
        vs: Option<String>,
        /// Your seat against the computer (`us` or `ussr`, `player-3`…; the first seat by
        /// default): the computer plays every other seat.
        #[arg(long = "as")]
        as_seat: Option<String>,
        /// The computer's level, 1 (quick) to 5 (slow); 3 by default.
        #[arg(long)]
        level: Option<String>,
    },
    /// The games this build offers: each with its seats, options, information and what it
    /// offers (a computer opponent, an encoding for learning, a clock).
    Games {
        #[arg(long)]
        json: bool,
    },
    /// Who decides now, the prompt, and every legal move (one canonical move per line).
    Moves {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// The moves of this seat (its turn, or its part of a simultaneous step); without it,
        /// the seat deciding first's. No other seat's moves or prompt are shown (they may tell
        /// its secrets: a Mafia player's role).
        #[arg(long = "as")]
        as_side: Option<String>,
    },
    /// Apply moves in order as whoever is to decide.
    Move {
        file: PathBuf,
        #[arg(required = true)]
        moves: Vec<String>,
        /// Move as this seat (`us`, `ussr`; `player`): its decision's moves, or, while another
        /// seat decides, an interjection (a move allowed "at any time", e.g. cancelling the
        /// Cuban Missile Crisis).
        #[arg(long = "as")]
        as_side: Option<String>,
    },
    /// Undo the last move of the side to move, where the rules of undo allow it.
    Undo {
        file: PathBuf,
        /// Undo as this seat: while another seat decides, its own choice at a simultaneous step
        /// that has not resolved (taken back though other seats chose after it).
        #[arg(long = "as")]
        as_side: Option<String>,
    },
    /// The state as one seat (`us`, `ussr`; `player`) or an observer sees it.
    State {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        #[arg(long = "as", default_value = "observer")]
        viewer: String,
    },
    /// The human-readable log, as one seat, an observer, or `all` (every seat's lines).
    Log {
        file: PathBuf,
        #[arg(long = "as", default_value = "observer")]
        viewer: String,
    },
    /// Serve games over HTTP and WebSocket, with the browser client (see API.md).
    Serve {
        /// Where to listen; the loopback address unless another is given.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: std::net::SocketAddr,
        /// The folder of saved games (created if missing).
        #[arg(long, default_value = "arbiter-games")]
        data: PathBuf,
        /// Seconds a disconnected seat stays "away" before it is "absent".
        #[arg(long, default_value_t = 30)]
        disconnect_timeout: u64,
        /// Seconds a game nobody is connected to stays in memory.
        #[arg(long, default_value_t = 60)]
        unload_after: u64,
        /// Seconds without a move after which a game is unloaded.
        #[arg(long, default_value_t = 24 * 3600)]
        idle_timeout: u64,
        /// Let seats' webhooks call loopback and private addresses (a closed network's chat
        /// server); off, a webhook must point to a public address.
        #[arg(long)]
        webhooks_private: bool,
        /// Open connections (HTTP and WebSocket) the server takes in all; more are refused (503).
        #[arg(long, default_value_t = 512)]
        max_connections: usize,
        /// The caps on one client's connections count IPv4 addresses alike in their first N
        /// bits as one client (32: each address; 24: a /24).
        #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u8).range(0..=32))]
        ipv4_prefix: u8,
        /// The same for IPv6 (64: a host's usual allocation).
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u8).range(0..=128))]
        ipv6_prefix: u8,
        /// The computer's searches run at once, on threads of their own behind the players'
        /// moves (more wait their turn); by default half the cores, at least one.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        computer_threads: Option<u16>,
        /// The space the data folder may take (bytes, or with K, M, G: `500M`); no new game
        /// beyond it (507). 0: no limit.
        #[arg(long, default_value = "1G", value_parser = arbiter_server::limits::parse_bytes)]
        disk_quota: u64,
        /// Keep the games in this PostgreSQL database instead of the data folder
        /// (`postgres://USER@HOST/DB`). Any number of servers may share it: each game is
        /// served by one of them at a time, the others forward its requests there.
        #[arg(long, value_name = "URL")]
        store: Option<String>,
        /// With --store: the URL the other servers reach this one at (`http://HOST:PORT`);
        /// by default the address it listens on.
        #[arg(long, value_name = "URL", requires = "store")]
        advertise: Option<String>,
        /// With --store: seconds a game's lease lasts unless renewed (every third of it); a
        /// server that dies leaves its games to the others after this.
        #[arg(long, default_value = "10", value_parser = parse_seconds, requires = "store")]
        lease_ttl: std::time::Duration,
    },
    /// Play random games in memory and report their speed.
    Bench {
        #[arg(long, default_value_t = 1000)]
        games: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Leave out the 7 optional cards (104-110); by default the full 110-card deck is used.
        #[arg(long)]
        base_deck: bool,
        #[arg(long)]
        json: bool,
    },
    /// The computer opponent's search, timed: games played at random to a mid-game decision,
    /// then the deciding seat's computer chooses its move. Prints iterations (playouts) per
    /// second.
    BenchSearch {
        /// The game: twilight-struggle, the default.
        #[arg(long, default_value = "twilight-struggle")]
        game: String,
        /// Positions searched (game `i` uses seed `SEED + i`).
        #[arg(long, default_value_t = 10)]
        positions: u64,
        /// Random decisions played before each position.
        #[arg(long, default_value_t = 120)]
        at: u64,
        /// The computer's level (1-5).
        #[arg(long, default_value = "3")]
        level: String,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// Two agents play a game against each other, `a` in one seat (or one side) rotated over
    /// the games, `b` in the others: wins, losses, draws, the Elo difference with its 95%
    /// interval, end reasons, results by the side `a` played, time per decision. Agents:
    /// random, greedy (one move ahead), computer[:LEVEL] (the search, levels 1-5, 3 by default).
    Arena {
        /// The game: twilight-struggle, the default.
        #[arg(long, default_value = "twilight-struggle")]
        game: String,
        /// The number of seats, for a game whose seat count varies.
        #[arg(long)]
        seats: Option<u8>,
        /// An option of the game, KEY=VALUE (repeatable; `arbiter games` lists them).
        #[arg(long = "option", value_name = "KEY=VALUE")]
        options: Vec<String>,
        /// `seat`: `a` plays one seat; `side`: `a` plays every seat of one side (a team: the
        /// village or the Mafia), each seat deciding alone from what it may know.
        #[arg(long, default_value = "seat")]
        split: String,
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// The first agent.
        #[arg(long, default_value = "random")]
        a: String,
        /// The second agent.
        #[arg(long, default_value = "random")]
        b: String,
        /// Game `i` uses seed `SEED + i`.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long)]
        json: bool,
    },
    /// What a card does: its number, Ops, side, era, marks and event text (`China` names The
    /// China Card; a unique prefix is enough).
    Card {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Run rules-lawyer fixtures (files or folders); ends with `N passed, N failed`.
    Fixtures {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print each case with its log.
        #[arg(long)]
        verbose: bool,
    },
    /// Copy game GAME of a PostgreSQL store or a server's data folder into a new saved-game
    /// file, every row as it was (times, logs, chain), with its chat and its seats (the file's
    /// document `seats`).
    Export {
        /// The game's id in the store.
        game: String,
        /// The store: postgres://USER@HOST[:PORT]/DATABASE.
        #[arg(long, required_unless_present = "data", conflicts_with = "data")]
        store: Option<String>,
        /// A server's data folder (`arbiter serve --data DIR`), while no server holds it.
        #[arg(long)]
        data: Option<PathBuf>,
        /// The new file (FILE.arbiter); an existing file is refused.
        file: PathBuf,
    },
    /// Copy a saved-game file (with its seats: its document, or an earlier server's
    /// NAME.seats.json beside it) into a PostgreSQL store or a server's data folder, every row
    /// as it was; the game is replayed and verified first.
    Import {
        file: PathBuf,
        /// The store: postgres://USER@HOST[:PORT]/DATABASE.
        #[arg(long, required_unless_present = "data", conflicts_with = "data")]
        store: Option<String>,
        /// A server's data folder (`arbiter serve --data DIR`), while no server holds it.
        #[arg(long)]
        data: Option<PathBuf>,
        /// The game's id in the store (default: the file's name without .arbiter); an id the
        /// store holds is refused.
        #[arg(long)]
        id: Option<String>,
    },
    /// Replay a saved game with verification, and print the state at the end.
    Replay {
        file: PathBuf,
        /// Stop after this move.
        #[arg(long)]
        to: Option<u64>,
        /// Print each move and its public log as it is replayed; at a terminal, wait for Enter
        /// before each next move (`q` stops).
        #[arg(long)]
        step: bool,
    },
}

/// The game in `file`, to be written (a move, an undo, play): refused while a server's redo
/// log beside it holds changes of that game the file may not have yet (the server running, or
/// stopped by a crash): that server's next start would bring the file up to date from its log,
/// undoing what was written here meanwhile.
pub(crate) fn open_to_write(file: &std::path::Path) -> Result<Session, Failure> {
    if let Some(log) = arbiter_store::redo_log_holding(file) {
        return Err(Failure::Failed(format!(
            "{}: a server's redo log ({}) holds changes of this game that its file may not have yet: the server on \
             that folder is running (play through it), or stopped without finishing; start it once (`arbiter serve \
             --data {}`), which brings every game up to date, stop it, then write the file here. Nothing was changed",
            file.display(),
            log.display(),
            log.parent().map(|d| d.display().to_string()).unwrap_or_default()
        )));
    }
    Ok(Session::open(file, &catalogue())?)
}

/// The seat named `id` (`us`, `player`…) in `s`'s game, or the refusal naming its seats.
fn seat_named(s: &Session, id: &str) -> Result<Seat, Failure> {
    let id = id.to_ascii_lowercase();
    s.header()
        .seats
        .iter()
        .position(|x| *x == id)
        .map(|i| Seat(i as u8))
        .ok_or_else(|| Failure::Rejected(format!("no seat {id:?} in this game; its seats: {} (or observer)", s.header().seats.join(", "))))
}

/// A duration in seconds as `--lease-ttl` takes it: 0.2 to 3600, decimals allowed.
fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.2..=3600.0).contains(&x) => Ok(std::time::Duration::from_secs_f64(x)),
        _ => Err(format!("{s:?}: a number of seconds from 0.2 to 3600 (10, 2.5)")),
    }
}

/// The viewer named `id`: a seat, or `observer`.
fn viewer_named(s: &Session, id: &str) -> Result<Viewer, Failure> {
    if id.eq_ignore_ascii_case("observer") {
        return Ok(None);
    }
    seat_named(s, id).map(Some)
}

/// The whole options of a new game of `kind` from `--seats` and `--option KEY=VALUE`, read by
/// the kind's own description of them and completed by the kind (defaults, presets).
fn game_options(kind: &dyn arbiter_kernel::GameKind, seats: Option<u8>, given: &[String]) -> Result<serde_json::Value, Failure> {
    let given = kind.shape().options_from(seats, given).map_err(|r| Failure::Rejected(r.reason))?;
    kind.complete_options(&given).map_err(|r| Failure::Rejected(r.reason))
}

/// Exit status 2: the input was rejected (illegal move, bad arguments); 1: anything else.
pub(crate) enum Failure {
    Rejected(String),
    Failed(String),
}

impl From<SessionError> for Failure {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Rejected(m) => Failure::Rejected(m.to_string()),
            other => Failure::Failed(other.to_string()),
        }
    }
}

impl From<arbiter_store::StoreError> for Failure {
    fn from(e: arbiter_store::StoreError) -> Self {
        Failure::Failed(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Failed(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Rejected(m)) => {
            eprintln!("arbiter: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Failed(m)) => {
            eprintln!("arbiter: {m}");
            ExitCode::from(1)
        }
    }
}

/// The most `bench --threads` accepts.
const MAX_THREADS: usize = 256;

/// `--threads` of the commands that time or play many games: one thread per core is all they
/// can use; thousands only exhaust the system.
fn check_threads(threads: usize) -> Result<(), Failure> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(())
    } else {
        Err(Failure::Rejected(format!("--threads must be between 1 and {MAX_THREADS} (got {threads})")))
    }
}

pub(crate) fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

fn json(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).expect("views serialise")
}

fn run(cmd: Command) -> Result<(), Failure> {
    match cmd {
        Command::New { file, game, seed, seats, options, force } => {
            let kind = catalogue().find(&game).map_err(|r| Failure::Rejected(r.reason))?;
            let options = game_options(kind, seats, &options)?;
            let seed = seed.unwrap_or_else(clock_seed);
            // The options are the game's to judge, before an existing file is touched: a
            // refused `new --force` leaves the old game as it was.
            kind.create(&options, seed).map_err(|r| Failure::Rejected(format!("cannot create the game: {r}")))?;
            if file.exists() {
                if !force {
                    return Err(Failure::Rejected(format!("{} exists; use --force to overwrite it", file.display())));
                }
                // With SQLite's companions, which belong to the old game too.
                SqliteStore::remove(&file)?;
            }
            Session::create(&file, kind, &options, seed)?;
            // The seed is not printed: with it, the hidden cards and future draws can be rebuilt.
            say!("New game in {}", file.display());
            Ok(())
        }
        Command::Play { file, lines, game, vs, as_seat, level } => {
            let rejected = |r: arbiter_kernel::Refusal| Failure::Rejected(r.reason);
            let agent = match (vs.as_deref(), level) {
                (None, None) => None,
                (Some("computer") | None, Some(l)) => Some(Agent::Computer(l.parse::<Level>().map_err(rejected)?)),
                (Some(_), Some(_)) => return Err(Failure::Rejected("--level is the level of --vs computer".into())),
                (Some(a), None) => Some(a.parse::<Agent>().map_err(rejected)?),
            };
            if agent.is_none() && as_seat.is_some() {
                return Err(Failure::Rejected("--as chooses your seat against the computer: give --vs computer too".into()));
            }
            let path = match file {
                Some(f) => f,
                None => play::default_save_path()?,
            };
            play::run(&path, lines, game.as_deref(), agent.map(|agent| play::Versus { agent, human: as_seat }))
        }
        Command::Games { json: as_json } => {
            let kinds: Vec<serde_json::Value> = catalogue()
                .kinds()
                .iter()
                .map(|k| serde_json::json!({ "id": k.id(), "title": k.title(), "rules_version": k.rules_version(), "shape": k.shape() }))
                .collect();
            if as_json {
                say!("{}", json(&kinds));
                return Ok(());
            }
            for k in catalogue().kinds() {
                let sh = k.shape();
                let r = sh.seats;
                let seats = if r.varies() {
                    format!("{} to {} seats ({} by default)", r.min, r.max, r.default)
                } else {
                    format!("{} seat(s)", r.min)
                };
                let c = sh.capabilities;
                let offers: Vec<&str> =
                    [(c.computer, "a computer opponent"), (c.encoding, "an encoding for learning"), (c.clock, "a clock")]
                        .into_iter()
                        .filter_map(|(on, w)| on.then_some(w))
                        .collect();
                say!(
                    "{} ({}): {seats}, {:?} information; offers {}",
                    k.id(),
                    k.title(),
                    sh.information,
                    if offers.is_empty() { "nothing more".to_string() } else { offers.join(", ") }
                );
                for o in &sh.options {
                    let ty = match o.kind {
                        arbiter_kernel::kind::OptionType::Flag => "true or false".to_string(),
                        arbiter_kernel::kind::OptionType::Integer { min, max } => format!("{min} to {max}"),
                        arbiter_kernel::kind::OptionType::Choice { choices } => choices.join(", "),
                    };
                    let default = if o.default.is_null() { "none by default".to_string() } else { format!("default {}", o.default) };
                    say!("  --option {}=VALUE  {} ({ty}; {default})", o.key, o.help);
                }
            }
            Ok(())
        }
        Command::Moves { file, json: as_json, as_side } => {
            let s = Session::open_read_only(&file, &catalogue())?;
            let g = s.game();
            let d = g.decision();
            let ids = &s.header().seats;
            let id = |seat: Seat| ids.get(seat.idx()).cloned().unwrap_or_default();
            let seats = || (0..ids.len()).map(|i| Seat(i as u8));
            // The seat whose moves are listed: the one named, or the seat deciding first.
            let asked = match as_side {
                Some(name) => Some(seat_named(&s, &name)?),
                None => d.as_ref().map(|d| d.first().seat),
            };
            let moves = asked.map(|a| g.legal_moves(a)).unwrap_or_default();
            let prompt = d.as_ref().zip(asked).and_then(|(d, a)| d.prompt(a).map(str::to_string));
            if as_json {
                let interjections: serde_json::Map<String, serde_json::Value> =
                    seats().map(|t| (id(t), g.interjections(t).into())).collect();
                let v = serde_json::json!({
                    "game": s.kind().id(),
                    "seq": s.seq(),
                    "to_move": d.as_ref().map(|d| id(d.first().seat)),
                    "seat": asked.map(id),
                    "prompt": prompt,
                    "moves": moves,
                    // Every seat that must act now (several at a simultaneous step); the prompt
                    // and moves of the seat asked only.
                    "acting": d.as_ref().map(|d| d.turns().iter().map(|t| if Some(t.seat) == asked {
                        serde_json::json!({ "seat": id(t.seat), "prompt": t.prompt, "moves": moves })
                    } else {
                        serde_json::json!({ "seat": id(t.seat) })
                    }).collect::<Vec<_>>()).unwrap_or_default(),
                    // What a seat not deciding may make now ("at any time"), by seat.
                    "interjections": interjections,
                    "outcome": g.outcome().map(|o| serde_json::json!({ "winner": o.winner().map(id), "results": o.results, "reason": o.reason, "text": o.text })),
                });
                say!("{}", json(&v));
            } else if let Some(d) = d {
                for m in &moves {
                    say!("{m}");
                }
                // Standard output stays one legal move a line; the other seats acting and the
                // interjections open to them are notes on standard error. Only that another
                // seat acts too, not how many moves it has (which may tell its role): its moves
                // are its own to list (`--as`).
                for t in d.turns().iter().filter(|t| Some(t.seat) != asked) {
                    eprintln!("the {} acts now too (arbiter moves FILE --as {})", s.seat_name(t.seat), id(t.seat));
                }
                if asked.is_some_and(|a| !d.includes(a)) {
                    eprintln!("the {} has nothing to do now", asked.map(|a| s.seat_name(a)).unwrap_or_default());
                }
                for other in seats().filter(|t| *t != d.first().seat) {
                    for m in g.interjections(other) {
                        eprintln!("the {} may interject: {m} (arbiter move FILE --as {} …)", s.seat_name(other), id(other));
                    }
                }
            }
            Ok(())
        }
        Command::Move { file, moves, as_side } => {
            let mut s = open_to_write(&file)?;
            let seat = as_side.map(|id| seat_named(&s, &id)).transpose()?;
            for text in &moves {
                // Each accepted move is stored at once; the first refused one stops here and
                // changes nothing.
                s.play(text, seat)?;
            }
            Ok(())
        }
        Command::Undo { file, as_side } => {
            let mut s = open_to_write(&file)?;
            let seat = as_side.map(|id| seat_named(&s, &id)).transpose()?;
            let first = s.game().decision().map(|d| d.first().seat);
            let row = match seat {
                Some(seat) if first != Some(seat) || s.own_choice_check(seat).is_ok() => s.undo_own_choice(seat)?,
                Some(_) | None => s.undo()?,
            };
            say!("Undone: move {} ({}) by the {}", row.seq, row.move_text, s.seat_name(row.seat));
            Ok(())
        }
        Command::State { file, json: as_json, viewer } => {
            let s = Session::open_read_only(&file, &catalogue())?;
            let viewer = viewer_named(&s, &viewer)?;
            print_state(s.game(), s.seq(), viewer, as_json);
            Ok(())
        }
        Command::Log { file, viewer } => {
            let s = Session::open_read_only(&file, &catalogue())?;
            let all = viewer.eq_ignore_ascii_case("all");
            let who = if all { None } else { viewer_named(&s, &viewer)? };
            let seats: Vec<(String, Seat)> = (0..s.header().seats.len()).map(|i| (s.seat_name(Seat(i as u8)), Seat(i as u8))).collect();
            let print = |rec: &arbiter_store::Record| {
                if all {
                    for (name, seat) in &seats {
                        for l in rec.private_lines(*seat) {
                            say!("    [{name} only] {l}");
                        }
                    }
                    for l in rec.public_log.lines() {
                        say!("    {l}");
                    }
                } else {
                    for l in rec.lines_for(who) {
                        say!("    {l}");
                    }
                }
            };
            // Never the seed: with it and the public moves, a player rebuilds the hidden cards.
            say!("Game created {} (engine {}, rules {})", s.header().created_at, s.header().engine_version, s.header().rules_version);
            print(&s.header().setup);
            let rows = s.rows();
            for (i, r) in rows.iter().enumerate() {
                let text = if all { r.move_text.clone() } else { arbiter_store::move_text_for(rows, i, who, s.game()) };
                say!("#{} {} ({}): {text}", r.seq, s.seat_name(r.seat), r.at);
                print(&r.record);
            }
            Ok(())
        }
        Command::Fixtures { paths, verbose } => run_fixtures(&paths, verbose),
        Command::Serve {
            addr,
            data,
            disconnect_timeout,
            unload_after,
            idle_timeout,
            webhooks_private,
            max_connections,
            ipv4_prefix,
            ipv6_prefix,
            computer_threads,
            disk_quota,
            store,
            advertise,
            lease_ttl,
        } => {
            let mut config = arbiter_server::Config::new(addr, data);
            config.webhook_private = webhooks_private;
            config.disconnect_timeout = std::time::Duration::from_secs(disconnect_timeout);
            config.unload_after = std::time::Duration::from_secs(unload_after);
            config.idle_timeout = std::time::Duration::from_secs(idle_timeout.max(1));
            config.max_connections = max_connections.max(1);
            config.ipv4_prefix = ipv4_prefix;
            config.ipv6_prefix = ipv6_prefix;
            if let Some(n) = computer_threads {
                config.computer_threads = usize::from(n);
            }
            config.disk_quota = (disk_quota > 0).then_some(disk_quota);
            config.store = store;
            config.advertise = advertise;
            config.lease_ttl = lease_ttl;
            // An owner that has not answered within its lease's TTL is taken for dead (503).
            config.forward_timeout = lease_ttl.max(std::time::Duration::from_secs(1));
            arbiter_server::serve(config, arbiter_games::web::offered()).map_err(Failure::Failed)
        }
        Command::Card { name, json: as_json } => {
            let rules = arbiter_twilight_cards::ruleset();
            let id = arbiter_twilight::moves::find_card(&name, &rules.cards).map_err(|e| Failure::Rejected(e.to_string()))?;
            let info = rules.cards.info(id);
            let text = arbiter_twilight_cards::text(id);
            if as_json {
                let v = serde_json::json!({
                    "id": id.0, "name": info.name, "ops": info.ops, "side": format!("{:?}", info.side), "era": format!("{:?}", info.era),
                    "starred": info.starred, "scoring": info.scoring, "optional": info.optional, "lasting": info.lasting,
                    "war": info.war, "text": text,
                });
                say!("{}", json(&v));
            } else {
                say!("{} (#{})", info.name, id.0);
                let side = match info.side.side() {
                    Some(s) => format!("{s} event"),
                    None => "neutral event".into(),
                };
                let marks: Vec<&str> = [
                    (info.scoring, "scoring card"),
                    (info.starred, "starred: removed after its event"),
                    (info.lasting, "underlined: its effect stays in play"),
                    (info.war, "war card"),
                    (info.optional, "optional card"),
                ]
                .into_iter()
                .filter(|m| m.0)
                .map(|m| m.1)
                .collect();
                let marks = if marks.is_empty() { String::new() } else { format!("; {}", marks.join("; ")) };
                say!("{} Ops, {side}, {:?} War{marks}", info.ops, info.era);
                say!("{text}");
            }
            Ok(())
        }
        Command::Bench { games, seed, threads, base_deck, json: as_json } => {
            if games == 0 {
                return Err(Failure::Rejected("--games must be at least 1".into()));
            }
            check_threads(threads)?;
            let options = Options { optional_cards: !base_deck, ..Options::default() };
            let r = bench::run(games, seed, threads, options).map_err(Failure::Failed)?;
            if as_json {
                say!("{}", json(&r));
            } else {
                let deck = if base_deck { "103-card deck (no optional cards)" } else { "full 110-card deck" };
                say!("{} games in {:.2} s on {} thread(s), {deck}", r.games, r.seconds, r.threads);
                say!(
                    "{:.0} games/s, {:.0} decisions/s, {:.1} decisions per game",
                    r.games_per_sec,
                    r.decisions_per_sec,
                    r.mean_decisions_per_game
                );
                let reasons: Vec<String> = r.end_reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
                say!("end reasons: {}", reasons.join(", "));
                say!("peak memory: {}", r.peak_rss_bytes.map(|b| format!("{:.1} MB", b as f64 / 1e6)).unwrap_or_else(|| "unknown".into()));
                say!("digest of final states: {}", r.digest);
            }
            Ok(())
        }
        Command::BenchSearch { game, positions, at, level, threads, seed, json: as_json } => {
            let kind = catalogue().find(&game).map_err(|r| Failure::Rejected(r.reason))?;
            if positions == 0 {
                return Err(Failure::Rejected("--positions must be at least 1".into()));
            }
            check_threads(threads)?;
            let level = level.parse::<Level>().map_err(|r| Failure::Rejected(r.reason))?;
            let r = bench::search(kind, positions, at, level, threads, seed).map_err(Failure::Failed)?;
            if as_json {
                say!("{}", json(&r));
            } else {
                say!(
                    "{} position(s) of {} after {} random decisions, level {}, {} thread(s): {} iterations in {:.2} s",
                    r.positions,
                    kind.title(),
                    r.at_decision,
                    r.level,
                    r.threads,
                    r.iterations,
                    r.seconds
                );
                say!("{:.0} iterations (playouts) per second, {:.1} decisions per second", r.iterations_per_sec, r.decisions_per_sec);
            }
            Ok(())
        }
        Command::Arena { game, seats, options, split, games, a, b, seed, threads, json: as_json } => {
            let kind = catalogue().find(&game).map_err(|r| Failure::Rejected(r.reason))?;
            if games == 0 {
                return Err(Failure::Rejected("--games must be at least 1".into()));
            }
            check_threads(threads)?;
            let read = |t: &str| t.parse::<arbiter_kernel::search::Agent>().map_err(|r| Failure::Rejected(r.reason));
            let (a, b) = (read(&a)?, read(&b)?);
            let split = split.parse::<arbiter_kernel::arena::Split>().map_err(Failure::Rejected)?;
            let options = game_options(kind, seats, &options)?;
            let setup = arbiter_kernel::arena::Setup { games, a, b, seed, threads, split };
            let r = arbiter_kernel::arena::run(kind, &options, &setup).map_err(Failure::Rejected)?;
            if as_json {
                say!("{}", json(&r));
            } else {
                say!(
                    "{} games of {} (seeds {}–{}, {} thread(s)): {} (a) against {} (b), {}",
                    r.games,
                    kind.title(),
                    r.seed,
                    r.seed.wrapping_add(r.games - 1),
                    r.threads,
                    r.a.agent,
                    r.b.agent,
                    match r.split {
                        arbiter_kernel::arena::Split::Seat => "a's seat rotated every game",
                        arbiter_kernel::arena::Split::Side => "a playing every seat of one side, rotated every game",
                    }
                );
                say!("a wins {}, b wins {}, draws {}: a scores {:.1} %", r.a_wins, r.b_wins, r.draws, r.a_score * 100.0);
                match (r.elo, r.elo_low, r.elo_high, r.elo_bound) {
                    (Some(e), Some(lo), Some(hi), _) => say!("Elo of a over b: {e:+.0} (95 %: {lo:+.0} to {hi:+.0})"),
                    (_, _, _, Some(bound)) if bound > 0.0 => say!("Elo of a over b: at least {bound:+.0} (95 %; a won every game)"),
                    (_, _, _, Some(bound)) => say!("Elo of a over b: at most {bound:+.0} (95 %; a lost every game)"),
                    _ => {}
                }
                let reasons: Vec<String> = r.end_reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
                say!("end reasons: {}", reasons.join(", "));
                // "no game" rather than an empty list when an agent won none.
                let by = |m: &std::collections::BTreeMap<String, u64>| {
                    if m.is_empty() {
                        return "no game".to_string();
                    }
                    m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
                };
                say!("a won by: {}; b won by: {}", by(&r.a_won_by), by(&r.b_won_by));
                let sides: Vec<String> = r
                    .a_as
                    .iter()
                    .map(|(side, t)| format!("as {side}: won {} of {} ({} lost, {} drawn)", t.a_wins, t.games, t.b_wins, t.draws))
                    .collect();
                say!("a {}", sides.join("; "));
                say!("time per decision: a {:.1} µs, b {:.1} µs", r.a.micros_per_decision, r.b.micros_per_decision);
            }
            Ok(())
        }
        Command::Export { game, store, data, file } => {
            let m = transfer::export(transfer::store(store.as_deref(), data.as_deref())?, &game, &file)?;
            say!(
                "Exported game {} to {}: {} move(s), {} chat message(s){}; chain {}.",
                m.id,
                file.display(),
                m.moves,
                m.chat,
                if m.seats { ", and its seats" } else { "" },
                m.chain
            );
            Ok(())
        }
        Command::Import { file, store, data, id } => {
            let m = transfer::import(&file, transfer::store(store.as_deref(), data.as_deref())?, id.as_deref())?;
            say!(
                "Imported {} as game {}: {} move(s), {} chat message(s){}; chain {}.",
                file.display(),
                m.id,
                m.moves,
                m.chat,
                if m.seats { ", and its seats" } else { "" },
                m.chain
            );
            Ok(())
        }
        Command::Replay { file, to, step } => {
            let store = SqliteStore::open_read_only(&file)?;
            let header = store.header()?;
            let kind = arbiter_store::kind_of(&header, &catalogue())?;
            let mut r = Replay::new(header, store.rows()?, kind).map_err(|e| Failure::Failed(e.to_string()))?;
            let interactive = std::io::IsTerminal::is_terminal(&std::io::stdin());
            while !r.done() && to.is_none_or(|t| r.seq() < t) {
                let row = r.step().map_err(|e| Failure::Failed(e.to_string()))?.cloned();
                if let (true, Some(row)) = (step, row) {
                    // An observer's replay: a secret choice not yet revealed at this point of
                    // the game (a headline) reads as such; the next move reveals it.
                    let text = arbiter_store::move_text_for(&r.rows()[..row.seq as usize], row.seq as usize - 1, None, r.game());
                    let who = r.game().seats().get(row.seat.idx()).cloned().unwrap_or_default();
                    say!("#{} {who}: {text}", row.seq);
                    for l in row.record.public_log.lines() {
                        say!("    {l}");
                    }
                    if interactive && !r.done() {
                        say_inline!("(Enter: next move, q: stop) ");
                        let mut answer = String::new();
                        if std::io::stdin().read_line(&mut answer)? == 0 || answer.trim() == "q" {
                            break;
                        }
                    }
                }
            }
            say!("Replayed and verified {} of {} moves.", r.seq(), r.rows().len());
            print_state(r.game(), r.seq(), None, false);
            Ok(())
        }
    }
}

/// The state as `viewer` sees it: the game's view as JSON, or as text (Twilight Struggle's
/// board, Minesweeper's grid).
fn print_state(g: &dyn Match, seq: u64, viewer: Viewer, as_json: bool) {
    if as_json {
        let mut v = g.view(viewer);
        v["seq"] = serde_json::json!(seq);
        say!("{}", json(&v));
        return;
    }
    if let Some(ts) = arbiter_kernel::downcast::<arbiter_twilight::Game>(g) {
        let view = ts.view(viewer.and_then(arbiter_twilight::contract::side));
        say_inline!("{}", board::board(&view, &board::Style::from_env()));
        if !view.hand.is_empty() {
            say!("Hand: {}", view.hand.join(", "));
        }
        match (view.outcome, view.prompt) {
            (Some(o), _) => say!("{o}"),
            (None, Some(p)) => say!("{p}"),
            _ => {}
        }
    } else if let Some(ms) = arbiter_kernel::downcast::<arbiter_minesweeper::Minesweeper>(g) {
        say_inline!("{}", minefield::grid(&arbiter_kernel::Game::view(ms, viewer)));
        match (g.outcome(), g.decision()) {
            (Some(o), _) => say!("{}", o.text),
            (None, Some(d)) => say!("{}", d.first().prompt),
            _ => {}
        }
    } else {
        say!("{}", json(&g.view(viewer)));
    }
}

/// Each case: `ok ID title` or `FAILED ID title` with the reason; then `N passed, N failed`.
fn run_fixtures(paths: &[PathBuf], verbose: bool) -> Result<(), Failure> {
    let files = arbiter_casebook::collect(paths).map_err(|e| Failure::Rejected(e.to_string()))?;
    if files.is_empty() {
        // A run that found no case proves nothing: an error, not "0 passed, 0 failed".
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Failure::Failed(format!("no fixtures found in {}", names.join(", "))));
    }
    let (mut passed, mut failed) = (0, 0);
    // Each id names one case: a second file with the same id fails (as in the workspace test).
    let mut ids: std::collections::BTreeMap<String, PathBuf> = Default::default();
    for file in files {
        let result = match game_fixture(&file) {
            Some(r) => r,
            None => arbiter_casebook::load(&file).and_then(|f| arbiter_casebook::run(&f, &file)),
        };
        match result {
            Ok(mut r) => {
                if let Some(first) = ids.get(&r.id) {
                    r.failure = Some(format!("duplicate fixture id {} (also {})", r.id, first.display()));
                } else {
                    ids.insert(r.id.clone(), r.file.clone());
                }
                match &r.failure {
                    None => {
                        passed += 1;
                        say!("ok      {} {}", r.id, r.title);
                    }
                    Some(why) => {
                        failed += 1;
                        say!("FAILED  {} {} ({})\n        {}", r.id, r.title, r.file.display(), why.replace('\n', "\n        "));
                    }
                }
                if verbose {
                    for l in &r.log {
                        say!("        | {l}");
                    }
                }
            }
            Err(e) => {
                failed += 1;
                say!("FAILED  {e}");
            }
        }
    }
    say!("{passed} passed, {failed} failed");
    if failed == 0 {
        Ok(())
    } else {
        Err(Failure::Failed(format!("{failed} fixture(s) failed")))
    }
}

/// A fixture of a game with its own runner (`"game": "minesweeper"` or `"mafia"`), run by it;
/// `None` for any other file (Twilight Struggle's, read by the casebook).
fn game_fixture(file: &std::path::Path) -> Option<Result<arbiter_casebook::CaseResult, arbiter_casebook::FixtureError>> {
    let text = std::fs::read_to_string(file).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let game = v.get("game").and_then(|g| g.as_str())?;
    let read: Result<(String, String, Option<String>), String> = if game == arbiter_minesweeper::fixture::GAME {
        arbiter_minesweeper::fixture::parse(&text).map(|f| {
            let failure = arbiter_minesweeper::fixture::run(&f).err();
            (f.id, f.title, failure)
        })
    } else if game == arbiter_mafia::fixture::GAME {
        arbiter_mafia::fixture::parse(&text).map(|f| {
            let failure = f.run().err();
            (f.id, f.title, failure)
        })
    } else {
        return None;
    };
    let result = match read {
        Ok((id, title, failure)) => arbiter_casebook::CaseResult { failure, id, title, file: file.to_path_buf(), log: Vec::new() },
        Err(e) => arbiter_casebook::CaseResult {
            id: file.display().to_string(),
            title: format!("unreadable {game} fixture"),
            file: file.to_path_buf(),
            failure: Some(e),
            log: Vec::new(),
        },
    };
    Some(Ok(result))
}
