//! Interactive hot-seat play. Only the deciding side's hand is shown; when the deciding side
//! changes, the screen is cleared and the other player is asked to take the keyboard first.
//! Every move is stored as soon as it is accepted.

use crate::board::{self, Style};
use crate::input::Input;
use crate::table::app::Opponent;
use crate::ts_session::TsSession;
use crate::Failure;
use arbiter_games::catalogue;
use arbiter_kernel::search::{self, Agent, Plan, Progress};
use arbiter_kernel::Seat;
use arbiter_store::{Session, SessionError};
use arbiter_twilight::contract::{seat, side};
use arbiter_twilight::{Game, Region, Side};
use std::path::{Path, PathBuf};

/// `$ARBITER_HOME/hotseat.arbiter`, or `~/.local/share/arbiter/hotseat.arbiter`.
pub fn default_save_path() -> Result<PathBuf, Failure> {
    let dir = match std::env::var_os("ARBITER_HOME") {
        Some(d) => PathBuf::from(d),
        None => {
            let home = std::env::var_os("HOME").ok_or_else(|| Failure::Failed("HOME is not set: give a save FILE".into()))?;
            PathBuf::from(home).join(".local/share/arbiter")
        }
    };
    std::fs::create_dir_all(&dir).map_err(|e| Failure::Failed(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir.join("hotseat.arbiter"))
}

const HELP: &str = "\
Type a move by its number or in notation, e.g.  play \"Duck and Cover\" ops   influence Poland   coup Iran
Other commands:
  moves            list the legal moves again
  board            show the board
  region NAME      one region in detail      country NAME   one country
  card NAME        what a card does (its event in the project's words)
  odds coup NAME   the chance and expected result of a coup (also: odds realign NAME)
  log [N]          the last N log lines you may see (default 20)
  interject [N]    the side not deciding makes a move allowed 'at any time' (cancelling
                   the Cuban Missile Crisis): alone, lists them; with a number, makes it
  resign           concede the game (asks first)
  undo             take back your last move (not past a die roll, a draw, a reveal
                   or the other side's move)
  help             this text
  quit             leave (the game is saved after every move)";

/// Play the game saved in `path` (created if missing, a game of `game`: Twilight Struggle by
/// default): full-screen when both standard input and output are terminals, unless `lines`
/// asks for the line mode.
/// The computer's part in `arbiter play --vs AGENT [--as SEAT]`: who it is and the seat the
/// player keeps (the first seat, by default).
pub struct Versus {
    pub agent: Agent,
    pub human: Option<String>,
}

pub fn run(path: &Path, lines: bool, game: Option<&str>, versus: Option<Versus>) -> Result<(), Failure> {
    let session = if path.exists() {
        let s = crate::open_to_write(path)?;
        if let Some(id) = game.filter(|id| *id != s.kind().id()) {
            return Err(Failure::Rejected(format!(
                "{} holds a game of {}, not {id}: give another FILE for a new game",
                path.display(),
                s.kind().id()
            )));
        }
        say!("Resuming the game saved in {}", path.display());
        s
    } else {
        let kind = match game {
            Some(id) => catalogue().find(id).map_err(|r| Failure::Rejected(r.reason))?,
            None => catalogue().default_kind(),
        };
        let seed = crate::clock_seed();
        let s = Session::create(path, kind, &kind.default_options(), seed)?;
        say!("New game saved in {}", path.display());
        s
    };
    use std::io::IsTerminal;
    let full_screen = !lines && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    // The computer's seats: every seat but the one the player keeps.
    let computer: Vec<(Seat, Agent)> = match &versus {
        None => Vec::new(),
        Some(v) => {
            let seats = session.header().seats.clone();
            if seats.len() < 2 {
                return Err(Failure::Rejected(format!(
                    "{} has {} seat(s): --vs plays a game of two or more against the computer",
                    session.kind().title(),
                    seats.len()
                )));
            }
            let human = match &v.human {
                None => 0,
                Some(id) => seats.iter().position(|s| s == id).ok_or_else(|| {
                    Failure::Rejected(format!("no seat {id:?} in {}; the seats are: {}", session.kind().title(), seats.join(", ")))
                })?,
            };
            (0..seats.len()).filter(|s| *s != human).map(|s| (Seat(s as u8), v.agent)).collect()
        }
    };
    match TsSession::new(session) {
        Ok(ts) => {
            let opponent = computer.first().map(|(s, agent)| Opponent::new(side(*s).unwrap_or(Side::Ussr), *agent));
            if let Some(c) = &opponent {
                say!("You play the {}; the computer ({}) plays the {}.", c.side.opponent(), c.agent, c.side);
            }
            if full_screen {
                crate::table::run(ts, opponent)
            } else {
                run_lines(ts, path, opponent)
            }
        }
        Err(other) if other.game_as::<arbiter_minesweeper::Minesweeper>().is_none() => crate::hotseat::run(other, &computer),
        Err(other) if full_screen => crate::minefield::screen::run(other),
        Err(other) => crate::minefield::play_lines(other),
    }
}

/// The line mode: one prompt a line, for scripts, pipes and `--lines`.
fn run_lines(mut session: TsSession, path: &Path, computer: Option<Opponent>) -> Result<(), Failure> {
    let style = Style::from_env();
    let mut input = Input::new(session.game().rules().cards.all().map(|c| c.name.clone()))
        .map_err(|e| Failure::Failed(format!("cannot read the terminal: {e}")))?;
    let mut seated = None;
    // The last move each side has seen the log of: [US, USSR].
    let mut seen = [session.seq(); 2];
    // The last move after which the player was offered to take it back before the computer
    // answered.
    let mut offered = session.seq();
    loop {
        let game = session.game();
        if let Some(o) = game.outcome() {
            say!("{}", board::board(&game.view(None), &style));
            say!("Game over: {o}");
            return Ok(());
        }
        let Some(d) = game.decision() else {
            return Err(Failure::Failed("the game has no pending decision".into()));
        };
        if let Some(c) = computer.as_ref().filter(|c| c.side == d.side) {
            // The player's round is over: it may take its last move back before the computer
            // answers (once per move).
            let human = c.side.opponent();
            if offered < session.seq() && session.undo_check_for(Some(human)).is_ok() {
                offered = session.seq();
                match end_of_round(&mut session, &mut input, &style, human, "for the computer's answer")? {
                    EndOfRound::Quit => return Ok(()),
                    EndOfRound::Undone => continue,
                    EndOfRound::GoOn => {}
                }
            }
            computer_moves(&mut session, c)?;
            continue;
        }
        if let (Some(prev), true) = (seated, seated != Some(d.side)) {
            // End of round: the player who just moved may still take it back, as long as it
            // revealed nothing, before the keyboard changes hands.
            if session.undo_check_for(Some(prev)).is_ok() {
                match end_of_round(&mut session, &mut input, &style, prev, "to hand the keyboard over")? {
                    EndOfRound::Quit => return Ok(()),
                    EndOfRound::Undone => continue,
                    EndOfRound::GoOn => {}
                }
            }
        }
        let game = session.game();
        if seated != Some(d.side) && computer.is_some() {
            // Against the computer the player keeps the keyboard: no hand-over.
            seated = Some(d.side);
            say!("{}", board::board(&game.view(Some(d.side)), &style));
            show_decision(game, &style);
        }
        if seated != Some(d.side) {
            // Hand-over: clear the screen and the terminal's scrollback (`3J`) before anything
            // secret is shown, so the other hand cannot be scrolled back to.
            say_inline!("\x1b[2J\x1b[3J\x1b[H");
            say!("{} to decide. Hand the keyboard to the {} player and press Enter.", style.side(d.side, &d.side.to_string()), d.side);
            // Only Enter with nothing typed hands over: typed text is discarded, never run as a
            // command for a player who has not taken the keyboard.
            loop {
                match input.line("").map_err(Failure::Rejected)? {
                    None => return Ok(()),
                    Some(l) if l.trim().is_empty() => break,
                    Some(_) => say!("(ignored: press Enter with nothing typed to take the keyboard as the {})", d.side),
                }
            }
            seated = Some(d.side);
            // What happened since this player last had the keyboard (their view of the log).
            let since = seen[d.side.idx()];
            let news: Vec<&str> =
                session.rows().iter().filter(|r| r.seq > since).flat_map(|r| r.record.lines_for(Some(seat(d.side)))).collect();
            if !news.is_empty() {
                say!("Since your last turn at the keyboard:");
                for l in &news[news.len().saturating_sub(40)..] {
                    say!("  {l}");
                }
                say!();
            }
            seen[d.side.idx()] = session.seq();
            say!("{}", board::board(&game.view(Some(d.side)), &style));
            show_decision(game, &style);
        }
        input.set_moves(d.moves.iter().map(|m| game.move_text(m)).collect());
        let Some(line) = input.line(&format!("{}> ", d.side)).map_err(Failure::Rejected)? else {
            return Ok(());
        };
        let line = line.trim();
        let (word, rest) = line.split_once(' ').map(|(a, b)| (a, b.trim())).unwrap_or((line, ""));
        match word {
            "" => {}
            "quit" | "exit" => {
                say!("Saved in {}", path.display());
                return Ok(());
            }
            "help" | "?" => say!("{HELP}"),
            "moves" => show_decision(game, &style),
            "odds" => say!("{}", crate::odds::odds(game, d.side, rest)),
            "board" => say!("{}", board::board(&game.view(Some(d.side)), &style)),
            "region" => match Region::from_name(rest) {
                Some(r) => say!("{}", board::region(&game.view(Some(d.side)), &style, r)),
                None => say!("Regions: Europe, Asia, Middle East, Central America, South America, Africa"),
            },
            "country" => say!("{}", board::country_panel(&game.view(Some(d.side)), &style, rest)),
            "card" => match arbiter_twilight::moves::find_card(rest, &game.rules().cards) {
                Ok(id) => {
                    let info = game.rules().cards.info(id);
                    say!("{} ({} Ops): {}", info.name, info.ops, arbiter_twilight_cards::text(id));
                }
                Err(e) => say!("{e}"),
            },
            "log" => {
                let n = rest.parse().unwrap_or(20);
                let mut mine: Vec<&str> = session.header().setup.lines_for(Some(seat(d.side)));
                for r in session.rows() {
                    mine.extend(r.record.lines_for(Some(seat(d.side))));
                }
                for l in &mine[mine.len().saturating_sub(n)..] {
                    say!("  {l}");
                }
            }
            "interject" => {
                // The other player, beside the keyboard, makes a move "at any time": public,
                // so nothing secret of the deciding side is shown.
                let other = d.side.opponent();
                if computer.as_ref().is_some_and(|c| c.side == other) {
                    say!("The {other} is the computer's: you cannot move for it.");
                    continue;
                }
                let open: Vec<String> = game.interjections(other).iter().map(|m| game.move_text(m)).collect();
                if open.is_empty() {
                    say!("The {other} has no move it may make now while the {} decides.", d.side);
                    continue;
                }
                let chosen = match rest.parse::<usize>() {
                    Ok(i) if (1..=open.len()).contains(&i) => open[i - 1].clone(),
                    _ if !rest.is_empty() && rest.parse::<usize>().is_err() => rest.to_string(),
                    _ => {
                        say!("The {other} may interject now, while the {} decides:", d.side);
                        for (i, m) in open.iter().enumerate() {
                            say!("  {:>3}. {m}", i + 1);
                        }
                        say!("Type `interject N` to make one as the {other}.");
                        continue;
                    }
                };
                match session.play(&chosen, Some(other)) {
                    Ok((_, report)) => {
                        for l in report.lines_for(None) {
                            say!("  {l}");
                        }
                        show_decision(session.game(), &style);
                    }
                    Err(SessionError::Rejected(m)) => say!("{m}"),
                    Err(e) => return Err(e.into()),
                }
            }
            "undo" => match session.undo() {
                Ok(row) => {
                    say!("Undone: {}", row.move_text);
                    show_decision(session.game(), &style);
                }
                Err(e) => say!("{e}"),
            },
            _ => {
                let text = match line.parse::<usize>() {
                    Ok(i) if (1..=d.moves.len()).contains(&i) => game.move_text(&d.moves[i - 1]),
                    Ok(_) => {
                        say!("No move with that number (1-{})", d.moves.len());
                        continue;
                    }
                    Err(_) => line.to_string(),
                };
                // A move the player would regret is confirmed first.
                if let Ok(m) = game.parse(&text) {
                    let warned = crate::warn::warnings(game, d.side, &m);
                    if !warned.is_empty() {
                        for w in &warned {
                            say!("Warning: {w}.");
                        }
                        say!("Type `yes` to play {} anyway, anything else to choose again.", game.move_text(&m));
                        match input.line(&format!("{}> ", d.side)).map_err(Failure::Rejected)? {
                            None => return Ok(()),
                            Some(l) if l.trim() == "yes" => {}
                            Some(_) => {
                                show_decision(game, &style);
                                continue;
                            }
                        }
                    }
                }
                match session.play(&text, Some(d.side)) {
                    Ok((_, report)) => {
                        for l in report.lines_for(Some(seat(d.side))) {
                            say!("  {l}");
                        }
                        seen[d.side.idx()] = session.seq();
                        if session.game().to_move() == Some(d.side) {
                            show_decision(session.game(), &style);
                        }
                    }
                    Err(SessionError::Rejected(m)) => say!("{m}"),
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
}

/// What the player who just moved chose at the end of its round.
enum EndOfRound {
    Quit,
    Undone,
    GoOn,
}

/// The end of `side`'s round: Enter goes on (`then` says to what), `undo` takes its last move
/// back while nothing of it was revealed.
fn end_of_round(session: &mut TsSession, input: &mut Input, style: &Style, side: Side, then: &str) -> Result<EndOfRound, Failure> {
    say!("End of your round, {side}: press Enter {then}, or type `undo` to take your last move back.");
    Ok(match input.line(&format!("{side}> ")).map_err(Failure::Rejected)? {
        None => EndOfRound::Quit,
        Some(l) if l.trim() == "undo" => {
            match session.undo_before_hand_over(side) {
                Ok(row) => say!("Undone: {}", row.move_text),
                Err(e) => say!("{e}"),
            }
            show_decision(session.game(), style);
            EndOfRound::Undone
        }
        Some(_) => EndOfRound::GoOn,
    })
}

/// The computer makes its move (the seed drawn from the game's seed and the move's number),
/// showing its progress on a terminal; the player reads what it may of the result.
fn computer_moves(session: &mut TsSession, c: &Opponent) -> Result<(), Failure> {
    use std::io::IsTerminal;
    let seed = arbiter_kernel::stable_hash(&(session.header().seed, session.seq()));
    let plan = Plan::new(c.agent, seed);
    let terminal = std::io::stdout().is_terminal();
    let shown = std::sync::atomic::AtomicU64::new(0);
    let tell = |p: Progress| {
        let pct = p.done * 100 / p.of.max(1);
        // On a terminal, one line redrawn in steps of 5 %; in a pipe, nothing.
        if terminal && pct >= shown.load(std::sync::atomic::Ordering::Relaxed) + 5 {
            shown.store(pct, std::sync::atomic::Ordering::Relaxed);
            say_inline!("\r  the computer is thinking: {pct:>3} %");
        }
    };
    let game = session.game();
    let text = search::decide(game, seat(c.side), &plan, &tell)
        .map(|m| game.move_text(&m))
        .map_err(|r| Failure::Failed(format!("the computer could not move: {r}")))?;
    if terminal && shown.load(std::sync::atomic::Ordering::Relaxed) > 0 {
        say_inline!("\r\x1b[2K");
    }
    match session.play(&text, Some(c.side)) {
        Ok((_, report)) => {
            // The move as the player may read it: a secret headline stays secret.
            say!("The computer ({}): {}", c.side, session.last_move_for(Some(c.side.opponent())));
            for l in report.lines_for(Some(seat(c.side.opponent()))) {
                say!("  {l}");
            }
            Ok(())
        }
        Err(SessionError::Rejected(r)) => Err(Failure::Failed(format!("the computer's move {text} was refused: {r}"))),
        Err(e) => Err(e.into()),
    }
}

fn show_decision(game: &Game, style: &Style) {
    let Some(d) = game.decision() else { return };
    let view = game.view(Some(d.side));
    let mut hand = view.hand.clone();
    if view.china_card.holder == d.side {
        hand.push(game.rules().cards.name(arbiter_twilight::CardId::CHINA).to_string());
    }
    if !hand.is_empty() {
        say!("{} hand:", style.side(d.side, &d.side.to_string()));
        say_inline!("{}", board::hand(&hand, game, d.side));
        if view.china_card.holder == d.side && !view.china_card.face_up {
            say!("  (The China Card is face down: playable from the next turn, §9.3)");
        }
    }
    say!("{}", d.prompt);
    for (i, m) in d.moves.iter().enumerate() {
        say!("  {:>3}. {}", i + 1, game.move_text(m));
    }
    let other = d.side.opponent();
    if !game.interjections(other).is_empty() {
        say!("(The {other} may interject now, a move allowed \"at any time\": `interject` lists it.)");
    }
}
