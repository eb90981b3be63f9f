//! How the computer expects a power to play with no talk at the table, in its playouts and for
//! the orders it cannot see (D11): each unit makes for the nearest supply centre its power does
//! not own, supports its own units' moves and holds, and convoys its own armies; a unit
//! standing on a centre it does not own in the Fall holds it. A power follows these conventions
//! three orders in four, else orders at random among the orders it considers.
//!
//! The orders considered (`candidates`) are a unit's hold, its moves by land or sea (an army
//! also across one sea where a fleet of its own stands), supports of its own units and convoys
//! of its own armies: the orders a power gains by without talk. Units are ordered one after the
//! other, the armies first, and a power is done when each has its order.

use super::{Diplomacy, Move, Phase, Season};
use crate::map::{standard, Loc, Map, Power, Province, Terrain, UnitKind};
use crate::orders::Order;
use arbiter_kernel::Randomness;
use std::sync::OnceLock;

/// Moves between every location and every province, for an army and for a fleet (`u8::MAX`:
/// never), by breadth-first search over the map's adjacencies.
struct Distances {
    locs: usize,
    provinces: usize,
    army: Vec<u8>,
    fleet: Vec<u8>,
}

fn distances() -> &'static Distances {
    static D: OnceLock<Distances> = OnceLock::new();
    D.get_or_init(|| {
        let m = standard();
        let (locs, provinces) = (m.location_count(), m.province_count());
        let mut army = vec![u8::MAX; locs * provinces];
        let mut fleet = vec![u8::MAX; locs * provinces];
        for from in 0..locs {
            for (kind, table) in [(UnitKind::Army, &mut army), (UnitKind::Fleet, &mut fleet)] {
                let mut seen = vec![u8::MAX; locs];
                seen[from] = 0;
                let mut queue = std::collections::VecDeque::from([from]);
                while let Some(l) = queue.pop_front() {
                    for next in 0..locs {
                        let adjacent = match kind {
                            UnitKind::Army => {
                                m.coast(Loc(next as u8)).is_none()
                                    && m.terrain(Province(next as u8)) != Terrain::Sea
                                    && m.coast(Loc(l as u8)).is_none()
                                    && m.army_adjacent(Province(l as u8), Province(next as u8))
                            }
                            UnitKind::Fleet => m.fleet_adjacent(Loc(l as u8), Loc(next as u8)),
                        };
                        if adjacent && seen[next] == u8::MAX {
                            seen[next] = seen[l] + 1;
                            queue.push_back(next);
                        }
                    }
                }
                for (l, d) in seen.iter().enumerate() {
                    let p = usize::from(m.province(Loc(l as u8)).0);
                    let cell = &mut table[from * provinces + p];
                    *cell = (*cell).min(*d);
                }
            }
        }
        Distances { locs, provinces, army, fleet }
    })
}

impl Distances {
    fn get(&self, kind: UnitKind, from: Loc, to: Province) -> u8 {
        debug_assert!(usize::from(from.0) < self.locs);
        let i = usize::from(from.0) * self.provinces + usize::from(to.0);
        match kind {
            UnitKind::Army => self.army[i],
            UnitKind::Fleet => self.fleet[i],
        }
    }
}

/// Moves from `at` to the nearest supply centre `p` does not own (`u8::MAX`: none reachable).
fn to_nearest_centre(g: &Diplomacy, m: &Map, p: Power, kind: UnitKind, at: Loc) -> u8 {
    let d = distances();
    (0..m.province_count())
        .map(|q| Province(q as u8))
        .filter(|q| m.data(*q).supply_centre && g.owner[usize::from(q.0)] != Some(p))
        .map(|q| d.get(kind, at, q))
        .min()
        .unwrap_or(u8::MAX)
}

impl Diplomacy {
    /// The unit of `p` ordered next in the movement phase: its first army with no order, then
    /// its first fleet (so that a fleet may convoy or support an army's move).
    pub(super) fn next_unordered(&self, p: Power) -> Option<usize> {
        let unordered = |i: &usize| self.units[*i].power == p && self.orders[*i].is_none();
        (0..self.units.len())
            .filter(unordered)
            .find(|i| self.units[*i].kind == UnitKind::Army)
            .or_else(|| (0..self.units.len()).find(unordered))
    }

