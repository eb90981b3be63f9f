//! The movement phase's adjudication: every order is resolved together, by the algorithm of
//! the DATC's section 5 (L. B. Kruijswijk, "The Math of Adjudication"): each order's decision
//! (a move succeeds; a support is given; a convoy holds) is asked of the strengths it depends on;
//! a decision that depends on itself is tried both ways, and where both answers hold (or
//! neither) the backup rule decides (RULINGS.md D05): a cycle with a convoy in it is a convoy
//! paradox, settled by the Szykman rule (the convoys in it fail); any other is circular
//! movement, every move in it succeeding.

use crate::map::{Loc, Map, Power, Province, Terrain, UnitKind};
use crate::orders::{Order, Unit};

/// The units on the board and each one's order (a unit with no order holds).
#[derive(Clone, Debug, Default)]
pub struct Board {
    pub units: Vec<Unit>,
    pub orders: Vec<Order>,
}

/// What became of each unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Each unit's order succeeded (a move made, a support given, a convoy held).
    pub succeeded: Vec<bool>,
    /// Where each unit stands now (a dislodged unit where it was).
    pub at: Vec<Loc>,
    /// The units dislodged, each with where its attacker came from.
    pub dislodged: Vec<Option<Dislodgement>>,
    /// The provinces left empty by a standoff (moves with a way there, none succeeding): no
    /// unit retreats to one.
    pub contested: Vec<Province>,
}

/// How a unit was dislodged: from where its attacker came, and whether by convoy (a unit may
/// retreat to where a convoyed attacker came from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dislodgement {
    pub from: Province,
    pub by_convoy: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unresolved,
    Guessing,
    Resolved,
}

struct Resolver<'a> {
    map: &'a Map,
    units: &'a [Unit],
    orders: &'a [Order],
    /// The unit in each province.
    at: Vec<Option<usize>>,
    state: Vec<State>,
    result: Vec<bool>,
    deps: Vec<usize>,
    /// Each move's destination province, and whether it goes by convoy.
    dest: Vec<Option<Province>>,
    convoyed: Vec<bool>,
}

impl Board {
    /// The unit in province `p`, if any.
    pub fn unit_in(&self, map: &Map, p: Province) -> Option<usize> {
        self.units.iter().position(|u| map.province(u.at) == p)
    }
}

/// Adjudicate the movement phase of `board`.
pub fn adjudicate(map: &Map, board: &Board) -> Outcome {
    let n = board.units.len();
    let mut at = vec![None; map.province_count()];
    for (i, u) in board.units.iter().enumerate() {
        at[usize::from(map.province(u.at).0)] = Some(i);
    }
    let dest: Vec<Option<Province>> = board
        .orders
        .iter()
        .map(|o| match o {
            Order::Move { to, .. } => Some(map.province(*to)),
            Order::Hold | Order::Support { .. } | Order::Convoy { .. } => None,
        })
        .collect();
    let mut r = Resolver {
        map,
        units: &board.units,
        orders: &board.orders,
        at,
        state: vec![State::Unresolved; n],
        result: vec![false; n],
        deps: Vec::new(),
        dest,
        convoyed: vec![false; n],
    };
    for i in 0..n {
        r.convoyed[i] = r.is_convoyed(i);
    }
    // A move by convoy that no fleets on the board could carry is not carried out: the army
    // holds, and may be supported to hold (DATC 4.E.1, 6.D.32). With such fleets, ordered to
    // convoy it or not, it is a move that fails without them (6.D.8).
    // An army ordered by convoy to an adjacent province with no convoy ordered that could carry
    // it goes by land (DATC 4.A.3, the 2000 rules as DATC 2.x reads them, 6.G.8).
    let mut orders = board.orders.clone();
    for i in 0..n {
        if let (true, Some(to)) = (r.convoyed[i], r.dest[i]) {
            if map.army_adjacent(r.province(i), to) && !r.convoy_ordered(i) {
                r.convoyed[i] = false;
            } else if !r.has_convoy(i) {
                orders[i] = Order::Hold;
                r.dest[i] = None;
                r.convoyed[i] = false;
            }
        }
    }
    r.orders = &orders;
    let succeeded: Vec<bool> = (0..n).map(|i| r.resolve(i)).collect();
    let mut out_at: Vec<Loc> = board.units.iter().map(|u| u.at).collect();
    let mut dislodged = vec![None; n];
    for i in 0..n {
        if let (Order::Move { to, .. }, true) = (orders[i], succeeded[i]) {
            out_at[i] = to;
            let p = map.province(to);
            if let Some(j) = r.at[usize::from(p.0)] {
                let moved_away = matches!(orders[j], Order::Move { .. }) && succeeded[j];
                if !moved_away {
                    dislodged[j] = Some(Dislodgement { from: map.province(board.units[i].at), by_convoy: r.convoyed[i] });
                }
            }
        }
    }
    for i in 0..n {
        if dislodged[i].is_some() {
            out_at[i] = board.units[i].at;
        }
    }
    let occupied: Vec<Province> = (0..n).filter(|i| dislodged[*i].is_none()).map(|i| map.province(out_at[i])).collect();
    let mut contested: Vec<Province> = Vec::new();
    for j in 0..n {
        if let (Some(p), false) = (r.dest[j], succeeded[j]) {
            // A unit dislodged by the unit from where it was going leaves no standoff there
            // (DATC 6.H.9); one dislodged from elsewhere still does.
            let lost_head_to_head = dislodged[j].is_some_and(|d| d.from == p);
            if !lost_head_to_head && !occupied.contains(&p) && !contested.contains(&p) && r.path(j) {
                contested.push(p);
            }
        }
    }
    Outcome { succeeded, at: out_at, dislodged, contested }
}

