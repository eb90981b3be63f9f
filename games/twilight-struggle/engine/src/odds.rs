//! Odds of a coup or a realignment, from the same modifier pipelines the engine rolls with, by
//! enumerating every die face (one die for a coup, two for a realignment).

use crate::map::{CountryId, Map};
use crate::pipeline::{self, RollKind};
use crate::registry::Position;
use crate::side::Side;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct CoupOdds {
    pub country: CountryId,
    pub ops: u8,
    /// Probability that the coup removes or adds Influence (result > 0).
    pub success: f64,
    /// Expected opponent Influence removed and own Influence added.
    pub expected_removed: f64,
    pub expected_added: f64,
    /// The die modifiers that apply, as text.
    pub modifiers: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RealignOdds {
    pub country: CountryId,
    pub win: f64,
    pub tie: f64,
    pub lose: f64,
    /// Expected opponent Influence removed, and own Influence lost.
    pub expected_removed: f64,
    pub expected_lost: f64,
    pub modifiers: [Vec<String>; 2],
}

fn modifier_text(t: &pipeline::Traced) -> Vec<String> {
    t.steps.iter().map(|s| format!("{:+} {}", s.delta, s.label)).collect()
}

/// A coup by `side` on `c` with `ops` Ops (§6.3).
pub fn coup(p: Position, side: Side, c: CountryId, ops: u8) -> CoupOdds {
    let country = Map::standard().country(c);
    let opp = p.st.inf(side.opponent(), c) as i32;
    let mods = p.die_modifiers();
    let (mut hits, mut removed, mut added) = (0, 0.0, 0.0);
    let mut shown = Vec::new();
    for die in 1..=6u8 {
        let t = pipeline::die_total(die, side, RollKind::Coup, country.region, &mods, p.cards());
        shown = modifier_text(&t);
        let result = t.value + ops as i32 - 2 * country.stability as i32;
        if result > 0 {
            hits += 1;
            removed += result.min(opp) as f64;
            added += (result - opp).max(0) as f64;
        }
    }
    CoupOdds { country: c, ops, success: hits as f64 / 6.0, expected_removed: removed / 6.0, expected_added: added / 6.0, modifiers: shown }
}

/// One realignment roll by `side` on `c` (§6.2).
pub fn realign(p: Position, side: Side, c: CountryId) -> RealignOdds {
    let region = Map::standard().country(c).region;
    let mine = crate::realign::modifiers(p, side, c);
    let theirs = crate::realign::modifiers(p, side.opponent(), c);
    let (opp_inf, own_inf) = (p.st.inf(side.opponent(), c) as i32, p.st.inf(side, c) as i32);
    let mut o = RealignOdds {
        country: c,
        win: 0.0,
        tie: 0.0,
        lose: 0.0,
        expected_removed: 0.0,
        expected_lost: 0.0,
        modifiers: [Vec::new(), Vec::new()],
    };
    for a in 1..=6u8 {
        let ta = pipeline::die_total(a, side, RollKind::Realign, region, &mine, p.cards());
        for b in 1..=6u8 {
            let tb = pipeline::die_total(b, side.opponent(), RollKind::Realign, region, &theirs, p.cards());
            let d = ta.value - tb.value;
            match d.cmp(&0) {
                std::cmp::Ordering::Greater => {
                    o.win += 1.0;
                    o.expected_removed += d.min(opp_inf) as f64;
                }
                std::cmp::Ordering::Equal => o.tie += 1.0,
                std::cmp::Ordering::Less => {
                    o.lose += 1.0;
                    o.expected_lost += (-d).min(own_inf) as f64;
                }
            }
            o.modifiers = [modifier_text(&ta), modifier_text(&tb)];
        }
    }
    for x in [&mut o.win, &mut o.tie, &mut o.lose, &mut o.expected_removed, &mut o.expected_lost] {
        *x /= 36.0;
    }
    o
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

impl fmt::Display for CoupOdds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = Map::standard().country(self.country);
        write!(
            f,
            "coup {} with {} Ops: succeeds {} (die {}+ needed{}); expected {:.2} Influence removed, {:.2} added",
            c.name,
            self.ops,
            pct(self.success),
            (2 * c.stability as i32 - self.ops as i32 + 1).max(1),
            if self.modifiers.is_empty() { String::new() } else { format!(", before modifiers: {}", self.modifiers.join(", ")) },
            self.expected_removed,
            self.expected_added
        )
    }
}

impl fmt::Display for RealignOdds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mods = |m: &Vec<String>| {
            if m.is_empty() {
                "no modifiers".to_string()
            } else {
                m.join(", ")
            }
        };
        write!(
            f,
            "realign {}: win {}, tie {}, lose {}; expected {:.2} opponent Influence removed, {:.2} own lost (you: {}; opponent: {})",
            Map::standard().name(self.country),
            pct(self.win),
            pct(self.tie),
            pct(self.lose),
            self.expected_removed,
            self.expected_lost,
            mods(&self.modifiers[0]),
            mods(&self.modifiers[1])
        )
    }
}
