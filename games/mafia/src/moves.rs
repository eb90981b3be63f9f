//! The moves and their notation: `kill 3`, `protect 3`, `investigate 3`, `block 3`, `sleep` at
//! night; `vote 3` or `skip` by day. Players are numbered from 1 (seat 0 is player 1); a
//! player may be written `3`, `p3`, `player 3` or `player-3`, in any case.

use arbiter_kernel::{echo, Refusal};
use serde::{Deserialize, Serialize};

/// A player by seat index (player `n` is seat `n - 1`).
pub type Player = u8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Move {
    /// A Mafioso's choice of the night's kill.
    Kill(Player),
    /// The Doctor's protection.
    Protect(Player),
    /// The Cop's investigation.
    Investigate(Player),
    /// The Roleblocker's block.
    Block(Player),
    /// A Villager's night (every living player acts at night, so that acting tells nothing).
    Sleep,
    /// A day vote to lynch.
    Vote(Player),
    /// A day vote to lynch nobody.
    Skip,
    /// The player leaves the game (M11): dead at once, its role revealed. Never listed among
    /// the moves; the move a clock makes for a player whose time runs out.
    Leave,
}

impl Move {
    /// Made at night (else by day).
    pub fn is_night(self) -> bool {
        match self {
            Move::Kill(_) | Move::Protect(_) | Move::Investigate(_) | Move::Block(_) | Move::Sleep => true,
            Move::Vote(_) | Move::Skip | Move::Leave => false,
        }
    }
    pub fn target(self) -> Option<Player> {
        match self {
            Move::Kill(p) | Move::Protect(p) | Move::Investigate(p) | Move::Block(p) | Move::Vote(p) => Some(p),
            Move::Sleep | Move::Skip | Move::Leave => None,
        }
    }
    pub fn text(self) -> String {
        let word = match self {
            Move::Kill(_) => "kill",
            Move::Protect(_) => "protect",
            Move::Investigate(_) => "investigate",
            Move::Block(_) => "block",
            Move::Sleep => return "sleep".into(),
            Move::Vote(_) => "vote",
            Move::Skip => return "skip".into(),
            Move::Leave => return "leave".into(),
        };
        format!("{word} {}", self.target().map_or(0, |p| u16::from(p) + 1))
    }
}

pub const RULE: &str = "Mafia notation";

/// Read a move of a game of `players` players.
pub fn parse(text: &str, players: u8) -> Result<Move, Refusal> {
    let t = text.trim().to_ascii_lowercase();
    let (word, rest) = t.split_once(char::is_whitespace).map_or((t.as_str(), ""), |(w, r)| (w, r.trim()));
    let player = || read_player(rest, players, text);
    Ok(match word {
        "kill" => Move::Kill(player()?),
        "protect" => Move::Protect(player()?),
        "investigate" => Move::Investigate(player()?),
        "block" => Move::Block(player()?),
        "vote" | "lynch" => Move::Vote(player()?),
        "sleep" if rest.is_empty() => Move::Sleep,
        "skip" if rest.is_empty() => Move::Skip,
        "leave" if rest.is_empty() => Move::Leave,
        _ => {
            return Err(Refusal::new(
                format!(
                    "cannot read {:?}: the moves are kill N, protect N, investigate N, block N, sleep (at night), vote N, skip (by day), leave (the game)",
                    echo(text)
                ),
                RULE,
            ))
        }
    })
}

fn read_player(rest: &str, players: u8, text: &str) -> Result<Player, Refusal> {
    let digits = rest.trim_start_matches("player").trim_start_matches('p').trim_start_matches(['-', ' ']);
    match digits.parse::<u8>() {
        Ok(n) if (1..=players).contains(&n) => Ok(n - 1),
        _ => Err(Refusal::new(format!("{:?} names no player: the players are 1 to {players}", echo(text)), RULE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn moves_read_back_and_players_are_numbered_from_one() {
        for m in
            [Move::Kill(0), Move::Protect(4), Move::Investigate(2), Move::Block(6), Move::Sleep, Move::Vote(3), Move::Skip, Move::Leave]
        {
            assert_eq!(parse(&m.text(), 7), Ok(m));
        }
        for t in ["kill 3", "KILL p3", "kill player 3", "kill Player-3"] {
            assert_eq!(parse(t, 7), Ok(Move::Kill(2)), "{t}");
        }
        assert_eq!(parse("lynch 2", 7), Ok(Move::Vote(1)));
        assert_eq!(parse("kill 8", 7).unwrap_err().reason, "\"kill 8\" names no player: the players are 1 to 7");
        assert_eq!(parse("kill 0", 7).unwrap_err().reason, "\"kill 0\" names no player: the players are 1 to 7");
        assert!(parse("dance", 7).unwrap_err().reason.contains("the moves are kill N"));
        assert!(parse("sleep 3", 7).is_err());
    }
}
