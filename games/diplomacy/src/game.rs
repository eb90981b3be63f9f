//! Diplomacy as a kernel game: seven powers, each phase a simultaneous step of every power
//! with something to order. A power gives its orders one by one (each a move: one order for
//! one unit, a retreat, a build or removal), secret from the others until the phase resolves,
//! and then `done`; a unit given no order holds, a dislodged one disbands, a build not made is
//! waived, a removal not made is chosen by civil disorder (D08). When every power that must act
//! is done, the phase resolves: movement (D05), retreats (D06), the centres change hands after
//! Fall, the winter adjustments (D07). A power holding 18 centres wins; at the end of the last
//! year (an option) the survivors share a draw (D10).

use crate::adjudicate::{adjudicate, explain, Board};
use crate::map::{standard, Loc, Map, Power, Province, Terrain, UnitKind};
use crate::orders::{self, check, parse, Order, Unit, WrittenOrder};
use crate::phases::{adjustment_order, allowance, civil_disorder, resolve_retreats, retreat_options, Adjustment, Retreat};
use arbiter_kernel::kind::{Capabilities, Information, OptionSpec, OptionType, SeatRange, Shape};
use arbiter_kernel::{Decision, GameKind, Match, Outcome, Refusal, Report, Seat, SeatResult, Turn, Viewer};
use serde::{Deserialize, Serialize};

pub mod encode;
mod policy;

/// The rules this build implements.
pub const RULES_VERSION: &str = "diplomacy-2026.12.1";
const RULES: &str = "Diplomacy rules";
/// The centres that win the game.
pub const VICTORY: usize = 18;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Season {
    Spring,
    Fall,
    Winter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    Movement,
    Retreat,
    Adjustment,
}