    /// The orders considered for unit `i` (a subset of its legal orders).
    pub(super) fn candidates(&self, i: usize) -> Vec<Order> {
        let m = standard();
        let u = self.units[i];
        let here = m.province(u.at);
        let coastal = |p: Province| m.terrain(p) == Terrain::Coast;
        let mut out = vec![Order::Hold];
        let own: Vec<usize> = (0..self.units.len()).filter(|j| *j != i && self.units[*j].power == u.power).collect();
        match u.kind {
            UnitKind::Army => {
                for q in (0..m.province_count()).map(|q| Province(q as u8)).filter(|q| m.army_adjacent(here, *q)) {
                    out.push(Order::Move { to: Loc(q.0), via_convoy: false });
                }
                // Across one sea where a fleet of its own stands.
                if coastal(here) {
                    for &j in &own {
                        let f = self.units[j];
                        let sea = m.province(f.at);
                        if f.kind != UnitKind::Fleet || m.terrain(sea) != Terrain::Sea || !m.sea_neighbours(sea).any(|s| s == here) {
                            continue;
                        }
                        for q in m.sea_neighbours(sea) {
                            let to = Order::Move { to: Loc(q.0), via_convoy: false };
                            if q != here && coastal(q) && !m.army_adjacent(here, q) && !out.contains(&to) {
                                out.push(to);
                            }
                        }
                    }
                }
            }
            UnitKind::Fleet => {
                let mut near: Vec<Province> = m.sea_neighbours(here).filter(|q| *q != here).collect();
                near.dedup();
                for q in near {
                    for to in m.fleet_targets(u.at, q) {
                        let o = Order::Move { to, via_convoy: false };
                        if !out.contains(&o) {
                            out.push(o);
                        }
                    }
                }
            }
        }
        for &j in &own {
            let v = self.units[j];
            let from = m.province(v.at);
            match self.orders[j] {
                Some(Order::Move { to, .. }) => {
                    let dest = m.province(to);
                    if dest != here && m.reaches(u.kind, u.at, dest) {
                        out.push(Order::Support { target: from, to: Some(dest), coast: None });
                    }
                    let convoyed = v.kind == UnitKind::Army && !m.army_adjacent(from, dest);
                    if convoyed && u.kind == UnitKind::Fleet && m.terrain(here) == Terrain::Sea {
                        let touches = |p: Province| m.sea_neighbours(here).any(|s| s == p);
                        if touches(from) && touches(dest) {
                            out.push(Order::Convoy { from, to: dest });
                        }
                    }
                }
                _ if m.reaches(u.kind, u.at, from) => out.push(Order::Support { target: from, to: None, coast: None }),
                _ => {}
            }
        }
        out
    }

    /// The index among `moves` (the moves considered now, never empty) the power deciding
    /// first chooses by the conventions.
    pub(super) fn conventional(&self, moves: &[Move], rng: &mut Randomness) -> usize {
        let random = |rng: &mut Randomness| rng.pick(moves.len()).unwrap_or(0);
        if moves.len() <= 1 {
            return 0;
        }
        if rng.pick(4) == Ok(0) {
            return random(rng);
        }
        let m = standard();
        let scores: Vec<i32> = moves.iter().map(|mv| self.worth(m, mv)).collect();
        let best = scores.iter().copied().max().unwrap_or(0);
        let top: Vec<usize> = (0..moves.len()).filter(|i| scores[*i] == best).collect();
        top[rng.pick(top.len()).unwrap_or(0)]
    }

    /// How much a power gains by `mv`, by the conventions.
    fn worth(&self, m: &Map, mv: &Move) -> i32 {
        let centre_not_owned = |q: Province, p: Power| m.data(q).supply_centre && self.owner[usize::from(q.0)] != Some(p);
        match *mv {
            Move::Order { at, order } => {
                let Some(i) = self.unit_in(m.province(at)) else { return 0 };
                let u = self.units[i];
                let here = m.province(u.at);
                let near_now = i32::from(to_nearest_centre(self, m, u.power, u.kind, u.at));
                match order {
                    Order::Hold => {
                        if centre_not_owned(here, u.power) && self.season == Season::Fall {
                            8
                        } else {
                            0
                        }
                    }
                    Order::Move { to, .. } => {
                        let dest = m.province(to);
                        let taken = (0..self.units.len()).any(|j| {
                            j != i
                                && self.units[j].power == u.power
                                && match self.orders[j] {
                                    Some(Order::Move { to: t, .. }) => m.province(t) == dest,
                                    Some(Order::Hold | Order::Support { .. } | Order::Convoy { .. }) | None => {
                                        m.province(self.units[j].at) == dest
                                    }
                                }
                        });
                        if taken {
                            return -10;
                        }
                        let near_then = i32::from(to_nearest_centre(self, m, u.power, u.kind, to));
                        let mut w = 2 * (near_now - near_then).clamp(-3, 3);
                        if centre_not_owned(dest, u.power) {
                            w += 6;
                        }
                        if centre_not_owned(here, u.power) && self.season == Season::Fall {
                            w -= 6;
                        }
                        w
                    }
                    Order::Support { to: Some(dest), .. } => {
                        if centre_not_owned(dest, u.power) {
                            5
                        } else {
                            1
                        }
                    }
                    Order::Support { target, to: None, .. } => i32::from(m.data(target).supply_centre),
                    Order::Convoy { .. } => 9,
                }
            }
            Move::Retreat { at, to: Some(to) } => match self.dislodged_in(m.province(at)) {
                Some(i) => 20 - i32::from(to_nearest_centre(self, m, self.units[i].power, self.units[i].kind, to).min(20)),
                None => 0,
            },
            Move::Retreat { to: None, .. } => 0,
            Move::Build { kind, at } => {
                // A fleet where the sea is near, an army inland.
                let p = m.data(m.province(at)).home.unwrap_or(Power(0));
                20 - i32::from(to_nearest_centre(self, m, p, kind, at).min(20))
            }
            Move::Remove { at } => {
                let Some(i) = self.unit_in(m.province(at)) else { return 0 };
                let u = self.units[i];
                i32::from(to_nearest_centre(self, m, u.power, u.kind, u.at).min(30))
            }
            Move::Waive | Move::Done => -1,
        }
    }

