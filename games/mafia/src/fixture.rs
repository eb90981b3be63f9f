//! Mafia's rules-lawyer fixtures, in the project's format: an id, a title, the rulings checked
//! (RULINGS.md), the roles as dealt (player 1 first), moves by player (a refusal step names the
//! words its reason must contain, and must change nothing), and what must follow: who is alive,
//! the outcome, and log lines each to the audience that reads them (and lines an audience
//! must not read). `arbiter fixtures` runs them beside the other games', by their `game` field.

use crate::{Mafia, Move, Role};
use arbiter_kernel::{Audience, Game, Seat};
use serde::Deserialize;

/// The `game` field of a Mafia fixture.
pub const GAME: &str = "mafia";

pub fn parse(text: &str) -> Result<Fixture, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    pub game: String,
    pub id: String,
    pub title: String,
    rules: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)] // read by people
    note: String,
    roles: Vec<Role>,
    steps: Vec<Step>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    /// The player (from 1) who moves.
    by: u8,
    #[serde(rename = "move")]
    text: String,
    /// Words the refusal's reason must contain (the move must be refused).
    #[serde(default)]
    reject: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// The living players' numbers.
    alive: Vec<u8>,
    /// `village`, `mafia`, or absent while the game goes on.
    #[serde(default)]
    outcome: Option<String>,
    /// Lines that must have been logged, each to its audience.
    #[serde(default)]
    log: Vec<Line>,
    /// Lines that audience must not have read.
    #[serde(default)]
    not_log: Vec<Line>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    /// `0`: public; `n`: only player `n`.
    to: u8,
    text: String,
}

impl Fixture {
    /// Run it: `Err` names the first step or expectation that failed.
    pub fn run(&self) -> Result<(), String> {
        if self.game != GAME {
            return Err(format!("not a Mafia fixture: game {:?}", self.game));
        }
        if self.rules.is_empty() {
            return Err("a fixture names the rulings it checks".into());
        }
        let mut g = Mafia::with_roles(self.roles.clone()).map_err(|r| r.to_string())?;
        let mut log: Vec<(Audience, String)> = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            let seat = Seat(step.by.checked_sub(1).ok_or_else(|| format!("step {}: players are numbered from 1", i + 1))?);
            let m: Result<Move, _> = g.parse_move(&step.text);
            let before = g.state_hash();
            let result = m.and_then(|m| g.play_as(seat, &m));
            match (result, &step.reject) {
                (Ok(r), None) => log.extend(r.log.into_iter().map(|l| (l.to, l.text))),
                (Ok(_), Some(words)) => return Err(format!("step {} ({}): accepted; expected a refusal with {words:?}", i + 1, step.text)),
                (Err(r), None) => return Err(format!("step {} ({}) by player {}: refused: {r}", i + 1, step.text, step.by)),
                (Err(r), Some(words)) => {
                    if !r.reason.contains(words.as_str()) {
                        return Err(format!("step {} ({}): refused with {:?}, not {words:?}", i + 1, step.text, r.reason));
                    }
                    if g.state_hash() != before {
                        return Err(format!("step {}: a refused move changed the game", i + 1));
                    }
                }
            }
        }
        let alive: Vec<u8> = (0..g.players()).filter(|p| g.is_alive(*p)).map(|p| p + 1).collect();
        if alive != self.expect.alive {
            return Err(format!("alive: {alive:?}, expected {:?}", self.expect.alive));
        }
        let outcome = arbiter_kernel::Game::outcome(&g).map(|o| o.reason);
        if outcome != self.expect.outcome {
            return Err(format!("outcome: {outcome:?}, expected {:?}", self.expect.outcome));
        }
        let audience = |to: u8| if to == 0 { Audience::Public } else { Audience::Seat(Seat(to - 1)) };
        let reads = |to: u8, a: Audience| if to == 0 { a == Audience::Public } else { a.admits(Some(Seat(to - 1))) };
        for l in &self.expect.log {
            if !log.iter().any(|(a, t)| *a == audience(l.to) && t == &l.text) {
                let all: Vec<String> = log.iter().map(|(a, t)| format!("{a:?}: {t}")).collect();
                return Err(format!("no line {:?} to {}; the log:\n{}", l.text, l.to, all.join("\n")));
            }
        }
        for l in &self.expect.not_log {
            if log.iter().any(|(a, t)| reads(l.to, *a) && t == &l.text) {
                return Err(format!("line {:?} was read by {} (it must not be)", l.text, l.to));
            }
        }
        Ok(())
    }
}
