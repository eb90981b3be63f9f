//! `arbiter`: hot-seat Twilight Struggle in a terminal, and scripting commands over saved games.

#[macro_use]
mod out;
mod bench;
mod board;
mod input;
mod odds;
mod play;
mod table;
mod warn;

use arbiter_engine::{Options, Side};
use arbiter_store::{EventStore, Replay, Session, SessionError, SqliteStore};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "arbiter", version, about = "Arbiter: a rules-enforcing referee for Twilight Struggle (Deluxe)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a saved game (a SQLite file).
    New {
        file: PathBuf,
        /// Seed of the game's randomness (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// Play with the 7 optional cards (104-110).
        #[arg(long)]
        optional_cards: bool,
        /// Extra US Influence after setup (a common handicap; 0 turns it off).
        #[arg(long, default_value_t = 2)]
        us_bonus: u8,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Play hot-seat: two players share this terminal. Without FILE, uses the default save file
    /// and resumes it if it exists. Full-screen on a terminal; one line at a time otherwise.
    Play {
        file: Option<PathBuf>,
        /// One line at a time even on a terminal (as for scripts and pipes).
        #[arg(long)]
        lines: bool,
    },
    /// Who decides now, the prompt, and every legal move (one canonical move per line).
    Moves {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Apply moves in order as whoever is to decide.
    Move {
        file: PathBuf,
        #[arg(required = true)]
        moves: Vec<String>,
        /// Move as this side: its decision's moves, or, while the other side decides, an
        /// interjection (a move allowed "at any time", e.g. cancelling the Cuban Missile Crisis).
        #[arg(long = "as")]
        as_side: Option<SideArg>,
    },
    /// Undo the last move of the side to move, where the rules of undo allow it.
    Undo { file: PathBuf },
    /// The state as one side (or an observer) sees it.
    State {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        #[arg(long = "as", default_value = "observer")]
        viewer: Viewer,
    },
    /// The human-readable log.
    Log {
        file: PathBuf,
        #[arg(long = "as", default_value = "observer")]
        viewer: LogViewer,
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

#[derive(Clone, Copy, ValueEnum)]
enum SideArg {
    Us,
    Ussr,
}

impl SideArg {
    fn side(self) -> Side {
        match self {
            SideArg::Us => Side::Us,
            SideArg::Ussr => Side::Ussr,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Viewer {
    Us,
    Ussr,
    Observer,
}

impl Viewer {
    fn side(self) -> Option<Side> {
        match self {
            Viewer::Us => Some(Side::Us),
            Viewer::Ussr => Some(Side::Ussr),
            Viewer::Observer => None,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum LogViewer {
    Us,
    Ussr,
    Observer,
    All,
}

/// Exit status 2: the input was rejected (illegal move, bad arguments); 1: anything else.
pub(crate) enum Failure {
    Rejected(String),
    Failed(String),
}

impl From<SessionError> for Failure {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Rejected(m) => Failure::Rejected(m),
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

pub(crate) fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

fn json(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).expect("views serialise")
}

fn run(cmd: Command) -> Result<(), Failure> {
    match cmd {
        Command::New { file, seed, optional_cards, us_bonus, force } => {
            if file.exists() {
                if !force {
                    return Err(Failure::Rejected(format!("{} exists; use --force to overwrite it", file.display())));
                }
                std::fs::remove_file(&file)?;
                // SQLite's write-ahead log and shared-memory files belong to the old game too.
                for suffix in ["-wal", "-shm"] {
                    let mut side_file = file.clone().into_os_string();
                    side_file.push(suffix);
                    let _ = std::fs::remove_file(side_file);
                }
            }
            let seed = seed.unwrap_or_else(clock_seed);
            Session::create(&file, seed, Options { optional_cards, us_bonus })?;
            // The seed is not printed: with it, the hidden cards and future draws can be rebuilt.
            say!("New game in {}", file.display());
            Ok(())
        }
        Command::Play { file, lines } => {
            let path = match file {
                Some(f) => f,
                None => play::default_save_path()?,
            };
            play::run(&path, lines)
        }
        Command::Moves { file, json: as_json } => {
            let s = Session::open(&file)?;
            let g = s.game();
            let d = g.decision();
            if as_json {
                let v = serde_json::json!({
                    "seq": s.seq(),
                    "to_move": d.as_ref().map(|d| d.side),
                    "prompt": d.as_ref().map(|d| d.prompt.clone()),
                    "moves": d.as_ref().map(|d| d.moves.iter().map(|m| g.move_text(m)).collect::<Vec<_>>()).unwrap_or_default(),
                    // What the side not deciding may make now ("at any time"), by side.
                    "interjections": {
                        "us": g.interjections(Side::Us).iter().map(|m| g.move_text(m)).collect::<Vec<_>>(),
                        "ussr": g.interjections(Side::Ussr).iter().map(|m| g.move_text(m)).collect::<Vec<_>>(),
                    },
                    "outcome": g.outcome(),
                });
                say!("{}", json(&v));
            } else if let Some(d) = d {
                for m in &d.moves {
                    say!("{}", g.move_text(m));
                }
                // Standard output stays one legal move a line; the interjections open to the
                // other side are a note on standard error (all of them: `--json`).
                let other = d.side.opponent();
                for m in g.interjections(other) {
                    eprintln!(
                        "the {other} may interject: {} (arbiter move FILE --as {} …)",
                        g.move_text(&m),
                        other.to_string().to_lowercase()
                    );
                }
            }
            Ok(())
        }
        Command::Move { file, moves, as_side } => {
            let mut s = Session::open(&file)?;
            for text in &moves {
                // Each accepted move is stored at once; the first refused one stops here and
                // changes nothing.
                s.play(text, as_side.map(SideArg::side))?;
            }
            Ok(())
        }
        Command::Undo { file } => {
            let mut s = Session::open(&file)?;
            let row = s.undo()?;
            say!("Undone: move {} ({}) by the {}", row.seq, row.move_text, row.side);
            Ok(())
        }
        Command::State { file, json: as_json, viewer } => {
            let s = Session::open(&file)?;
            print_state(s.game(), s.seq(), viewer.side(), as_json);
            Ok(())
        }
        Command::Log { file, viewer } => {
            let s = Session::open(&file)?;
            let who = match viewer {
                LogViewer::Us => vec![Some(Side::Us)],
                LogViewer::Ussr => vec![Some(Side::Ussr)],
                LogViewer::Observer => vec![None],
                LogViewer::All => vec![Some(Side::Us), Some(Side::Ussr)],
            };
            let print = |rec: &arbiter_store::Record| {
                if matches!(viewer, LogViewer::All) {
                    for (tag, side) in [("US only", Side::Us), ("USSR only", Side::Ussr)] {
                        for l in rec.private_lines(side) {
                            say!("    [{tag}] {l}");
                        }
                    }
                    for l in rec.public_log.lines() {
                        say!("    {l}");
                    }
                } else {
                    for l in rec.lines_for(who[0]) {
                        say!("    {l}");
                    }
                }
            };
            // Never the seed: with it and the public moves, a player rebuilds the hidden cards.
            say!("Game created {} (engine {}, rules {})", s.header().created_at, s.header().engine_version, s.header().rules_version);
            print(&s.header().setup);
            let rows = s.rows();
            for (i, r) in rows.iter().enumerate() {
                let text = if matches!(viewer, LogViewer::All) {
                    r.move_text.clone()
                } else {
                    arbiter_store::move_text_for(rows, i, who[0], s.game())
                };
                say!("#{} {} ({}): {text}", r.seq, r.side, r.at);
                print(&r.record);
            }
            Ok(())
        }
        Command::Fixtures { paths, verbose } => run_fixtures(&paths, verbose),
        Command::Serve { addr, data, disconnect_timeout, unload_after, idle_timeout } => {
            let mut config = arbiter_server::Config::new(addr, data);
            config.disconnect_timeout = std::time::Duration::from_secs(disconnect_timeout);
            config.unload_after = std::time::Duration::from_secs(unload_after);
            config.idle_timeout = std::time::Duration::from_secs(idle_timeout.max(1));
            arbiter_server::serve(config).map_err(Failure::Failed)
        }
        Command::Card { name, json: as_json } => {
            let rules = arbiter_cards::ruleset();
            let id = arbiter_engine::moves::find_card(&name, &rules.cards).map_err(|e| Failure::Rejected(e.to_string()))?;
            let info = rules.cards.info(id);
            let text = arbiter_cards::text(id);
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
            // One thread per core is all a benchmark can use; thousands only exhaust the system.
            if !(1..=MAX_THREADS).contains(&threads) {
                return Err(Failure::Rejected(format!("--threads must be between 1 and {MAX_THREADS} (got {threads})")));
            }
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
        Command::Replay { file, to, step } => {
            let store = SqliteStore::open(&file)?;
            let mut r = Replay::new(store.header()?, store.rows()?).map_err(|e| Failure::Failed(e.to_string()))?;
            let interactive = std::io::IsTerminal::is_terminal(&std::io::stdin());
            while !r.done() && to.is_none_or(|t| r.seq() < t) {
                let row = r.step().map_err(|e| Failure::Failed(e.to_string()))?.cloned();
                if let (true, Some(row)) = (step, row) {
                    // An observer's replay: a secret choice not yet revealed at this point of
                    // the game (a headline) reads as such; the next move reveals it.
                    let text = arbiter_store::move_text_for(&r.rows()[..row.seq as usize], row.seq as usize - 1, None, r.game());
                    say!("#{} {}: {text}", row.seq, row.side);
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

fn print_state(g: &arbiter_engine::Game, seq: u64, viewer: Option<Side>, as_json: bool) {
    let view = g.view(viewer);
    if as_json {
        let mut v = serde_json::to_value(&view).expect("views serialise");
        v["seq"] = serde_json::json!(seq);
        say!("{}", json(&v));
        return;
    }
    say_inline!("{}", board::board(&view, &board::Style::from_env()));
    if !view.hand.is_empty() {
        say!("Hand: {}", view.hand.join(", "));
    }
    match (view.outcome, view.prompt) {
        (Some(o), _) => say!("{o}"),
        (None, Some(p)) => say!("{p}"),
        _ => {}
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
        let result = match minesweeper_fixture(&file) {
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

/// A fixture of Minesweeper (`"game": "minesweeper"`), run by its game's runner; `None` for any
/// other file (Twilight Struggle's, read by the casebook).
fn minesweeper_fixture(file: &std::path::Path) -> Option<Result<arbiter_casebook::CaseResult, arbiter_casebook::FixtureError>> {
    let text = std::fs::read_to_string(file).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    if v.get("game").and_then(|g| g.as_str()) != Some(arbiter_minesweeper::fixture::GAME) {
        return None;
    }
    let result = match arbiter_minesweeper::fixture::parse(&text) {
        Ok(f) => arbiter_casebook::CaseResult {
            failure: arbiter_minesweeper::fixture::run(&f).err(),
            id: f.id,
            title: f.title,
            file: file.to_path_buf(),
            log: Vec::new(),
        },
        Err(e) => arbiter_casebook::CaseResult {
            id: file.display().to_string(),
            title: "unreadable Minesweeper fixture".into(),
            file: file.to_path_buf(),
            failure: Some(e),
            log: Vec::new(),
        },
    };
    Some(Ok(result))
}
