//! Orders in the notation players write, any case, names or abbreviations: `A Par - Bur`,
//! `F Nth C A Lon - Bel`, `A Mun S A Par - Bur`, `A Mun Supports A Silesia`, `F Spa/sc - Mao`,
//! `F Spain(sc) - Gulf of Lyon`, `A Lon - Bel via convoy`, `A Bur H`; and the check of an order
//! against the map (RULINGS.md D02): what a unit cannot order is refused with the reason.

use crate::map::{Coast, Loc, Map, Power, Province, Terrain, UnitKind};
use serde::{Deserialize, Serialize};

/// A unit on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unit {
    pub power: Power,
    pub kind: UnitKind,
    pub at: Loc,
}

/// A movement phase's order for one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Order {
    Hold,
    /// To a province; a fleet's move names the coast it arrives at.
    Move {
        to: Loc,
        via_convoy: bool,
    },
    /// Support of the unit in `target` holding (`to` none) or moving to `to`; a coast named
    /// must be the one the fleet supported moves to (DATC 4.B.4).
    Support {
        target: Province,
        to: Option<Province>,
        coast: Option<Coast>,
    },
    /// A fleet at sea convoys the army in `from` to `to`.
    Convoy {
        from: Province,
        to: Province,
    },
}

/// An order as written: the unit it names and what it orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub kind: Option<UnitKind>,
    pub at: Province,
    pub coast: Option<Coast>,
    pub order: WrittenOrder,
}

/// What an order says, before it is checked against the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrittenOrder {
    Hold,
    Move {
        to: Province,
        coast: Option<Coast>,
        via_convoy: bool,
    },
    Support {
        target: Province,
        to: Option<Province>,
        coast: Option<Coast>,
    },
    Convoy {
        from: Province,
        to: Province,
    },
    /// A dislodged unit leaves the board (a retreat phase), or a unit is removed (adjustments).
    Disband,
}

/// Why an order was refused: in a player's words, with the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderError {
    pub reason: String,
}

fn refuse<T>(reason: impl Into<String>) -> Result<T, OrderError> {
    Err(OrderError { reason: reason.into() })
}

/// The words of an order: lower case, `(sc)` read as `/sc`, `-` and `/` apart.
fn words(text: &str) -> Vec<String> {
    let t = text.to_lowercase().replace("->", " - ").replace('(', "/").replace(')', " ").replace('-', " - ").replace('/', " / ");
    t.split_whitespace().map(String::from).collect()
}