/// A power's move: one order of the phase now, or its orders done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Move {
    Order { at: Loc, order: Order },
    Retreat { at: Loc, to: Option<Loc> },
    Build { kind: UnitKind, at: Loc },
    Remove { at: Loc },
    Waive,
    Done,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum End {
    Won(Power),
    /// The survivors share a draw at the end of the last year.
    Drawn(Vec<Power>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diplomacy {
    year: u16,
    season: Season,
    phase: Phase,
    units: Vec<Unit>,
    /// Each province's owner (supply centres only).
    owner: Vec<Option<Power>>,
    /// Movement: each unit's order given so far.
    orders: Vec<Option<Order>>,
    /// Retreats: each dislodged unit's options (the others `None`), and its retreat given.
    options: Vec<Option<Vec<Loc>>>,
    retreats: Vec<Option<Retreat>>,
    /// Adjustments: each power's given so far.
    adjustments: Vec<Vec<Adjustment>>,
    /// Each power's part of the step is made.
    done: Vec<bool>,
    /// The moves made in the phase now (they stay secret until it resolves).
    made: usize,
    last_year: u16,
    end: Option<End>,
    /// The last movement phase's orders and how each fared, for a board to draw.
    last: Vec<Resolved>,
}

/// An order of the last movement phase and how it fared.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resolved {
    pub power: String,
    /// Where the unit stood (a province's id).
    pub from: String,
    /// Where it moved, or where the unit it supported or convoyed held or moved.
    pub to: Option<String>,
    pub kind: OrderKind,
    /// The order as written.
    pub order: String,
    pub succeeded: bool,
    pub dislodged: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OrderKind {
    Hold,
    Move,
    Support,
    Convoy,
}

fn map() -> &'static Map {
    standard()
}

impl Diplomacy {
    /// The 1901 position; the game is drawn at the end of `last_year`.
    pub fn new(last_year: u16) -> Diplomacy {
        let m = map();
        let mut units = Vec::new();
        for (i, p) in m.powers.iter().enumerate() {
            for &(kind, at) in &p.units {
                units.push(Unit { power: Power(i as u8), kind, at });
            }
        }
        let owner = m.provinces.iter().map(|p| p.home).collect();
        let n = units.len();
        Diplomacy {
            year: 1901,
            season: Season::Spring,
            phase: Phase::Movement,
            units,
            owner,
            orders: vec![None; n],
            options: vec![None; n],
            retreats: vec![None; n],
            adjustments: vec![Vec::new(); m.powers.len()],
            done: vec![false; m.powers.len()],
            made: 0,
            last_year,
            end: None,
            last: Vec::new(),
        }
    }

    fn powers(&self) -> impl Iterator<Item = Power> {
        (0..map().powers.len() as u8).map(Power)
    }

    fn power_name(p: Power) -> &'static str {
        &map().powers[usize::from(p.0)].name
    }

    pub fn centres(&self, p: Power) -> usize {
        self.owner.iter().filter(|o| **o == Some(p)).count()
    }

    /// The unit standing in `p` (not one dislodged from it).
    fn unit_in(&self, p: Province) -> Option<usize> {
        (0..self.units.len()).find(|i| self.options[*i].is_none() && map().province(self.units[*i].at) == p)
    }

    /// The dislodged unit of province `p`, during retreats.
    fn dislodged_in(&self, p: Province) -> Option<usize> {
        (0..self.units.len()).find(|i| self.options[*i].is_some() && map().province(self.units[*i].at) == p)
    }

    fn adjustable(&self, p: Power) -> bool {
        let due = allowance(&self.units, &self.owner, p);
        due < 0 || (due > 0 && !self.build_sites(p).is_empty())
    }

    /// Whether power `p` has something to order in the phase now.
    fn must_act(&self, p: Power) -> bool {
        if self.end.is_some() || self.done[usize::from(p.0)] {
            return false;
        }
        match self.phase {
            Phase::Movement => self.units.iter().any(|u| u.power == p),
            Phase::Retreat => (0..self.units.len()).any(|i| self.units[i].power == p && self.options[i].is_some()),
            Phase::Adjustment => self.adjustable(p),
        }
    }

    fn prompt(&self) -> String {
        let season = match self.season {
            Season::Spring => "Spring",
            Season::Fall => "Fall",
            Season::Winter => "Winter",
        };
        let what = match self.phase {
            Phase::Movement => "give your orders, then done",
            Phase::Retreat => "retreat or disband your dislodged units, then done",
            Phase::Adjustment => "build or remove, then done",
        };
        format!("{season} {}: {what}", self.year)
    }

    /// The empty home centres `p` owns, where it may build.
    fn build_sites(&self, p: Power) -> Vec<Province> {
        let m = map();
        (0..m.province_count())
            .map(|i| Province(i as u8))
            .filter(|q| m.data(*q).home == Some(p) && self.owner[usize::from(q.0)] == Some(p) && self.unit_in(*q).is_none())
            .collect()
    }

    /// Every move `p` may make now.
    fn moves_of(&self, p: Power) -> Vec<Move> {
        if !self.must_act(p) {
            return Vec::new();
        }
        let m = map();
        let mut out = Vec::new();
        match self.phase {
            Phase::Movement => {
                for i in (0..self.units.len()).filter(|i| self.units[*i].power == p && self.orders[*i].is_none()) {
                    for order in self.orders_for(i) {
                        out.push(Move::Order { at: self.units[i].at, order });
                    }
                }
            }
            Phase::Retreat => {
                for i in (0..self.units.len()).filter(|i| self.units[*i].power == p && self.retreats[*i].is_none()) {
                    let at = self.units[i].at;
                    for &to in self.options[i].iter().flatten() {
                        out.push(Move::Retreat { at, to: Some(to) });
                    }
                    if self.options[i].is_some() {
                        out.push(Move::Retreat { at, to: None });
                    }
                }
            }
            Phase::Adjustment => {
                let due = allowance(&self.units, &self.owner, p);
                let given = &self.adjustments[usize::from(p.0)];
                if due > 0 && (given.len() as i32) < due {
                    for q in self.build_sites(p) {
                        if given.iter().any(|a| matches!(a, Adjustment::Build(_, l) if m.province(*l) == q)) {
                            continue;
                        }
                        out.push(Move::Build { kind: UnitKind::Army, at: Loc(q.0) });
                        if m.terrain(q) == Terrain::Coast {
                            match m.data(q).coasts.as_slice() {
                                [] => out.push(Move::Build { kind: UnitKind::Fleet, at: Loc(q.0) }),
                                coasts => out.extend(coasts.iter().map(|(_, l)| Move::Build { kind: UnitKind::Fleet, at: *l })),
                            }
                        }
                    }
                    out.push(Move::Waive);
                }
                if due < 0 && (given.len() as i32) < -due {
                    for (i, u) in self.units.iter().enumerate() {
                        if u.power == p && !given.contains(&Adjustment::Remove(i)) {
                            out.push(Move::Remove { at: u.at });
                        }
                    }
                }
            }
        }
        out.push(Move::Done);
        out
    }

    /// Every order unit `i` may be given (D02): hold; a move to each place it reaches, an
    /// army also to every other coast (it may be convoyed); a support of each unit that could
    /// move to, or hold in, a province it reaches; a fleet at sea, a convoy of each army on a
    /// coast to every other coast.
    fn orders_for(&self, i: usize) -> Vec<Order> {
        let m = map();
        let u = self.units[i];
        let here = m.province(u.at);
        let coastal = |p: Province| m.terrain(p) == Terrain::Coast;
        let provinces = || (0..m.province_count()).map(|q| Province(q as u8));
        let mut out = vec![Order::Hold];
        match u.kind {
            UnitKind::Army => {
                for q in provinces().filter(|q| *q != here) {
                    let by_land = m.army_adjacent(here, q);
                    if by_land || (coastal(here) && coastal(q)) {
                        out.push(Order::Move { to: Loc(q.0), via_convoy: false });
                    }
                    if by_land && coastal(here) && coastal(q) {
                        out.push(Order::Move { to: Loc(q.0), via_convoy: true });
                    }
                }
            }
            UnitKind::Fleet => {
                for q in provinces().filter(|q| *q != here) {
                    for to in m.fleet_targets(u.at, q) {
                        out.push(Order::Move { to, via_convoy: false });
                    }
                }
            }
        }
        // Supports: to each province this unit reaches, of every other unit that could be
        // ordered there (or that stands there, to hold).
        for dest in provinces().filter(|q| *q != here && m.reaches(u.kind, u.at, *q)) {
            for (j, v) in self.units.iter().enumerate() {
                if j == i {
                    continue;
                }
                let from = m.province(v.at);
                if from == dest {
                    out.push(Order::Support { target: from, to: None, coast: None });
                } else if m.reaches(v.kind, v.at, dest) || (v.kind == UnitKind::Army && coastal(from) && coastal(dest)) {
                    out.push(Order::Support { target: from, to: Some(dest), coast: None });
                }
            }
        }
        if u.kind == UnitKind::Fleet && m.terrain(here) == Terrain::Sea {
            for v in self.units.iter().filter(|v| v.kind == UnitKind::Army && coastal(m.province(v.at))) {
                let from = m.province(v.at);
                for to in provinces().filter(|q| *q != from && coastal(*q)) {
                    out.push(Order::Convoy { from, to });
                }
            }
        }
        out
    }

    fn check_move(&self, p: Power, mv: &Move) -> Result<(), Refusal> {
        if let Some(end) = &self.end {
            return Err(Refusal::new(format!("the game is over ({})", end_text(end)), RULES));
        }
        if self.done[usize::from(p.0)] {
            return Err(Refusal::new(
                format!("{} is done for this phase: take `done` back (undo) to change its orders", Self::power_name(p)),
                RULES,
            ));
        }
        if !self.must_act(p) {
            return Err(Refusal::new(format!("{} has nothing to order in this phase", Self::power_name(p)), RULES));
        }
        if *mv == Move::Done || self.moves_of(p).contains(mv) {
            return Ok(());
        }
        let why = match (mv, self.phase) {
            (Move::Order { at, .. }, Phase::Movement) => match self.unit_in(map().province(*at)) {
                Some(i) if self.units[i].power != p => format!("the unit in {} is not {}'s", map().long(*at), Self::power_name(p)),
                Some(i) if self.orders[i].is_some() => {
                    format!("the unit in {} has its order: take it back (undo) to change it", map().long(*at))
                }
                _ => format!("{} cannot be ordered so", map().long(*at)),
            },
            (Move::Retreat { .. }, Phase::Retreat) => "that retreat is not open to the unit".into(),
            (Move::Build { .. } | Move::Remove { .. } | Move::Waive, Phase::Adjustment) => "that adjustment is not open to you now".into(),
            (_, Phase::Movement) => "this is a movement phase: give orders (A Par - Bur), then done".into(),
            (_, Phase::Retreat) => "this is a retreat phase: retreat (A Mun - Boh) or disband (A Mun disband), then done".into(),
            (_, Phase::Adjustment) => "this is the winter adjustment: build A Par, remove A Mun or waive, then done".into(),
        };
        Err(Refusal::new(why, RULES))
    }

    /// Play `mv` as power `p`.
    pub fn play(&mut self, p: Power, mv: Move) -> Result<Report, Refusal> {
        self.check_move(p, &mv)?;
        let mut report = Report::default();
        self.made += 1;
        match mv {
            Move::Order { at, order } => {
                if let Some(i) = self.unit_in(map().province(at)) {
                    self.orders[i] = Some(order);
                }
            }
            Move::Retreat { at, to } => {
                if let Some(i) = self.dislodged_in(map().province(at)) {
                    self.retreats[i] = Some(to.map_or(Retreat::Disband, Retreat::To));
                }
            }
            Move::Build { kind, at } => self.adjustments[usize::from(p.0)].push(Adjustment::Build(kind, at)),
            Move::Remove { at } => {
                if let Some(i) = self.unit_in(map().province(at)) {
                    self.adjustments[usize::from(p.0)].push(Adjustment::Remove(i));
                }
            }
            Move::Waive => self.adjustments[usize::from(p.0)].push(Adjustment::Waive),
            Move::Done => {
                self.done[usize::from(p.0)] = true;
                if !self.powers().any(|q| self.must_act(q)) {
                    self.resolve(&mut report);
                }
            }
        }
        Ok(report)
    }

    /// Every power that had to act is done: the phase resolves, and the next one with anything
    /// to order begins.
    fn resolve(&mut self, report: &mut Report) {
        report.revealed = true;
        match self.phase {
            Phase::Movement => self.resolve_movement(report),
            Phase::Retreat => self.resolve_retreats(report),
            Phase::Adjustment => self.resolve_adjustments(report),
        }
        self.made = 0;
        self.done.iter_mut().for_each(|d| *d = false);
        // Phases with nothing to order pass at once.
        while self.end.is_none() && !self.powers().any(|q| self.must_act(q)) {
            match self.phase {
                Phase::Movement => self.resolve_movement(report),
                Phase::Retreat => self.resolve_retreats(report),
                Phase::Adjustment => self.resolve_adjustments(report),
            }
        }
        if self.end.is_none() {
            report.public(format!("{}.", self.prompt().split(':').next().unwrap_or_default()));
        }
    }

    fn resolve_movement(&mut self, report: &mut Report) {
        let m = map();
        let board = Board { units: self.units.clone(), orders: self.orders.iter().map(|o| o.unwrap_or(Order::Hold)).collect() };
        let outcome = adjudicate(m, &board);
        self.last.clear();
        for (i, u) in board.units.iter().enumerate() {
            let text = orders::text(m, u, &board.orders[i], |q| self.unit_in(q).map(|j| self.units[j].kind));
            report.public(format!("{}: {text}: {}.", Self::power_name(u.power), explain(m, &board, &outcome, i)));
            let id = |p: Province| m.data(p).id.clone();
            // A move succeeded where the unit now stands there (one ordered across the sea
            // with no convoy holds).
            let succeeded = match board.orders[i] {
                Order::Move { to, .. } => m.province(outcome.at[i]) == m.province(to),
                Order::Hold | Order::Support { .. } | Order::Convoy { .. } => outcome.succeeded[i],
            };
            let (kind, to) = match board.orders[i] {
                Order::Hold => (OrderKind::Hold, None),
                Order::Move { to, .. } => (OrderKind::Move, Some(id(m.province(to)))),
                Order::Support { target, to, .. } => (OrderKind::Support, Some(id(to.unwrap_or(target)))),
                Order::Convoy { to, .. } => (OrderKind::Convoy, Some(id(to))),
            };
            self.last.push(Resolved {
                power: m.powers[usize::from(u.power.0)].id.clone(),
                from: id(m.province(u.at)),
                to,
                kind,
                order: text,
                succeeded,
                dislodged: outcome.dislodged[i].is_some(),
            });
        }
        let options = retreat_options(m, &board, &outcome);
        let mut units = Vec::new();
        let mut opts = Vec::new();
        for (i, u) in board.units.iter().enumerate() {
            match (&outcome.dislodged[i], &options[i]) {
                (Some(_), Some(places)) if places.is_empty() => {
                    report.public(format!(
                        "{}'s {} {} is dislodged with nowhere to retreat: disbanded.",
                        Self::power_name(u.power),
                        kind_name(u.kind),
                        m.long(u.at)
                    ));
                }
                (Some(_), Some(places)) => {
                    units.push(*u);
                    opts.push(Some(places.clone()));
                }
                _ => {
                    units.push(Unit { at: outcome.at[i], ..*u });
                    opts.push(None);
                }
            }
        }
        let n = units.len();
        self.units = units;
        self.options = opts;
        self.orders = vec![None; n];
        self.retreats = vec![None; n];
        self.phase = Phase::Retreat;
        if self.options.iter().all(Option::is_none) {
            self.after_retreats(report);
        }
    }

    fn resolve_retreats(&mut self, report: &mut Report) {
        let m = map();
        let orders: Vec<(usize, Retreat)> = (0..self.units.len())
            .filter(|i| self.options[*i].is_some())
            .map(|i| (i, self.retreats[i].unwrap_or(Retreat::Disband)))
            .collect();
        let mut gone = Vec::new();
        for (i, to) in resolve_retreats(m, &orders) {
            let u = self.units[i];
            match to {
                Some(l) => {
                    report.public(format!(
                        "{}'s {} {} retreats to {}.",
                        Self::power_name(u.power),
                        kind_name(u.kind),
                        m.long(u.at),
                        m.long(l)
                    ));
                    self.units[i].at = l;
                }
                None => {
                    report.public(format!("{}'s {} {} disbands.", Self::power_name(u.power), kind_name(u.kind), m.long(u.at)));
                    gone.push(i);
                }
            }
        }
        let units: Vec<Unit> = self.units.iter().enumerate().filter(|(i, _)| !gone.contains(i)).map(|(_, u)| *u).collect();
        let n = units.len();
        self.units = units;
        self.options = vec![None; n];
        self.retreats = vec![None; n];
        self.orders = vec![None; n];
        self.after_retreats(report);
    }

    /// After a season's retreats: Fall follows Spring; after Fall the centres change hands and
    /// the winter adjustments follow.
    fn after_retreats(&mut self, report: &mut Report) {
        self.phase = Phase::Movement;
        match self.season {
            Season::Spring => self.season = Season::Fall,
            Season::Fall | Season::Winter => {
                let m = map();
                for u in &self.units {
                    let p = m.province(u.at);
                    if m.data(p).supply_centre && self.owner[usize::from(p.0)] != Some(u.power) {
                        report.public(format!("{} takes {}.", Self::power_name(u.power), m.data(p).name));
                        self.owner[usize::from(p.0)] = Some(u.power);
                    }
                }
                if let Some(w) = self.powers().find(|p| self.centres(*p) >= VICTORY) {
                    self.end = Some(End::Won(w));
                    report.public(format!("{} holds {} supply centres and wins.", Self::power_name(w), self.centres(w)));
                    return;
                }
                self.season = Season::Winter;
                self.phase = Phase::Adjustment;
                self.adjustments.iter_mut().for_each(Vec::clear);
            }
        }
    }

    fn resolve_adjustments(&mut self, report: &mut Report) {
        let m = map();
        let mut removed: Vec<usize> = Vec::new();
        let mut built: Vec<Unit> = Vec::new();
        for p in self.powers().collect::<Vec<_>>() {
            let given = self.adjustments[usize::from(p.0)].clone();
            let due = allowance(&self.units, &self.owner, p);
            let ordered: Vec<usize> = given.iter().filter_map(|a| if let Adjustment::Remove(i) = a { Some(*i) } else { None }).collect();
            let mut out = ordered.clone();
            if due < 0 && ordered.len() < due.unsigned_abs() as usize {
                let more = civil_disorder(m, &self.units, p, due.unsigned_abs() as usize - ordered.len(), &ordered);
                for i in &more {
                    report.public(format!(
                        "{} removes its {} {} (civil disorder).",
                        Self::power_name(p),
                        kind_name(self.units[*i].kind),
                        m.long(self.units[*i].at)
                    ));
                }
                out.extend(more);
            }
            for i in &ordered {
                report.public(format!(
                    "{} removes its {} {}.",
                    Self::power_name(p),
                    kind_name(self.units[*i].kind),
                    m.long(self.units[*i].at)
                ));
            }
            removed.extend(out);
            for a in given {
                if let Adjustment::Build(kind, at) = a {
                    report.public(format!(
                        "{} builds {} {}.",
                        Self::power_name(p),
                        if kind == UnitKind::Army { "an army in" } else { "a fleet in" },
                        m.long(at)
                    ));
                    built.push(Unit { power: p, kind, at });
                }
            }
        }
        let mut units: Vec<Unit> = self.units.iter().enumerate().filter(|(i, _)| !removed.contains(i)).map(|(_, u)| *u).collect();
        units.extend(built);
        let n = units.len();
        self.units = units;
        self.orders = vec![None; n];
        self.options = vec![None; n];
        self.retreats = vec![None; n];
        self.adjustments.iter_mut().for_each(Vec::clear);
        if self.year >= self.last_year {
            let survivors: Vec<Power> = self.powers().filter(|p| !self.is_out(*p)).collect();
            let names: Vec<&str> = survivors.iter().map(|p| Self::power_name(*p)).collect();
            report.public(format!("The last year is over: {} share a draw.", names.join(", ")));
            self.end = Some(End::Drawn(survivors));
            return;
        }
        self.year += 1;
        self.season = Season::Spring;
        self.phase = Phase::Movement;
    }

    /// A power with no units and no centres is out of the game.
    fn is_out(&self, p: Power) -> bool {
        !self.units.iter().any(|u| u.power == p) && self.centres(p) == 0
    }

    fn move_text(&self, mv: &Move) -> String {
        let m = map();
        let kind_at = |l: Loc| {
            let p = m.province(l);
            (0..self.units.len()).find(|i| m.province(self.units[*i].at) == p).map(|i| self.units[i].kind)
        };
        match *mv {
            Move::Order { at, order } => match kind_at(at) {
                Some(kind) => orders::text(m, &Unit { power: Power(0), kind, at }, &order, |q| self.unit_in(q).map(|j| self.units[j].kind)),
                None => format!("{} ?", m.short(at)),
            },
            Move::Retreat { at, to } => {
                let k = kind_at(at).map_or("?", UnitKind::letter);
                match to {
                    Some(l) => format!("{k} {} - {}", m.short(at), m.short(l)),
                    None => format!("{k} {} disband", m.short(at)),
                }
            }
            Move::Build { kind, at } => format!("build {} {}", kind.letter(), m.short(at)),
            Move::Remove { at } => format!("remove {} {}", kind_at(at).map_or("?", UnitKind::letter), m.short(at)),
            Move::Waive => "waive".into(),
            Move::Done => "done".into(),
        }
    }

    fn parse_move(&self, text: &str) -> Result<Move, Refusal> {
        let m = map();
        let t = text.trim();
        let lower = t.to_lowercase();
        let refuse = |e: orders::OrderError| Refusal::new(e.reason, RULES);
        if lower == "done" {
            return Ok(Move::Done);
        }
        match self.phase {
            Phase::Movement => {
                let w = parse(m, t).map_err(refuse)?;
                let Some(i) = self.unit_in(w.at) else {
                    return Err(Refusal::new(format!("there is no unit in {}", m.data(w.at).name), RULES));
                };
                let unit = self.units[i];
                let (_, order) = check(m, unit.power, &w, |q| self.unit_in(q).map(|j| self.units[j])).map_err(refuse)?;
                Ok(Move::Order { at: unit.at, order })
            }
            Phase::Retreat => {
                let w = parse(m, t).map_err(refuse)?;
                let Some(i) = self.dislodged_in(w.at) else {
                    return Err(Refusal::new(
                        format!("no unit in {} was dislodged: only a dislodged unit retreats", m.data(w.at).name),
                        RULES,
                    ));
                };
                let at = self.units[i].at;
                match w.order {
                    WrittenOrder::Disband => Ok(Move::Retreat { at, to: None }),
                    WrittenOrder::Move { to, coast, via_convoy: false } => {
                        let places = self.options[i].clone().unwrap_or_default();
                        let fits: Vec<Loc> = places
                            .into_iter()
                            .filter(|l| {
                                m.province(*l) == to && (coast.is_none() || m.coast(*l) == coast || self.units[i].kind == UnitKind::Army)
                            })
                            .collect();
                        match fits.as_slice() {
                            [one] => Ok(Move::Retreat { at, to: Some(*one) }),
                            [] => Err(Refusal::new(
                                format!("the unit dislodged from {} cannot retreat to {}", m.data(w.at).name, m.data(to).name),
                                "Diplomacy rules: retreats",
                            )),
                            _ => Err(Refusal::new(
                                format!("name the coast of {} the fleet retreats to", m.data(to).name),
                                "Diplomacy rules: retreats",
                            )),
                        }
                    }
                    WrittenOrder::Move { via_convoy: true, .. }
                    | WrittenOrder::Hold
                    | WrittenOrder::Support { .. }
                    | WrittenOrder::Convoy { .. } => {
                        Err(Refusal::new("a dislodged unit retreats or disbands: A Mun - Boh, A Mun disband", "Diplomacy rules: retreats"))
                    }
                }
            }
            Phase::Adjustment => {
                if lower == "waive" {
                    return Ok(Move::Waive);
                }
                // The power is the unit's (a removal) or the home centre's (a build).
                let first = lower.split_whitespace().next().unwrap_or_default();
                let rest = t.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
                let (kind, at) = orders::parse_unit_loose(m, &rest).map_err(refuse)?;
                let p = m.province(at);
                let power = match first {
                    "build" | "b" => m.data(p).home,
                    _ => self.unit_in(p).map(|i| self.units[i].power),
                }
                .ok_or_else(|| Refusal::new(format!("{} is no home centre, and no unit of yours stands there", m.data(p).name), RULES))?;
                let given = &self.adjustments[usize::from(power.0)];
                match adjustment_order(m, power, t, &self.units, &self.owner, given).map_err(refuse)? {
                    Adjustment::Build(k, l) => Ok(Move::Build { kind: k, at: l }),
                    Adjustment::Remove(i) => Ok(Move::Remove { at: self.units[i].at }),
                    Adjustment::Waive => Ok(Move::Waive),
                }
                .map(|mv| match mv {
                    Move::Build { at, .. } => Move::Build { kind, at },
                    other => other,
                })
            }
        }
    }

    pub fn view(&self, viewer: Viewer) -> View {
        let m = map();
        let me = viewer.map(|s| Power(s.0)).filter(|p| usize::from(p.0) < m.powers.len());
        View {
            year: self.year,
            season: self.season,
            phase: self.phase,
            units: self
                .units
                .iter()
                .enumerate()
                .map(|(i, u)| UnitView {
                    power: m.powers[usize::from(u.power.0)].id.clone(),
                    unit: format!("{} {}", u.kind.letter(), m.short(u.at)),
                    dislodged: self.options[i].is_some(),
                    retreats: self.options[i].iter().flatten().map(|l| m.short(*l)).collect(),
                })
                .collect(),
            centres: self
                .powers()
                .map(|p| {
                    let owned: Vec<String> =
                        self.owner.iter().enumerate().filter(|(_, o)| **o == Some(p)).map(|(i, _)| m.short(Loc(i as u8))).collect();
                    (m.powers[usize::from(p.0)].id.clone(), owned)
                })
                .collect(),
            done: self.powers().filter(|p| self.done[usize::from(p.0)]).map(|p| m.powers[usize::from(p.0)].id.clone()).collect(),
            your_orders: match me {
                Some(p) => self.given_by(p),
                None => Vec::new(),
            },
            last_year: self.last_year,
            end: self.end.as_ref().map(|e| match e {
                End::Won(p) => Ending::Won(m.powers[usize::from(p.0)].id.clone()),
                End::Drawn(ps) => Ending::Drawn(ps.iter().map(|p| m.powers[usize::from(p.0)].id.clone()).collect()),
            }),
            last: self.last.clone(),
        }
    }

    /// The orders `p` has given in the phase now, as text.
    fn given_by(&self, p: Power) -> Vec<String> {
        let m = map();
        let mut out = Vec::new();
        for (i, u) in self.units.iter().enumerate().filter(|(_, u)| u.power == p) {
            if let Some(o) = self.orders[i] {
                out.push(self.move_text(&Move::Order { at: u.at, order: o }));
            }
            if let Some(r) = self.retreats[i] {
                out.push(self.move_text(&Move::Retreat { at: u.at, to: if let Retreat::To(l) = r { Some(l) } else { None } }));
            }
        }
        for a in &self.adjustments[usize::from(p.0)] {
            out.push(match *a {
                Adjustment::Build(kind, at) => format!("build {} {}", kind.letter(), m.short(at)),
                Adjustment::Remove(i) => format!("remove {} {}", self.units[i].kind.letter(), m.short(self.units[i].at)),
                Adjustment::Waive => "waive".into(),
            });
        }
        out
    }
}

