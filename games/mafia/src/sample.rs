//! What the computer samples for a player ([`arbiter_kernel::Searchable::determinize`]): the roles it
//! does not know dealt again among the players whose roles it does not know (keeping what it
//! knows: its own role, its fellow Mafia, the dead, the Cop's findings), and the choices of
//! the step now it may not see drawn as the conventions expect them (`crate::policy`); in
//! the sample it acts first.

use crate::moves::Player;
use crate::roles::Role;
use crate::Mafia;
use arbiter_kernel::Randomness;

pub(crate) fn determinize(g: &Mafia, me: Player, rng: &mut Randomness) -> Option<Mafia> {
    if g.end.is_some() || usize::from(me) >= g.roles.len() {
        return None;
    }
    let mine = g.role(me);
    let n = g.players();
    let known = |p: Player| p == me || !g.is_alive(p) || (mine == Role::Mafioso && g.role(p) == Role::Mafioso);
    let mut s = g.clone();
    let unknown: Vec<Player> = (0..n).filter(|p| !known(*p)).collect();
    let mut pool: Vec<Role> = unknown.iter().map(|p| g.role(*p)).collect();
    pool.sort();
    // What the Cop found holds in every sample the Cop draws.
    let found = |p: Player| -> Option<bool> {
        if mine != Role::Cop {
            return None;
        }
        g.findings.iter().rev().find(|(_, t, _)| *t == p).map(|(_, _, m)| *m)
    };
    let mafia_left = pool.iter().filter(|r| **r == Role::Mafioso).count();
    let mut must: Vec<Player> = unknown.iter().copied().filter(|p| found(*p) == Some(true)).collect();
    let mut may: Vec<Player> = unknown.iter().copied().filter(|p| found(*p).is_none()).collect();
    rng.shuffle(&mut may);
    must.extend(may.into_iter().take(mafia_left.saturating_sub(must.len())));
    let mut rest: Vec<Role> = pool.into_iter().filter(|r| *r != Role::Mafioso).collect();
    rng.shuffle(&mut rest);
    for p in &unknown {
        s.roles[usize::from(*p)] = if must.contains(p) { Role::Mafioso } else { rest.pop().unwrap_or(Role::Villager) };
    }
    // What only the Doctor and the Cop know belongs to whoever holds the role in the sample.
    if mine != Role::Doctor {
        s.last_protected = None;
    }
    if mine != Role::Cop {
        s.findings.clear();
    }
    // The choices made at the step now that `me` may not see are drawn again, as the
    // conventions expect them (`crate::policy`); those still to come stay to come (who has
    // acted is public), and `me` acts first.
    let sees = |p: Player| p == me || (mine == Role::Mafioso && g.role(p) == Role::Mafioso && g.phase == crate::Phase::Night);
    for p in 0..n {
        if s.is_alive(p) && !sees(p) && g.choices[usize::from(p)].is_some() {
            s.choices[usize::from(p)] = None;
            let moves = s.moves_of(p);
            if !moves.is_empty() {
                s.choices[usize::from(p)] = Some(moves[crate::policy::choose(&s, p, &moves, rng).min(moves.len() - 1)]);
            }
        }
    }
    s.first = Some(me);
    Some(s)
}