struct Cursor<'a> {
    map: &'a Map,
    words: Vec<String>,
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<&str> {
        self.words.get(self.at).map(String::as_str)
    }

    fn eat(&mut self, any: &[&str]) -> bool {
        match self.peek() {
            Some(w) if any.contains(&w) => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    fn done(&self) -> bool {
        self.at >= self.words.len()
    }

    fn kind(&mut self) -> Option<UnitKind> {
        if self.eat(&["a", "army"]) {
            Some(UnitKind::Army)
        } else if self.eat(&["f", "fleet"]) {
            Some(UnitKind::Fleet)
        } else {
            None
        }
    }

    /// The longest run of words (up to four) that names a province.
    fn province(&mut self) -> Result<Province, OrderError> {
        for n in (1..=4).rev() {
            if self.at + n > self.words.len() {
                continue;
            }
            let name = self.words[self.at..self.at + n].join(" ");
            if let Some(p) = self.map.find(&name).or_else(|| self.map.find(&name.replace(" - ", "-"))) {
                self.at += n;
                return Ok(p);
            }
        }
        match self.peek() {
            Some(w) => refuse(format!("no province {w:?} on the map")),
            None => refuse("a province is missing at the end of the order"),
        }
    }

    /// A coast after a province: `/sc`, `(sc)`, `/south coast`, `sc`.
    fn coast(&mut self) -> Result<Option<Coast>, OrderError> {
        let slash = self.eat(&["/"]);
        // Without a slash only `nc`, `sc`, `ec` name a coast (`s` is a support).
        let coast = match (self.peek(), slash) {
            (Some("nc"), _) | (Some("n" | "north"), true) => Coast::North,
            (Some("sc"), _) | (Some("s" | "south"), true) => Coast::South,
            (Some("ec"), _) | (Some("e" | "east"), true) => Coast::East,
            (Some(w), true) => return refuse(format!("no coast {w:?}: nc, sc or ec")),
            (None, true) => return refuse("a coast is missing after /"),
            (_, false) => return Ok(None),
        };
        self.at += 1;
        self.eat(&["coast"]);
        Ok(Some(coast))
    }
}

/// Read a unit as written: `F North Sea`, `A Par`, `F Spain(sc)`.
pub fn parse_unit(map: &Map, text: &str) -> Result<(UnitKind, Loc), OrderError> {
    let mut c = Cursor { map, words: words(text), at: 0 };
    let Some(kind) = c.kind() else { return refuse(format!("{text:?}: a unit is A or F and its place: A Par, F Spa/sc")) };
    let p = c.province()?;
    let coast = c.coast()?;
    if !c.done() {
        return refuse(format!("{text:?}: more than a unit"));
    }
    let coast = match (kind, coast, map.data(p).coasts.as_slice()) {
        (UnitKind::Fleet, None, [_, ..]) => return refuse(format!("{text:?}: name the coast the fleet is on")),
        (UnitKind::Army, Some(_), _) => None,
        (_, c, _) => c,
    };
    let at = map.loc(p, coast).ok_or_else(|| OrderError { reason: format!("{text:?}: no such coast") })?;
    if !map.can_stand(kind, at) {
        return refuse(format!("{text:?}: such a unit cannot stand there"));
    }
    Ok((kind, at))
}

/// Read a unit as an adjustment names it (`A Berlin`, `F St Petersburg(nc)`): its kind and
/// place, the coast left out if none is named, nothing checked.
pub fn parse_unit_loose(map: &Map, text: &str) -> Result<(UnitKind, Loc), OrderError> {
    let mut c = Cursor { map, words: words(text), at: 0 };
    let Some(kind) = c.kind() else { return refuse(format!("{text:?}: name the unit, A or F, and its place")) };
    let p = c.province()?;
    let coast = c.coast()?;
    if !c.done() {
        return refuse(format!("{text:?}: more than a unit"));
    }
    let coast = if kind == UnitKind::Army { None } else { coast };
    let at = map.loc(p, coast).ok_or_else(|| OrderError { reason: format!("{text:?}: no such coast") })?;
    Ok((kind, at))
}

/// Read an order's words (nothing checked against the board yet).
pub fn parse(map: &Map, text: &str) -> Result<Written, OrderError> {
    let mut c = Cursor { map, words: words(text), at: 0 };
    if c.done() {
        return refuse("an order names a unit and what it does: A Par - Bur, F Nth C A Lon - Bel, A Mun S A Par");
    }
    let kind = c.kind();
    let at = c.province()?;
    let coast = c.coast()?;
    let order = if c.done() || c.eat(&["h", "hold", "holds", "stand", "stands"]) {
        WrittenOrder::Hold
    } else if c.eat(&["d", "disband", "disbands", "remove", "removes"]) {
        WrittenOrder::Disband
    } else if c.eat(&["-", "to", "moves", "move", "m", "r", "retreat", "retreats"]) {
        c.eat(&["to"]);
        let to = c.province()?;
        let coast = c.coast()?;
        // `via convoy`, `by convoy`, or `via` alone (the DAIDE-style short form).
        let via_convoy = match c.eat(&["via", "by"]) {
            true => {
                c.eat(&["convoy"]);
                true
            }
            false => false,
        };
        WrittenOrder::Move { to, coast, via_convoy }
    } else if c.eat(&["s", "support", "supports"]) {
        c.kind();
        let target = c.province()?;
        c.coast()?;
        let (to, coast) = match c.eat(&["-", "to", "moves", "move"]) {
            true => {
                c.eat(&["to"]);
                let p = c.province()?;
                (Some(p), c.coast()?)
            }
            false => {
                c.eat(&["h", "hold", "holds"]);
                (None, None)
            }
        };
        WrittenOrder::Support { target, to, coast }
    } else if c.eat(&["c", "convoy", "convoys"]) {
        c.kind();
        let from = c.province()?;
        if !c.eat(&["-", "to"]) {
            return refuse("a convoy names the army's move: F Nth C A Lon - Bel");
        }
        let to = c.province()?;
        WrittenOrder::Convoy { from, to }
    } else {
        return refuse(format!("no order {:?}: hold (H), move (-), support (S) or convoy (C)", c.peek().unwrap_or_default()));
    };
    if !c.done() {
        return refuse(format!("{:?} is more than the order says", c.words[c.at..].join(" ")));
    }
    Ok(Written { kind, at, coast, order })
}

/// Check `w`, given by `power`, against the board (`unit_at`: the unit in a province) and the
/// map, and make it an order for its unit. Refused (D02): an order for a unit that is not there
/// or not the power's; a move the unit cannot make by the map (an army may always be ordered
/// from a coast to another coast: it may be convoyed); a support to a province the supporter
/// could not move to, or to its own; a convoy by a unit that is not a fleet at sea.
pub fn check(map: &Map, power: Power, w: &Written, unit_at: impl Fn(Province) -> Option<Unit>) -> Result<(Unit, Order), OrderError> {
    let name = |p: Province| map.data(p).name.clone();
    let Some(unit) = unit_at(w.at) else { return refuse(format!("there is no unit in {}", name(w.at))) };
    if unit.power != power {
        return refuse(format!(
            "the unit in {} is {}'s, not {}'s",
            name(w.at),
            map.powers[usize::from(unit.power.0)].name,
            map.powers[usize::from(power.0)].name
        ));
    }
    if w.kind.is_some_and(|k| k != unit.kind) {
        return refuse(format!("the unit in {} is {}", name(w.at), if unit.kind == UnitKind::Army { "an army" } else { "a fleet" }));
    }
    let order = match w.order {
        WrittenOrder::Hold => Order::Hold,
        WrittenOrder::Disband => return refuse("a unit disbands only when dislodged, or in the winter adjustments"),
        WrittenOrder::Move { to, coast, via_convoy } => {
            if to == w.at {
                return refuse(format!("a unit cannot move to its own province ({})", name(to)));
            }
            match unit.kind {
                UnitKind::Army => {
                    // A coast named means nothing to an army (DATC 4.B.6): it is ignored.
                    if map.terrain(to) == Terrain::Sea {
                        return refuse(format!("an army cannot move to a sea ({})", name(to)));
                    }
                    let by_sea = map.terrain(map.province(unit.at)) == Terrain::Coast && map.terrain(to) == Terrain::Coast;
                    if !map.army_adjacent(map.province(unit.at), to) && !by_sea {
                        return refuse(format!("{} is not adjacent to {}, and no convoy can carry an army there", name(to), name(w.at)));
                    }
                    if via_convoy && !by_sea {
                        return refuse("only an army on a coast may be convoyed, to another coast");
                    }
                    Order::Move { to: Loc(to.0), via_convoy }
                }
                UnitKind::Fleet => {
                    if via_convoy {
                        return refuse("only an army is convoyed");
                    }
                    if map.terrain(to) == Terrain::Inland {
                        return refuse(format!("a fleet cannot move inland ({})", name(to)));
                    }
                    let targets = map.fleet_targets(unit.at, to);
                    let loc = match (coast, targets.as_slice()) {
                        (_, []) => return refuse(format!("a fleet in {} cannot reach {}", map.long(unit.at), name(to))),
                        (None, [one]) => *one,
                        (None, _) => return refuse(format!("name the coast of {} the fleet moves to (nc, sc or ec)", name(to))),
                        (Some(c), many) => match many.iter().find(|l| map.coast(**l) == Some(c)) {
                            Some(l) => *l,
                            None if map.data(to).coasts.is_empty() => *many.first().unwrap_or(&Loc(to.0)),
                            None => {
                                return refuse(format!(
                                    "a fleet in {} cannot reach {}",
                                    map.long(unit.at),
                                    map.long(map.loc(to, Some(c)).unwrap_or(Loc(to.0)))
                                ))
                            }
                        },
                    };
                    Order::Move { to: loc, via_convoy: false }
                }
            }
        }
        WrittenOrder::Support { target, to, coast } => {
            let dest = to.unwrap_or(target);
            if dest == w.at {
                return refuse(format!("a unit cannot support a move to or a hold in its own province ({})", name(dest)));
            }
            if !map.reaches(unit.kind, unit.at, dest) {
                return refuse(format!(
                    "a unit supports only where it could move itself: {} cannot reach {}",
                    map.long(unit.at),
                    name(dest)
                ));
            }
            Order::Support { target, to, coast }
        }
        WrittenOrder::Convoy { from, to } => {
            if unit.kind != UnitKind::Fleet || map.terrain(map.province(unit.at)) != Terrain::Sea {
                return refuse("only a fleet at sea convoys");
            }
            Order::Convoy { from, to }
        }
    };
    Ok((unit, order))
}

/// An order in the short notation: `A Par - Bur`, `F Nth C A Lon - Bel`.
pub fn text(map: &Map, unit: &Unit, order: &Order, kind_at: impl Fn(Province) -> Option<UnitKind>) -> String {
    let p = |x: Province| map.short(Loc(x.0));
    let of = |x: Province| kind_at(x).map_or(String::new(), |k| format!("{} ", k.letter()));
    let head = format!("{} {}", unit.kind.letter(), map.short(unit.at));
    match *order {
        Order::Hold => format!("{head} H"),
        Order::Move { to, via_convoy } => format!("{head} - {}{}", map.short(to), if via_convoy { " via convoy" } else { "" }),
        Order::Support { target, to: None, .. } => format!("{head} S {}{}", of(target), p(target)),
        Order::Support { target, to: Some(to), coast } => {
            format!("{head} S {}{} - {}{}", of(target), p(target), p(to), coast.map_or(String::new(), |c| format!("/{}", c.abbreviation())))
        }
        Order::Convoy { from, to } => format!("{head} C A {} - {}", p(from), p(to)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::standard;
    use rstest::rstest;

    #[rstest]
    #[case("A Par - Bur", "A Par - Bur")]
    #[case("a paris -> burgundy", "A Par - Bur")]
    #[case("F Nth C A Lon - Bel", "F Nth C A Lon - Bel")]
    #[case("F North Sea Convoys A London - Belgium", "F Nth C A Lon - Bel")]
    #[case("A Mun S A Par - Bur", "A Mun S A Par - Bur")]
    #[case("A Munich Supports A Silesia", "A Mun S A Sil")]
    #[case("F Spa/sc - Mao", "F Spa/sc - Mao")]
    #[case("F Spain(sc) - Gulf of Lyon", "F Spa/sc - Lyo")]
    #[case("F Mid-Atlantic Ocean - Spain(nc)", "F Mao - Spa/nc")]
    #[case("A Lon - Bel via convoy", "A Lon - Bel via convoy")]
    #[case("A Bur H", "A Bur H")]
    #[case("F St Petersburg(sc) - Gulf of Bothnia", "F Stp/sc - Bot")]
    fn orders_are_read_in_any_notation(#[case] written: &str, #[case] short: &str) {
        let m = standard();
        let w = parse(m, written).unwrap_or_else(|e| panic!("{written}: {}", e.reason));
        let power = Power(0);
        let unit_at = |p: Province| {
            let kind = if m.terrain(p) == Terrain::Sea || (w.kind == Some(UnitKind::Fleet) && p == w.at) {
                UnitKind::Fleet
            } else {
                UnitKind::Army
            };
            let at = if p == w.at { m.loc(p, w.coast).unwrap() } else { Loc(p.0) };
            Some(Unit { power, kind, at })
        };
        let (unit, order) = check(m, power, &w, unit_at).unwrap_or_else(|e| panic!("{written}: {}", e.reason));
        assert_eq!(text(m, &unit, &order, |p| unit_at(p).map(|u| u.kind)), short);
    }

    #[rstest]
    #[case("A Par - Nth", "cannot move to a sea")]
    #[case("F Bre - Par", "cannot move inland")]
    #[case("A Par - Par", "its own province")]
    #[case("A Par - Mos", "not adjacent")]
    #[case("F Mao - Spa", "name the coast")]
    #[case("F Gas - Spa/sc", "cannot reach Spain (south coast)")]
    #[case("A Par S A Mar - Spa", "could move itself")]
    #[case("A Bre C A Par - Lon", "only a fleet at sea convoys")]
    #[case("A Par jumps", "no order")]
    #[case("A Atlantis - Par", "no province")]
    fn orders_a_unit_cannot_give_are_refused(#[case] written: &str, #[case] says: &str) {
        let m = standard();
        let e = parse(m, written).and_then(|w| {
            let kind = w.kind.unwrap_or(UnitKind::Army);
            let at = m.loc(w.at, w.coast).unwrap();
            check(m, Power(0), &w, |p| (p == w.at).then_some(Unit { power: Power(0), kind, at }))
        });
        let reason = e.err().map(|e| e.reason).unwrap_or_default();
        assert!(reason.contains(says), "{written}: {reason:?}");
    }
}