    /// The moves the computer considers for the power deciding first: the orders considered
    /// for its next unit; a retreat or disband of its next dislodged unit; its builds (or a
    /// waive) or removals still due; `done` when nothing is left.
    pub(super) fn considered(&self) -> Vec<Move> {
        self.powers().find(|p| self.must_act(*p)).map(|p| self.considered_by(p)).unwrap_or_default()
    }

    /// The moves the computer considers for power `p` (which must act).
    fn considered_by(&self, p: Power) -> Vec<Move> {
        match self.phase {
            Phase::Movement => match self.next_unordered(p) {
                Some(i) => self.candidates(i).into_iter().map(|order| Move::Order { at: self.units[i].at, order }).collect(),
                None => vec![Move::Done],
            },
            Phase::Retreat => {
                match (0..self.units.len()).find(|i| self.units[*i].power == p && self.options[*i].is_some() && self.retreats[*i].is_none())
                {
                    Some(i) => {
                        let at = self.units[i].at;
                        let mut out: Vec<Move> = self.options[i].iter().flatten().map(|to| Move::Retreat { at, to: Some(*to) }).collect();
                        out.push(Move::Retreat { at, to: None });
                        out
                    }
                    None => vec![Move::Done],
                }
            }
            // The builds (or a waive) and removals still due, then done.
            Phase::Adjustment => {
                let left: Vec<Move> = self.moves_of(p).into_iter().filter(|mv| *mv != Move::Done).collect();
                if left.is_empty() {
                    vec![Move::Done]
                } else {
                    left
                }
            }
        }
    }

    /// The power's orders for the phase now by the conventions, then done.
    pub(super) fn play_conventionally(&mut self, p: Power, rng: &mut Randomness) {
        while self.must_act(p) {
            let moves = self.considered_by(p);
            let Some(mv) = moves.get(self.conventional(&moves, rng)).copied() else { break };
            if self.play(p, mv).is_err() {
                break;
            }
        }
    }

    /// How good the position is for `p`, from 0 to 1: the centres it would hold were the
    /// centres to change hands now (a unit on a centre takes it), of the 18 that win.
    pub(super) fn prospect(&self, p: Power) -> f64 {
        let m = standard();
        let mut held = self.owner.clone();
        for u in &self.units {
            let q = m.province(u.at);
            if m.data(q).supply_centre {
                held[usize::from(q.0)] = Some(u.power);
            }
        }
        let n = held.iter().filter(|o| **o == Some(p)).count();
        (n as f64 / super::VICTORY as f64).min(1.0)
    }

    /// What `seat` may not see taken back and drawn by the conventions: the orders the other
    /// powers have given in the phase now are forgotten; each power done (that is public) or
    /// listed before `p` orders again by the conventions and is done (so that `p` decides
    /// first), the others order after it.
    pub(super) fn sample_for(&self, p: Power, rng: &mut Randomness) -> Diplomacy {
        let mut g = self.clone();
        let again: Vec<Power> = self.powers().filter(|q| *q != p && (q.0 < p.0 || self.done[usize::from(q.0)])).collect();
        for q in self.powers().filter(|q| *q != p) {
            let k = usize::from(q.0);
            for i in 0..g.units.len() {
                if g.units[i].power == q {
                    g.orders[i] = None;
                    g.retreats[i] = None;
                }
            }
            g.adjustments[k].clear();
            g.done[k] = false;
        }
        for q in again {
            g.play_conventionally(q, rng);
        }
        g
    }
}