fn kind_name(k: UnitKind) -> &'static str {
    match k {
        UnitKind::Army => "army in",
        UnitKind::Fleet => "fleet in",
    }
}

fn end_text(e: &End) -> String {
    match e {
        End::Won(p) => format!("{} won", Diplomacy::power_name(*p)),
        End::Drawn(ps) => format!("a draw shared by {}", ps.iter().map(|p| Diplomacy::power_name(*p)).collect::<Vec<_>>().join(", ")),
    }
}

/// What a power (or an observer) sees: the board is public; its own orders of the phase now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    pub year: u16,
    pub season: Season,
    pub phase: Phase,
    pub units: Vec<UnitView>,
    /// The supply centres each power owns.
    pub centres: Vec<(String, Vec<String>)>,
    /// The powers done with the phase now.
    pub done: Vec<String>,
    pub your_orders: Vec<String>,
    pub last_year: u16,
    pub end: Option<Ending>,
    /// The last movement phase's orders and results (public once it resolved).
    pub last: Vec<Resolved>,
}

/// How the game ended, by the powers' ids.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Ending {
    Won(String),
    Drawn(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnitView {
    pub power: String,
    pub unit: String,
    pub dislodged: bool,
    pub retreats: Vec<String>,
}

impl arbiter_kernel::Game for Diplomacy {
    type Move = Move;
    type View = View;

    fn seats(&self) -> Vec<String> {
        map().powers.iter().map(|p| p.id.clone()).collect()
    }
    fn decision(&self) -> Option<Decision> {
        Decision::step(self.powers().filter(|p| self.must_act(*p)).map(|p| Turn { seat: Seat(p.0), prompt: self.prompt() }))
    }
    fn legal_moves(&self) -> Vec<Move> {
        self.powers().find(|p| self.must_act(*p)).map(|p| self.moves_of(p)).unwrap_or_default()
    }
    fn moves_for(&self, seat: Seat) -> Vec<Move> {
        if usize::from(seat.0) >= map().powers.len() {
            return Vec::new();
        }
        self.moves_of(Power(seat.0))
    }
    fn deciding(&self) -> Option<Seat> {
        self.powers().find(|p| self.must_act(*p)).map(|p| Seat(p.0))
    }
    fn eliminated(&self) -> Vec<Seat> {
        self.powers().filter(|p| self.is_out(*p)).map(|p| Seat(p.0)).collect()
    }
    fn play_as(&mut self, seat: Seat, m: &Move) -> Result<Report, Refusal> {
        if usize::from(seat.0) >= map().powers.len() {
            return Err(Refusal::new("no such power", RULES));
        }
        self.play(Power(seat.0), *m)
    }
    fn view(&self, viewer: Viewer) -> View {
        Diplomacy::view(self, viewer)
    }
    fn state_hash(&self) -> u64 {
        arbiter_kernel::stable_hash(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        let n = map().powers.len();
        match self.end.as_ref()? {
            End::Won(p) => {
                Some(Outcome::won_by(&[Seat(p.0)], n, "won", format!("{} holds 18 supply centres and wins", Self::power_name(*p))))
            }
            End::Drawn(survivors) => Some(Outcome {
                results: (0..n as u8).map(|i| if survivors.contains(&Power(i)) { SeatResult::Drew } else { SeatResult::Lost }).collect(),
                reason: "draw".into(),
                text: end_text(&End::Drawn(survivors.clone())),
            }),
        }
    }
    fn move_text(&self, m: &Move) -> String {
        Diplomacy::move_text(self, m)
    }
    fn parse_move(&self, text: &str) -> Result<Move, Refusal> {
        Diplomacy::parse_move(self, text)
    }
    /// Orders are secret until their phase resolves (a power's own are its own); that a power
    /// is done is public.
    fn hidden_move(&self, text: &str, by: Seat, age: usize, viewer: Viewer) -> Option<String> {
        if viewer == Some(by) || age >= self.made || text == "done" {
            return None;
        }
        Some(format!("{} gave an order", map().powers.get(by.idx()).map_or("a power", |p| p.name.as_str())))
    }
    /// A power's orders may be taken back and given again until its phase resolves.
    fn choices_revocable(&self) -> bool {
        true
    }
    /// Orders not given when a power's time runs out: it is done (its units hold, its dislodged
    /// units disband, its builds are waived, its removals made by civil disorder).
    fn timeout_move(&self, _seat: Seat) -> Option<Move> {
        Some(Move::Done)
    }
}

/// The computer (D11): the orders the others have given in the phase now are drawn by the
/// conventions of `policy`, which also play the playouts; a playout stops when the power
/// searching orders again (the next phase it has something to order in), and the position is
/// judged by the centres it would hold.
impl arbiter_kernel::Searchable for Diplomacy {
    fn determinize(&self, seat: Seat, rng: &mut arbiter_kernel::Randomness) -> Option<Diplomacy> {
        let p = Power(seat.0);
        (usize::from(seat.0) < map().powers.len() && self.must_act(p)).then(|| self.sample_for(p, rng))
    }
    fn search_moves(&self) -> Vec<Move> {
        self.considered()
    }
    fn playout_move(&self, moves: &[Move], rng: &mut arbiter_kernel::Randomness) -> usize {
        self.conventional(moves, rng)
    }
    fn playout_depth(&self) -> Option<u32> {
        Some(PLAYOUT_CAP)
    }
    fn evaluate(&self, seat: Seat) -> f64 {
        self.prospect(Power(seat.0))
    }
}

/// The decisions a playout makes at most before it is judged.
const PLAYOUT_CAP: u32 = 400;
/// Learning (`encode`): a fixed vocabulary of orders, an observation per power.
impl arbiter_kernel::Encodable for Diplomacy {
    fn encoding(&self) -> Option<arbiter_kernel::learn::Encoding> {
        Some(Diplomacy::encoding(self))
    }
    fn action_id(&self, m: &Move) -> Option<u32> {
        encode::vocabulary().id(m)
    }
    fn move_of(&self, id: u32) -> Option<Move> {
        encode::vocabulary().moves.get(id as usize).copied()
    }
    fn action_group(&self, id: u32) -> Option<u16> {
        encode::vocabulary().group(id)
    }
    fn frame(&self) -> Option<arbiter_kernel::learn::Frame> {
        Diplomacy::frame(self)
    }
    fn observation_len(&self) -> usize {
        Diplomacy::observation_len(self)
    }
    fn observe(&self, seat: Seat, out: &mut [f32]) {
        Diplomacy::observe(self, seat, out)
    }
}

/// Diplomacy as a kind of game a host offers.
pub struct Kind;

/// The option: the last year played before the survivors share a draw.
pub const LAST_YEAR: &str = "last_year";

impl GameKind for Kind {
    fn id(&self) -> &'static str {
        "diplomacy"
    }
    fn title(&self) -> &'static str {
        "Diplomacy"
    }
    fn rules_version(&self) -> &'static str {
        RULES_VERSION
    }
    fn shape(&self) -> Shape {
        Shape {
            seats: SeatRange { min: 7, max: 7, default: 7 },
            options: vec![OptionSpec {
                key: LAST_YEAR,
                kind: OptionType::Integer { min: 1901, max: 2100 },
                default: 1930.into(),
                help: "the last year played: at its end the powers still in the game share a draw",
            }],
            information: Information::Imperfect,
            capabilities: Capabilities { computer: true, encoding: true, clock: true },
        }
    }
    fn create(&self, options: &serde_json::Value, _seed: u64) -> Result<(Box<dyn Match>, Report), Refusal> {
        let mut last = 1930u16;
        match options {
            serde_json::Value::Null => {}
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    match k.as_str() {
                        LAST_YEAR => {
                            last = v.as_u64().filter(|y| (1901..=2100).contains(y)).map(|y| y as u16).ok_or_else(|| {
                                Refusal::new(format!("bad options: {LAST_YEAR} is a year from 1901 to 2100, not {v}"), "game options")
                            })?
                        }
                        arbiter_kernel::kind::SEATS if v.as_u64() == Some(7) => {}
                        _ => {
                            return Err(Refusal::new(
                                format!("bad options: Diplomacy has no option {k:?} (only {LAST_YEAR})"),
                                "game options",
                            ))
                        }
                    }
                }
            }
            _ => return Err(Refusal::new("bad options: an object of options", "game options")),
        }
        let g = Diplomacy::new(last);
        let mut report = Report::default();
        report.public(format!("A game of Diplomacy: seven powers, 1901 to {last} at most; {VICTORY} supply centres win."));
        report.public("Spring 1901.");
        Ok((Box::new(g), report))
    }
}
