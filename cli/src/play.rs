//! Interactive hot-seat play. Only the deciding side's hand is shown; when the deciding side
//! changes, the screen is cleared and the other player is asked to take the keyboard first.
//! Every move is saved as soon as it is accepted.

use crate::board::{self, Style};
use crate::save::{Loaded, SavedGame};
use crate::{apply_move, Failure};
use arbiter_engine::{Options, Region, Side};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// `$ARBITER_HOME/hotseat.json`, or `~/.local/share/arbiter/hotseat.json`.
pub fn default_save_path() -> Result<PathBuf, Failure> {
    let dir = match std::env::var_os("ARBITER_HOME") {
        Some(d) => PathBuf::from(d),
        None => {
            let home = std::env::var_os("HOME")
                .ok_or_else(|| Failure::Failed("HOME is not set: give a save FILE".into()))?;
            PathBuf::from(home).join(".local/share/arbiter")
        }
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::Failed(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir.join("hotseat.json"))
}

const HELP: &str = "\
Type a move by its number or in notation, e.g.  play \"Duck and Cover\" ops   influence Poland   coup Iran
Other commands:
  moves            list the legal moves again
  board            show the board
  region NAME      one region in detail      country NAME   one country
  log [N]          the last N log lines you may see (default 20)
  help             this text
  quit             leave (the game is saved after every move)";

pub fn run(path: &Path) -> Result<(), Failure> {
    let Loaded {
        mut save,
        mut game,
        log,
    } = if path.exists() {
        println!("Resuming the game saved in {}", path.display());
        SavedGame::read(path)?.load(path)?
    } else {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let s = SavedGame::new(seed, Options::default());
        s.write(path)?;
        println!("New game (seed {seed}) saved in {}", path.display());
        s.load(path)?
    };
    let mut history: Vec<arbiter_engine::report::LogLine> =
        log.into_iter().flat_map(|r| r.log).collect();
    let style = Style::from_env();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut seated: Option<Side> = None;
    let mut out = std::io::stdout();
    loop {
        if let Some(o) = game.outcome() {
            println!("{}", board::board(&game.view(None), &style));
            println!("Game over: {o}");
            return Ok(());
        }
        let Some(d) = game.decision() else {
            return Err(Failure::Failed("the game has no pending decision".into()));
        };
        if seated != Some(d.side) {
            // Hand-over: clear the screen before anything secret is shown.
            print!("\x1b[2J\x1b[H");
            println!(
                "{} to decide. Hand the keyboard to the {} player and press Enter.",
                style.side(d.side, &d.side.to_string()),
                d.side
            );
            out.flush()?;
            match lines.next() {
                Some(Ok(_)) => {}
                _ => return Ok(()),
            }
            seated = Some(d.side);
            let view = game.view(Some(d.side));
            println!("{}", board::board(&view, &style));
            show_decision(&game, &style);
        }
        print!("{}> ", d.side);
        out.flush()?;
        let Some(Ok(line)) = lines.next() else {
            return Ok(());
        };
        let line = line.trim();
        let (word, rest) = line
            .split_once(' ')
            .map(|(a, b)| (a, b.trim()))
            .unwrap_or((line, ""));
        match word {
            "" => continue,
            "quit" | "exit" => {
                println!("Saved in {}", path.display());
                return Ok(());
            }
            "help" | "?" => println!("{HELP}"),
            "moves" => show_decision(&game, &style),
            "board" => println!("{}", board::board(&game.view(Some(d.side)), &style)),
            "region" => match Region::from_name(rest) {
                Some(r) => println!("{}", board::region(&game.view(Some(d.side)), &style, r)),
                None => println!(
                    "Regions: Europe, Asia, Middle East, Central America, South America, Africa"
                ),
            },
            "country" => println!(
                "{}",
                board::country_line(&game.view(Some(d.side)), &style, rest)
            ),
            "log" => {
                let n = rest.parse().unwrap_or(20);
                let mine: Vec<&str> = visible(&history, d.side).collect();
                for l in &mine[mine.len().saturating_sub(n)..] {
                    println!("  {l}");
                }
            }
            _ => {
                let text = match line.parse::<usize>() {
                    Ok(i) if (1..=d.moves.len()).contains(&i) => game.move_text(&d.moves[i - 1]),
                    Ok(_) => {
                        println!("No move with that number (1-{})", d.moves.len());
                        continue;
                    }
                    Err(_) => line.to_string(),
                };
                match apply_move(&mut game, &text, None) {
                    Ok((canonical, report)) => {
                        save.moves.push(canonical);
                        save.write(path)?;
                        for l in report.lines_for(Some(d.side)) {
                            println!("  {l}");
                        }
                        history.extend(report.log);
                        if game.to_move() == Some(d.side) {
                            show_decision(&game, &style);
                        }
                    }
                    Err(Failure::Rejected(m)) | Err(Failure::Failed(m)) => println!("{m}"),
                }
            }
        }
    }
}

fn visible(history: &[arbiter_engine::report::LogLine], side: Side) -> impl Iterator<Item = &str> {
    history
        .iter()
        .filter(move |l| match l.to {
            arbiter_engine::report::Audience::Public => true,
            arbiter_engine::report::Audience::Private(s) => s == side,
        })
        .map(|l| l.text.as_str())
}

fn show_decision(game: &arbiter_engine::Game, style: &Style) {
    let Some(d) = game.decision() else { return };
    let view = game.view(Some(d.side));
    if !view.hand.is_empty() {
        println!(
            "{} hand: {}",
            style.side(d.side, &d.side.to_string()),
            view.hand.join(", ")
        );
    }
    println!("{}", d.prompt);
    for (i, m) in d.moves.iter().enumerate() {
        println!("  {:>3}. {}", i + 1, game.move_text(m));
    }
}