impl Resolver<'_> {
    fn power(&self, i: usize) -> Power {
        self.units[i].power
    }

    fn province(&self, i: usize) -> Province {
        self.map.province(self.units[i].at)
    }

    fn unit_in(&self, p: Province) -> Option<usize> {
        self.at[usize::from(p.0)]
    }

    /// Whether move `i` goes by convoy (D04): an army ordered `via convoy`, or to a province it
    /// is not adjacent to, or to an adjacent one while a fleet of its own power is ordered to
    /// convoy it there on a route it is needed on (the 2000 rules' intent, DATC 4.A.3, 4.E.1).
    fn is_convoyed(&self, i: usize) -> bool {
        let (Order::Move { via_convoy, .. }, Some(to)) = (self.orders[i], self.dest[i]) else { return false };
        if self.units[i].kind != UnitKind::Army {
            return false;
        }
        if via_convoy || !self.map.army_adjacent(self.province(i), to) {
            return true;
        }
        let from = self.province(i);
        self.convoying(from, to).into_iter().any(|f| self.power(f) == self.power(i) && self.needed(from, to, f))
    }

    /// The fleets at sea ordered to convoy the army in `from` to `to`.
    fn convoying(&self, from: Province, to: Province) -> Vec<usize> {
        (0..self.units.len())
            .filter(|f| self.orders[*f] == Order::Convoy { from, to } && self.map.terrain(self.province(*f)) == Terrain::Sea)
            .collect()
    }

    /// Whether fleet `f`'s convoy from `from` to `to` is legal (DATC 4.E.1): the fleet is on a
    /// route of seas from one to the other that needs each of its seas (each next to the one
    /// before, none next to a place on the route but its neighbours on it), whether or not
    /// fleets stand on the others.
    fn needed(&self, from: Province, to: Province, f: usize) -> bool {
        let seas: Vec<Province> =
            (0..self.map.province_count()).map(|p| Province(p as u8)).filter(|p| self.map.terrain(*p) == Terrain::Sea).collect();
        let mut chain = Vec::new();
        self.walk(&mut chain, &seas, (from, to), self.province(f))
    }

    /// Whether fleets at sea stand where they could carry move `i` (whatever their orders).
    fn has_convoy(&self, i: usize) -> bool {
        let fleets: Vec<usize> = (0..self.units.len())
            .filter(|f| self.units[*f].kind == UnitKind::Fleet && self.map.terrain(self.province(*f)) == Terrain::Sea)
            .collect();
        self.route_over(i, &fleets)
    }

    /// Whether the fleets ordered to convoy move `i` could carry it, all of them holding.
    fn convoy_ordered(&self, i: usize) -> bool {
        let Some(to) = self.dest[i] else { return false };
        self.route_over(i, &self.convoying(self.province(i), to))
    }

    /// Whether `fleets` stand in a chain of seas from move `i`'s province to its destination.
    fn route_over(&self, i: usize, fleets: &[usize]) -> bool {
        let Some(to) = self.dest[i] else { return false };
        let from = self.province(i);
        let seas: Vec<Province> = fleets.iter().map(|f| self.province(*f)).collect();
        let mut reached = vec![from];
        let mut frontier = vec![from];
        while let Some(p) = frontier.pop() {
            let next: Vec<Province> = self.map.sea_neighbours(p).collect();
            if p != from && next.contains(&to) {
                return true;
            }
            for &s in &seas {
                if !reached.contains(&s) && next.contains(&s) {
                    reached.push(s);
                    frontier.push(s);
                }
            }
        }
        false
    }

    /// Extend `chain` (the seas of a route so far, from `ends.0`) towards `ends.1`; whether a
    /// route that needs each of its seas, through `target`, is found.
    fn walk(&self, chain: &mut Vec<Province>, seas: &[Province], ends: (Province, Province), target: Province) -> bool {
        let near = |a: Province, b: Province| self.map.sea_neighbours(a).any(|x| x == b);
        let (from, to) = ends;
        let last = *chain.last().unwrap_or(&from);
        if !chain.is_empty() && near(last, to) {
            return chain.contains(&target);
        }
        for &s in seas {
            if chain.contains(&s) || !near(last, s) {
                continue;
            }
            // No shortcut: the new sea is next to neither the start (unless it is the first)
            // nor any sea before the last.
            let k = chain.len();
            if (k > 0 && near(from, s)) || chain[..k.saturating_sub(1)].iter().any(|x| near(*x, s)) {
                continue;
            }
            chain.push(s);
            if self.walk(chain, seas, ends, target) {
                return true;
            }
            chain.pop();
        }
        false
    }

    fn resolve(&mut self, i: usize) -> bool {
        match self.state[i] {
            State::Resolved => return self.result[i],
            State::Guessing => {
                // Every read of a guess is recorded (once more if read before): whatever read
                // it depends on the guess, and is not resolved until the guess is.
                self.deps.push(i);
                return self.result[i];
            }
            State::Unresolved => {}
        }
        let old = self.deps.len();
        self.result[i] = false;
        self.state[i] = State::Guessing;
        let first = self.adjudicate(i);
        if self.deps.len() == old {
            if self.state[i] != State::Resolved {
                self.result[i] = first;
                self.state[i] = State::Resolved;
            }
            return first;
        }
        if self.deps[old] != i {
            // Part of a cycle found further up: the first of it decides.
            self.deps.push(i);
            self.result[i] = first;
            return first;
        }
        // `i` is the first of a cycle: try the other guess.
        for d in self.deps.drain(old..) {
            self.state[d] = State::Unresolved;
        }
        self.result[i] = true;
        self.state[i] = State::Guessing;
        let second = self.adjudicate(i);
        if first == second {
            for d in self.deps.drain(old..) {
                self.state[d] = State::Unresolved;
            }
            self.result[i] = first;
            self.state[i] = State::Resolved;
            return first;
        }
        self.backup(old);
        self.resolve(i)
    }

    /// D05: a cycle with two consistent answers or none.
    fn backup(&mut self, old: usize) {
        let cycle: Vec<usize> = self.deps.drain(old..).collect();
        let paradox = cycle.iter().any(|d| matches!(self.orders[*d], Order::Convoy { .. }));
        for &d in &cycle {
            match (paradox, self.orders[d]) {
                // Szykman: the convoys of a paradox fail, their armies stay where they are.
                (true, Order::Convoy { .. }) => {
                    self.result[d] = false;
                    self.state[d] = State::Resolved;
                }
                // Circular movement: every move in the circle succeeds.
                (false, Order::Move { .. }) => {
                    self.result[d] = true;
                    self.state[d] = State::Resolved;
                }
                _ => self.state[d] = State::Unresolved,
            }
        }
    }

    fn adjudicate(&mut self, i: usize) -> bool {
        match self.orders[i] {
            Order::Hold => true,
            Order::Move { .. } => self.move_succeeds(i),
            Order::Support { .. } => self.support_given(i),
            Order::Convoy { .. } => !self.dislodged(i),
        }
    }

    /// The moves to province `p` other than `except`.
    fn moves_to(&self, p: Province, except: usize) -> Vec<usize> {
        (0..self.units.len()).filter(|j| *j != except && self.dest[*j] == Some(p)).collect()
    }

    /// The unit at move `i`'s destination moving to `i`'s province, neither by convoy.
    fn head_to_head(&self, i: usize) -> Option<usize> {
        let d = self.unit_in(self.dest[i]?)?;
        (self.dest[d] == Some(self.province(i)) && !self.convoyed[i] && !self.convoyed[d]).then_some(d)
    }

    fn move_succeeds(&mut self, i: usize) -> bool {
        let Some(to) = self.dest[i] else { return false };
        if !self.path(i) {
            return false;
        }
        let attack = self.attack(i);
        match self.head_to_head(i) {
            Some(d) => {
                if attack <= self.defend(d) {
                    return false;
                }
            }
            None => {
                if attack <= self.hold(to) {
                    return false;
                }
            }
        }
        for j in self.moves_to(to, i) {
            if attack <= self.prevent(j) {
                return false;
            }
        }
        true
    }

    /// Whether move `i` has a way: by land, or by a chain of fleets convoying it that hold.
    fn path(&mut self, i: usize) -> bool {
        let Some(to) = self.dest[i] else { return false };
        if !self.convoyed[i] {
            return match self.units[i].kind {
                UnitKind::Army => self.map.army_adjacent(self.province(i), to),
                UnitKind::Fleet => true,
            };
        }
        let from = self.province(i);
        let fleets = self.convoying(from, to);
        // A walk from the army's coast over convoying fleets that hold to its destination.
        let mut reached: Vec<Province> = vec![from];
        let mut frontier = vec![from];
        let mut holding: Vec<Option<bool>> = vec![None; fleets.len()];
        while let Some(p) = frontier.pop() {
            let next: Vec<Province> = self.map.sea_neighbours(p).collect();
            if p != from && next.contains(&to) {
                return true;
            }
            for (k, &f) in fleets.iter().enumerate() {
                let fp = self.province(f);
                if reached.contains(&fp) || !next.contains(&fp) {
                    continue;
                }
                let holds = match holding[k] {
                    Some(h) => h,
                    None => {
                        let h = self.resolve(f);
                        holding[k] = Some(h);
                        h
                    }
                };
                if holds {
                    reached.push(fp);
                    frontier.push(fp);
                }
            }
        }
        false
    }

    /// The supports given to the unit in `target` (moving to `to`, or holding), by unit.
    fn supports(&mut self, target: Province, to: Option<Province>) -> Vec<usize> {
        let mut given = Vec::new();
        for s in 0..self.units.len() {
            if matches!(self.orders[s], Order::Support { target: t, to: d, .. } if t == target && d == to) && self.resolve(s) {
                given.push(s);
            }
        }
        given
    }

    /// A support of `i`'s move, or of it holding: what it counts for.
    fn support_of_move(&mut self, i: usize) -> Vec<usize> {
        self.supports(self.province(i), self.dest[i])
    }

    fn hold(&mut self, p: Province) -> u32 {
        let Some(d) = self.unit_in(p) else { return 0 };
        match self.orders[d] {
            Order::Move { .. } => u32::from(!self.resolve(d)),
            Order::Hold | Order::Support { .. } | Order::Convoy { .. } => 1 + self.supports(p, None).len() as u32,
        }
    }

    fn attack(&mut self, i: usize) -> u32 {
        if !self.path(i) {
            return 0;
        }
        let Some(to) = self.dest[i] else { return 0 };
        let supports = self.support_of_move(i);
        let occupant = self.unit_in(to).filter(|d| *d != i);
        let vacated = match occupant {
            None => true,
            Some(d) => matches!(self.orders[d], Order::Move { .. }) && self.head_to_head(i) != Some(d) && self.resolve(d),
        };
        if vacated {
            return 1 + supports.len() as u32;
        }
        let Some(d) = occupant else { return 1 + supports.len() as u32 };
        let owner = self.power(d);
        if owner == self.power(i) {
            return 0;
        }
        1 + supports.iter().filter(|s| self.power(**s) != owner).count() as u32
    }

    fn defend(&mut self, i: usize) -> u32 {
        1 + self.support_of_move(i).len() as u32
    }

    fn prevent(&mut self, i: usize) -> u32 {
        if !self.path(i) {
            return 0;
        }
        if let Some(d) = self.head_to_head(i) {
            if self.resolve(d) {
                return 0;
            }
        }
        1 + self.support_of_move(i).len() as u32
    }

    /// Whether the unit `i` (not moving away) is dislodged: a move into its province succeeds.
    fn dislodged(&mut self, i: usize) -> bool {
        let p = self.province(i);
        for j in self.moves_to(p, i) {
            if self.resolve(j) {
                return true;
            }
        }
        false
    }

    /// Whether support `s` is given: its unit supported does as the support says, it is not
    /// cut (attacked from elsewhere than where it supports into, by another power, with a way
    /// there), and its unit is not dislodged.
    fn support_given(&mut self, s: usize) -> bool {
        let Order::Support { target, to, coast } = self.orders[s] else { return false };
        let Some(t) = self.unit_in(target) else { return false };
        let matches = match (to, self.orders[t]) {
            (None, Order::Move { .. }) => false,
            (None, Order::Hold | Order::Support { .. } | Order::Convoy { .. }) => true,
            (Some(to), Order::Move { to: at, .. }) => {
                self.dest[t] == Some(to) && coast.is_none_or(|c| self.map.coast(at).is_none_or(|x| x == c))
            }
            (Some(_), Order::Hold | Order::Support { .. } | Order::Convoy { .. }) => false,
        };
        if !matches {
            return false;
        }
        let here = self.province(s);
        for j in self.moves_to(here, s) {
            if self.power(j) == self.power(s) {
                continue;
            }
            let from = self.province(j);
            if Some(from) == to {
                // From where the support goes: it cuts only by dislodging.
                if self.resolve(j) {
                    return false;
                }
                continue;
            }
            if self.path(j) {
                return false;
            }
        }
        true
    }
}

/// Why unit `i`'s order in `board` came out as it did in `outcome`, in a player's words.
pub fn explain(map: &Map, board: &Board, outcome: &Outcome, i: usize) -> String {
    let name = |p: Province| map.data(p).name.clone();
    let ok = outcome.succeeded[i];
    let mut s = match (board.orders[i], ok) {
        (Order::Hold, _) => "holds".to_string(),
        (Order::Move { to, .. }, true) => format!("moves to {}", map.long(to)),
        (Order::Move { to, .. }, false) => format!("does not move to {}", map.long(to)),
        (Order::Support { target, .. }, true) => format!("supports the unit in {}", name(target)),
        (Order::Support { target, .. }, false) => format!("gives no support to the unit in {} (cut, void or dislodged)", name(target)),
        (Order::Convoy { from, to }, true) => format!("convoys the army in {} to {}", name(from), name(to)),
        (Order::Convoy { .. }, false) => "convoys nobody (dislodged, void or in a paradox)".to_string(),
    };
    if let Some(d) = outcome.dislodged[i] {
        s.push_str(&format!("; dislodged by the unit from {}", name(d.from)));
    }
    s
}
