//! Diplomacy for learning programs: a fixed vocabulary of orders and an observation per power.
//!
//! The vocabulary numbers every move any position may offer, built once from the map: for each
//! place a unit may stand, its hold, its moves (an army's also across the sea to every other
//! coast, and by land `via convoy` where a land route exists), its supports of a hold or a move
//! into every province it reaches, a fleet at sea's convoys from every coast to every other;
//! each dislodged unit's retreats and its disband; each build in a home centre, each removal;
//! waive; done. A move's id does not depend on the position, so that a policy's output layer
//! is the same at every step; the legal moves of a power are a mask over it. Each move but
//! waive and done is of a province's group (the unit there, or a build there): a power's mask
//! splits into one per unit.
//!
//! A power observes, for each province: the unit standing there (army or fleet, by power), a
//! dislodged unit there (by power), the centre's owner (by power), whether it is a supply centre,
//! and whether its own unit there has been given its order this phase; then the phase, the
//! season, the year, which power it is and which powers are done. The other powers' orders of
//! the phase now are never in it.

use super::{Diplomacy, Move, Phase, Season};
use crate::map::{standard, Loc, Power, Province, Terrain, UnitKind};
use crate::orders::Order;
use arbiter_kernel::learn::{Encoding, Frame};
use arbiter_kernel::Seat;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The moves of the vocabulary, by id, and each move's id.
pub struct Vocabulary {
    pub moves: Vec<Move>,
    ids: HashMap<Move, u32>,
}

impl Vocabulary {
    pub fn id(&self, m: &Move) -> Option<u32> {
        self.ids.get(m).copied()
    }

    /// The group of move `id`: the province of the unit it orders, retreats or removes, or of
    /// the build; `None` for waive and done (and for no move). A power gives at most one move
    /// of each group in a phase, so its legal moves split into a mask per unit.
    pub fn group(&self, id: u32) -> Option<u16> {
        let at = match self.moves.get(id as usize)? {
            Move::Order { at, .. } | Move::Retreat { at, .. } | Move::Build { at, .. } | Move::Remove { at } => *at,
            Move::Waive | Move::Done => return None,
        };
        Some(u16::from(standard().province(at).0))
    }
}

/// The vocabulary of the standard map, built on first use.
pub fn vocabulary() -> &'static Vocabulary {
    static V: OnceLock<Vocabulary> = OnceLock::new();
    V.get_or_init(build)
}

fn build() -> Vocabulary {
    let m = standard();
    let provinces: Vec<Province> = (0..m.province_count()).map(|q| Province(q as u8)).collect();
    let coastal = |p: Province| m.terrain(p) == Terrain::Coast;
    let mut moves: Vec<Move> = Vec::new();
    for l in (0..m.location_count()).map(|l| Loc(l as u8)) {
        let here = m.province(l);
        for kind in [UnitKind::Army, UnitKind::Fleet].into_iter().filter(|k| m.can_stand(*k, l)) {
            let mut orders = vec![Order::Hold];
            for &q in provinces.iter().filter(|q| **q != here) {
                match kind {
                    UnitKind::Army => {
                        let by_land = m.army_adjacent(here, q);
                        if by_land || (coastal(here) && coastal(q)) {
                            orders.push(Order::Move { to: Loc(q.0), via_convoy: false });
                        }
                        if by_land && coastal(here) && coastal(q) {
                            orders.push(Order::Move { to: Loc(q.0), via_convoy: true });
                        }
                    }
                    UnitKind::Fleet => orders.extend(m.fleet_targets(l, q).into_iter().map(|to| Order::Move { to, via_convoy: false })),
                }
            }
            // Supports into each province this unit reaches: of a hold there, of a move there
            // from any other province (a unit that could move there is checked by the position).
            for &dest in provinces.iter().filter(|q| **q != here && m.reaches(kind, l, **q)) {
                orders.push(Order::Support { target: dest, to: None, coast: None });
                for &from in provinces.iter().filter(|q| **q != here && **q != dest) {
                    let could =
                        m.army_adjacent(from, dest) || m.sea_neighbours(from).any(|s| s == dest) || (coastal(from) && coastal(dest));
                    if could {
                        orders.push(Order::Support { target: from, to: Some(dest), coast: None });
                    }
                }
            }
            if kind == UnitKind::Fleet && m.terrain(here) == Terrain::Sea {
                for &from in provinces.iter().filter(|q| coastal(**q)) {
                    for &to in provinces.iter().filter(|q| coastal(**q) && **q != from) {
                        orders.push(Order::Convoy { from, to });
                    }
                }
            }
            moves.extend(orders.into_iter().map(|order| Move::Order { at: l, order }));
            // Retreats: to every place this unit could move to, or disband.
            for &q in provinces.iter().filter(|q| **q != here) {
                match kind {
                    UnitKind::Army if m.army_adjacent(here, q) => moves.push(Move::Retreat { at: l, to: Some(Loc(q.0)) }),
                    UnitKind::Army => {}
                    UnitKind::Fleet => moves.extend(m.fleet_targets(l, q).into_iter().map(|to| Move::Retreat { at: l, to: Some(to) })),
                }
            }
            moves.push(Move::Retreat { at: l, to: None });
        }
        moves.push(Move::Remove { at: l });
        if m.data(here).home.is_some() {
            for kind in [UnitKind::Army, UnitKind::Fleet].into_iter().filter(|k| m.can_stand(*k, l)) {
                moves.push(Move::Build { kind, at: l });
            }
        }
    }
    moves.push(Move::Waive);
    moves.push(Move::Done);
    let mut ids = HashMap::with_capacity(moves.len());
    let mut unique = Vec::with_capacity(moves.len());
    for mv in moves {
        if !ids.contains_key(&mv) {
            ids.insert(mv, unique.len() as u32);
            unique.push(mv);
        }
    }
    Vocabulary { moves: unique, ids }
}

