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
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use render::Palette;

/// Play `session` full-screen until the players quit or the game ends and is left.
pub fn run(session: Session) -> Result<(), Failure> {
    let mut app = App::new(session);
    let pal = Palette::from_env();
    let mut terminal = ratatui::try_init().map_err(|e| Failure::Failed(format!("cannot use the terminal: {e}")))?;
    let result = (|| -> Result<(), Failure> {
        while !app.quit {
            terminal.draw(|f| render::draw(f, &app, pal)).map_err(|e| Failure::Failed(format!("cannot draw: {e}")))?;
            match event::read().map_err(|e| Failure::Failed(format!("cannot read the terminal: {e}")))? {
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
