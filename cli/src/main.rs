//! `arbiter`: hot-seat Twilight Struggle in a terminal, and scripting commands over saved games.

mod board;
mod play;
mod save;

use arbiter_engine::{Game, Options, Side};
use clap::{Parser, Subcommand, ValueEnum};
use save::{Loaded, SavedGame};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "arbiter",
    version,
    about = "Arbiter: a rules-enforcing referee for Twilight Struggle (Deluxe)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a saved game.
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
    /// and resumes it if it exists.
    Play { file: Option<PathBuf> },
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
        /// Fail unless this side is to decide.
        #[arg(long = "as")]
        as_side: Option<SideArg>,
    },
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

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
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

fn load(path: &Path) -> Result<Loaded, Failure> {
    Ok(SavedGame::read(path)?.load(path)?)
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn run(cmd: Command) -> Result<(), Failure> {
    match cmd {
        Command::New {
            file,
            seed,
            optional_cards,
            us_bonus,
            force,
        } => {
            if file.exists() && !force {
                return Err(Failure::Rejected(format!(
                    "{} exists; use --force to overwrite it",
                    file.display()
                )));
            }
            let save = SavedGame::new(
                seed.unwrap_or_else(clock_seed),
                Options {
                    optional_cards,
                    us_bonus,
                },
            );
            save.write(&file)?;
            println!("New game in {} (seed {})", file.display(), save.seed);
            Ok(())
        }
        Command::Play { file } => {
            let path = match file {
                Some(f) => f,
                None => play::default_save_path()?,
            };
            play::run(&path)
        }
        Command::Moves { file, json } => {
            let l = load(&file)?;
            let g = &l.game;
            let d = g.decision();
            if json {
                let v = serde_json::json!({
                    "to_move": d.as_ref().map(|d| d.side),
                    "prompt": d.as_ref().map(|d| d.prompt.clone()),
                    "moves": d.as_ref().map(|d| d.moves.iter().map(|m| g.move_text(m)).collect::<Vec<_>>()).unwrap_or_default(),
                    "outcome": g.outcome(),
                });
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else if let Some(d) = d {
                for m in &d.moves {
                    println!("{}", g.move_text(m));
                }
            }
            Ok(())
        }
        Command::Move {
            file,
            moves,
            as_side,
        } => {
            let Loaded {
                mut save, mut game, ..
            } = load(&file)?;
            let mut result = Ok(());
            for text in &moves {
                match apply_move(&mut game, text, as_side.map(SideArg::side)) {
                    Ok((canonical, _)) => save.moves.push(canonical),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            // Moves accepted before a rejected one are kept; the rejected one changes nothing.
            save.write(&file)?;
            result
        }
        Command::State { file, json, viewer } => {
            let l = load(&file)?;
            let view = l.game.view(viewer.side());
            if json {
                let mut v = serde_json::to_value(&view)?;
                v["seq"] = serde_json::json!(l.save.moves.len());
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                print!("{}", board::board(&view, &board::Style::from_env()));
                if !view.hand.is_empty() {
                    println!("Hand: {}", view.hand.join(", "));
                }
                match (view.outcome, view.to_move, view.prompt) {
                    (Some(o), _, _) => println!("{o}"),
                    (None, Some(_), Some(p)) => println!("{p}"),
                    _ => {}
                }
            }
            Ok(())
        }
        Command::Log { file, viewer } => {
            let l = load(&file)?;
            for (i, r) in l.log.iter().enumerate() {
                if i > 0 {
                    println!("#{i} {}", l.save.moves[i - 1]);
                }
                for line in &r.log {
                    let shown = match (viewer, line.to) {
                        (LogViewer::All, _) | (_, arbiter_engine::report::Audience::Public) => true,
                        (LogViewer::Us, arbiter_engine::report::Audience::Private(Side::Us)) => {
                            true
                        }
                        (
                            LogViewer::Ussr,
                            arbiter_engine::report::Audience::Private(Side::Ussr),
                        ) => true,
                        _ => false,
                    };
                    if shown {
                        println!("    {}", line.text);
                    }
                }
            }
            Ok(())
        }
    }
}

/// Parse and play one move, as `as_side` if given; returns its canonical text and report.
pub(crate) fn apply_move(
    game: &mut Game,
    text: &str,
    as_side: Option<Side>,
) -> Result<(String, arbiter_engine::Report), Failure> {
    let Some(d) = game.decision() else {
        return Err(Failure::Rejected(match game.outcome() {
            Some(o) => format!("cannot {text}: the game is over ({o})"),
            None => format!("cannot {text}: no decision is pending"),
        }));
    };
    if let Some(s) = as_side {
        if s != d.side {
            return Err(Failure::Rejected(format!(
                "cannot {text}: it is the {}'s decision, not the {s}'s",
                d.side
            )));
        }
    }
    let m = game
        .parse(text)
        .map_err(|e| Failure::Rejected(format!("cannot read {text:?}: {e}")))?;
    let canonical = game.move_text(&m);
    let report = game
        .play(&m)
        .map_err(|e| Failure::Rejected(e.to_string()))?;
    Ok((canonical, report))
}