/// Values per province: army and fleet by power (14), dislodged by power (7), owner by power
/// (7), supply centre (1), own unit ordered (1).
const PER_PROVINCE: usize = 30;
/// Then: phase (3), season (3), year (1), the power observing (7), powers done (7).
const TAIL: usize = 21;

const FRAMES: [&str; 3] = ["movement", "retreat", "adjustment"];

impl Diplomacy {
    pub(super) fn encoding(&self) -> Encoding {
        Encoding {
            actions: vocabulary().moves.len() as u32,
            observation: vec![standard().province_count() * PER_PROVINCE + TAIL],
            frames: FRAMES.iter().map(|f| f.to_string()).collect(),
            groups: (0..standard().province_count()).map(|q| standard().short(Loc(q as u8))).collect(),
        }
    }

    pub(super) fn frame(&self) -> Option<Frame> {
        let p = self.powers().find(|p| self.must_act(*p))?;
        let kind = match self.phase {
            Phase::Movement => 0,
            Phase::Retreat => 1,
            Phase::Adjustment => 2,
        };
        Some(Frame { seat: Seat(p.0), kind })
    }

    pub(super) fn observation_len(&self) -> usize {
        standard().province_count() * PER_PROVINCE + TAIL
    }

    pub(super) fn observe(&self, seat: Seat, out: &mut [f32]) {
        out.fill(0.0);
        let m = standard();
        let n = m.province_count();
        let powers = m.powers.len();
        let me = (usize::from(seat.0) < powers).then_some(Power(seat.0));
        for (i, u) in self.units.iter().enumerate() {
            let q = usize::from(m.province(u.at).0);
            let p = usize::from(u.power.0);
            let base = q * PER_PROVINCE;
            if self.options[i].is_some() {
                out[base + 14 + p] = 1.0;
            } else {
                out[base + p + if u.kind == UnitKind::Fleet { powers } else { 0 }] = 1.0;
            }
            let ordered = self.orders[i].is_some() || self.retreats[i].is_some();
            if Some(u.power) == me && ordered {
                out[base + 29] = 1.0;
            }
        }
        for q in 0..n {
            let base = q * PER_PROVINCE;
            if let Some(o) = self.owner[q] {
                out[base + 21 + usize::from(o.0)] = 1.0;
            }
            if m.data(Province(q as u8)).supply_centre {
                out[base + 28] = 1.0;
            }
        }
        let tail = n * PER_PROVINCE;
        out[tail + usize::from(matches!(self.phase, Phase::Retreat)) + 2 * usize::from(matches!(self.phase, Phase::Adjustment))] = 1.0;
        out[tail
            + 3
            + match self.season {
                Season::Spring => 0,
                Season::Fall => 1,
                Season::Winter => 2,
            }] = 1.0;
        out[tail + 6] = (f32::from(self.year - 1901) / 200.0).min(1.0);
        if let Some(p) = me {
            out[tail + 7 + usize::from(p.0)] = 1.0;
        }
        for p in self.powers().filter(|p| self.done[usize::from(p.0)]) {
            out[tail + 14 + usize::from(p.0)] = 1.0;
        }
    }
}
