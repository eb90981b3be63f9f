//! The hot-seat table: a full-screen terminal game on the alternate screen (ratatui with
//! crossterm). Leaving it, or handing the keyboard over, leaves nothing of a hand in the
//! terminal's scrollback: the main screen is never written while a hand is shown.
//!
//! `app` is the state machine (keys in, moves to the `Session`), `render` draws a screen from
//! it, `summary` is the end of game. The line mode (`play.rs`) stays for scripts and
//! non-terminals.

pub mod app;
pub mod render;
pub mod summary;
#[cfg(test)]
mod tests;

use crate::ts_session::TsSession as Session;
use crate::Failure;
use app::App;
use arbiter_kernel::search::{self, Progress};
use arbiter_twilight::contract::seat;
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use render::Palette;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

/// Play `session` full-screen until the players quit or the game ends and is left.
/// With `computer`, the computer plays its side: it thinks on another thread while the table
/// shows its progress and still answers keys.
pub fn run(session: Session, computer: Option<app::Opponent>) -> Result<(), Failure> {
    let mut app = App::new(session);
    if let Some(c) = computer {
        app = app.against(c);
    }
    let pal = Palette::from_env();
    let mut terminal = ratatui::try_init().map_err(|e| Failure::Failed(format!("cannot use the terminal: {e}")))?;
    let read_failed = |e: std::io::Error| Failure::Failed(format!("cannot read the terminal: {e}"));
    let result = (|| -> Result<(), Failure> {
        // The search under way: its answer arrives here.
        let mut thinking: Option<mpsc::Receiver<Result<String, arbiter_kernel::Refusal>>> = None;
        while !app.quit {
            terminal.draw(|f| render::draw(f, &app, pal)).map_err(|e| Failure::Failed(format!("cannot draw: {e}")))?;
            if let (Some((side, plan)), Some(c)) = (app.computer_turn(), &app.computer) {
                let rx = thinking.get_or_insert_with(|| {
                    let (tx, rx) = mpsc::channel();
                    let (game, progress) = (app.game().clone(), c.progress.clone());
                    std::thread::spawn(move || {
                        let tell = move |p: Progress| progress.store(p.done, Ordering::Relaxed);
                        let chosen = search::decide(&game, seat(side), &plan, &tell).map(|m| game.move_text(&m));
                        let _ = tx.send(chosen);
                    });
                    rx
                });
                match rx.try_recv() {
                    Ok(chosen) => {
                        thinking = None;
                        app.computer_moved(chosen)?;
                        continue;
                    }
                    Err(mpsc::TryRecvError::Empty) => {}
                    Err(mpsc::TryRecvError::Disconnected) => {
                        thinking = None;
                        app.computer_moved(Err(arbiter_kernel::Refusal::new("its thread stopped", "")))?;
                        continue;
                    }
                }
                // Redraw the progress ten times a second; keys still work meanwhile.
                if !event::poll(Duration::from_millis(100)).map_err(read_failed)? {
                    continue;
                }
            }
            match event::read().map_err(read_failed)? {
                Event::Key(k) if k.kind != KeyEventKind::Release => app.key(k)?,
                _ => {}
            }
        }
        Ok(())
    })();
    // Back to the main screen, which holds only what was there before `play`.
    ratatui::try_restore().map_err(|e| Failure::Failed(format!("cannot restore the terminal: {e}")))?;
    result?;
    match app.game().outcome() {
        Some(o) => say!("Game over: {o}"),
        None => say!("Saved; `arbiter play` with the same file resumes."),
    }
    Ok(())
}
