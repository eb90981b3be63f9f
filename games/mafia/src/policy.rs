//! How the computer expects a player to play, in its playouts and for the choices it cannot
//! see: with no talk at the table, conventions every player can follow from what it knows.
//! A player follows them three times in four, else chooses at random among its moves (a model
//! of a table that does not always follow them, so that one vote can still decide a day).
//!
//! - By day the table lynches its focal player, found from the public record of the votes
//!   alone: the lowest-numbered living player who voted against the convention on the day
//!   before (a suspect), or with none the lowest-numbered living player. Everyone votes for the
//!   focal player (the focal player for the next one in the same order); the Cop votes for a
//!   living player it found to be Mafia, if any; a Mafioso votes with the table unless the
//!   focal player is a fellow Mafioso, then for the lowest-numbered player of the village.
//! - At night the Cop investigates a living player it has not investigated yet; every other
//!   player with an action takes one at random (nobody lets the night pass, M11).

use crate::moves::{Move, Player};
use crate::roles::Role;
use crate::{Mafia, Phase};
use arbiter_kernel::Randomness;

/// The index among `moves` (the legal moves of `p` in `g`, never empty) that `p` chooses.
pub(crate) fn choose(g: &Mafia, p: Player, moves: &[Move], rng: &mut Randomness) -> usize {
    let random = |rng: &mut Randomness| rng.pick(moves.len()).unwrap_or(0);
    if rng.pick(4) == Ok(0) {
        return random(rng);
    }
    let wanted = match g.phase {
        Phase::Day => vote(g, p),
        Phase::Night => match g.role(p) {
            Role::Cop => {
                let fresh: Vec<usize> =
                    (0..moves.len()).filter(|i| moves[*i].target().is_some_and(|t| !g.findings.iter().any(|(_, f, _)| *f == t))).collect();
                if !fresh.is_empty() {
                    return fresh[rng.pick(fresh.len()).unwrap_or(0)];
                }
                None
            }
            Role::Mafioso | Role::Doctor | Role::Roleblocker | Role::Villager => {
                // An action rather than a night passed (M11), where there is one.
                let acts: Vec<usize> = (0..moves.len()).filter(|i| moves[*i] != Move::Sleep).collect();
                if !acts.is_empty() {
                    return acts[rng.pick(acts.len()).unwrap_or(0)];
                }
                None
            }
        },
    };
    wanted.and_then(|m| moves.iter().position(|x| *x == m)).unwrap_or_else(|| random(rng))
}

/// The day vote the conventions give `p`.
fn vote(g: &Mafia, p: Player) -> Option<Move> {
    let table = Focal::of(&g.living().collect::<Vec<_>>(), &suspects(g)).vote_of(p);
    let target = match g.role(p) {
        Role::Mafioso => table.filter(|t| g.role(*t) != Role::Mafioso).or_else(|| g.living().find(|t| g.role(*t) != Role::Mafioso)),
        Role::Cop => {
            let found = |t: Player| g.findings.iter().rev().find(|(_, f, _)| *f == t).is_some_and(|(_, _, mafia)| *mafia);
            g.living().find(|t| *t != p && found(*t)).or(table)
        }
        Role::Doctor | Role::Roleblocker | Role::Villager => table,
    };
    Some(target.map_or(Move::Skip, Move::Vote))
}

/// A day's focal player, and the next one in the same order (the focal player's own vote).
struct Focal {
    player: Option<Player>,
    next: Option<Player>,
}

impl Focal {
    /// The focal player of `living` (in seat order) with `suspects` among them first.
    fn of(living: &[Player], suspects: &[Player]) -> Focal {
        let mut order = suspects.iter().copied().filter(|s| living.contains(s)).chain(living.iter().copied());
        let player = order.next();
        let next = order.find(|s| Some(*s) != player);
        Focal { player, next }
    }

    /// The vote the convention asks of `p`.
    fn vote_of(&self, p: Player) -> Option<Player> {
        if self.player == Some(p) {
            self.next
        } else {
            self.player
        }
    }
}

/// The living players who voted against the convention on the last day (seat order), from
/// the public record of every day's votes.
fn suspects(g: &Mafia) -> Vec<Player> {
    let mut suspects: Vec<Player> = Vec::new();
    for votes in &g.days {
        // The voters of that day (a player who left that day had no vote).
        let voters: Vec<Player> =
            (0..votes.len() as Player).filter(|p| matches!(votes[usize::from(*p)], Some(Move::Vote(_) | Move::Skip))).collect();
        let day = Focal::of(&voters, &suspects);
        suspects =
            voters.iter().copied().filter(|p| votes[usize::from(*p)] != Some(day.vote_of(*p).map_or(Move::Skip, Move::Vote))).collect();
    }
    suspects.retain(|p| g.is_alive(*p));
    suspects
}
