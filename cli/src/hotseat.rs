//! Hot-seat for any game of any number of seats, one line at a time: the players pass the
//! terminal. Before each seat that must act, a hand-over screen asks for that player and
//! waits, so that nothing of one seat is shown while another may be looking; then the seat
//! reads what it may know (the log lines for it since its last turn, its prompt, its moves),
//! makes its move, and the screen is cleared for the next. At a simultaneous step every seat
//! that must act takes its turn in seat order, none seeing the others' choices. Seats played
//! by the computer move without a hand-over. Every move is stored as soon as it is accepted, and
//! may be taken back before the terminal is passed on, unless it showed another seat anything.
//! A seat with several moves at one simultaneous step (Diplomacy's orders, one per unit) makes
//! them all before the terminal is passed on, and may take back its last with `undo`.

use crate::Failure;
use arbiter_kernel::search::{Agent, Plan};
use arbiter_kernel::Seat;
use arbiter_store::Session;
use std::io::{BufRead, IsTerminal, Write};

const HELP: &str = "\
Type a move by its number or in notation. Other commands:
  moves    list your moves again          view   what you may see of the game (JSON)
  log      every log line you may read    help   this text
  undo     take your last move back (at a step of seats acting at once, until it resolves)
  quit     leave (the game is saved after every move)";

/// Play `session` hot-seat; `computer` plays the seats it names.
pub fn run(mut session: Session, computer: &[(Seat, Agent)]) -> Result<(), Failure> {
    let names = session.game().seats();
    let mut seen = vec![0usize; names.len()];
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let clear = std::io::stdout().is_terminal();
    // The seats of the simultaneous step under way (none at a turn): its seats only leave it
    // until it resolves.
    let mut step: Vec<Seat> = Vec::new();
    loop {
        if let Some(o) = session.game().outcome() {
            let entries = arbiter_store::log_for(session.header(), session.rows(), None, session.game());
            for e in entries.iter().skip(seen.iter().copied().min().unwrap_or(0)).filter(|e| !e.heading) {
                say!("  {}", e.text);
            }
            say!("Game over: {}", o.text);
            return Ok(());
        }
        let Some(d) = session.game().decision() else { return Err(Failure::Failed("no decision and no outcome".into())) };
        let seat = d.first().seat;
        let acting: Vec<Seat> = d.seats().collect();
        if !acting.iter().all(|s| step.contains(s)) {
            step = if acting.len() > 1 { acting } else { Vec::new() };
        }
        if let Some((_, agent)) = computer.iter().find(|(s, _)| *s == seat) {
            let seed = arbiter_kernel::stable_hash(&(session.header().seed, session.seq()));
            let m = session
                .game()
                .computer()
                .agent_move(seat, &Plan::new(*agent, seed), &|_| {})
                .map_err(|r| Failure::Failed(format!("the computer could not move: {r}")))?;
            session.play(&m, Some(seat))?;
            continue;
        }
        let name = &names[seat.idx()];
        if clear {
            print!("\x1b[2J\x1b[H");
        }
        say!("── Pass the terminal to {name}; {name}, press Enter when the others cannot see. ──");
        let _ = std::io::stdout().flush();
        match lines.next() {
            Some(Ok(_)) => {}
            _ => return Ok(()),
        }
        let entries = arbiter_store::log_for(session.header(), session.rows(), Some(seat), session.game());
        for e in entries.iter().skip(seen[seat.idx()]) {
            say!("{}{}", if e.heading { "" } else { "  " }, e.text);
        }
        seen[seat.idx()] = entries.len();
        let mut moves = session.game().legal_moves(seat);
        say!("{name}: {}", d.prompt(seat).unwrap_or_default());
        list(&moves);
        loop {
            print!("{name}> ");
            let _ = std::io::stdout().flush();
            let Some(Ok(line)) = lines.next() else { return Ok(()) };
            let line = line.trim();
            let text = match line {
                "" => continue,
                "quit" | "exit" => return Ok(()),
                "help" => {
                    say!("{HELP}");
                    continue;
                }
                "moves" => {
                    list(&moves);
                    continue;
                }
                // A seat still at its part of a simultaneous step takes back its last move.
                "undo" if session.own_choice_check(seat).is_ok() => {
                    match session.undo_own_choice(seat) {
                        Ok(row) => {
                            say!("Taken back: {}", row.move_text);
                            seen[seat.idx()] = arbiter_store::log_for(session.header(), session.rows(), Some(seat), session.game()).len();
                            moves = session.game().legal_moves(seat);
                            list(&moves);
                        }
                        Err(e) => say!("{e}"),
                    }
                    continue;
                }
                "view" => {
                    say!("{}", serde_json::to_string_pretty(&session.game().view(Some(seat))).unwrap_or_default());
                    continue;
                }
                "log" => {
                    for e in arbiter_store::log_for(session.header(), session.rows(), Some(seat), session.game()) {
                        say!("{}{}", if e.heading { "" } else { "  " }, e.text);
                    }
                    continue;
                }
                other => match other.parse::<usize>() {
                    Ok(n) if (1..=moves.len()).contains(&n) => moves[n - 1].clone(),
                    Ok(n) => {
                        say!("no move {n}: the moves are 1 to {}", moves.len());
                        continue;
                    }
                    Err(_) => other.to_string(),
                },
            };
            match session.play(&text, Some(seat)) {
                Ok((row, report)) => {
                    say!("{name}: {}", row.move_text);
                    for l in report.lines_for(Some(seat)) {
                        say!("  {l}");
                    }
                    seen[seat.idx()] = arbiter_store::log_for(session.header(), session.rows(), Some(seat), session.game()).len();
                    // A seat with more moves at the same simultaneous step (an order for each
                    // unit) keeps the terminal until its part is made.
                    if report.revealed {
                        step.clear();
                    }
                    let stays = session.game().decision().is_some_and(|d| d.includes(seat) && d.seats().all(|s| step.contains(&s)));
                    if stays {
                        moves = session.game().legal_moves(seat);
                        say!(
                            "{name}: {} (undo takes the last move back)",
                            session.game().decision().and_then(|d| d.prompt(seat).map(String::from)).unwrap_or_default()
                        );
                        list(&moves);
                        continue;
                    }
                    // Before the terminal is passed on, the move may be taken back (not one that
                    // showed anything to another seat or drew randomness).
                    let undoable = session.undo_check_for(Some(seat)).is_ok();
                    say!("Press Enter, then pass the terminal on{}.", if undoable { " (or type undo to take the move back)" } else { "" });
                    let _ = std::io::stdout().flush();
                    match lines.next() {
                        Some(Ok(l)) if undoable && l.trim() == "undo" => match session.undo_before_hand_over(seat) {
                            Ok(row) => {
                                say!("Taken back: {}", row.move_text);
                                seen[seat.idx()] =
                                    arbiter_store::log_for(session.header(), session.rows(), Some(seat), session.game()).len();
                                say!(
                                    "{name}: {}",
                                    session.game().decision().and_then(|d| d.prompt(seat).map(String::from)).unwrap_or_default()
                                );
                                list(&moves);
                                continue;
                            }
                            Err(e) => say!("{e}"),
                        },
                        Some(Ok(_)) => {}
                        _ => return Ok(()),
                    }
                    break;
                }
                Err(e) => say!("{e}"),
            }
        }
    }
}

fn list(moves: &[String]) {
    for (i, m) in moves.iter().enumerate() {
        say!("  {:>2}. {m}", i + 1);
    }
}
