//! Ordered modifier pipelines (§7.4) for Ops values and die rolls.
//!
//! A modifier is data: its source, who benefits, when it applies, and its operation (add, with an
//! optional cap or floor that bounds that step only). Modifiers apply in stage order, then in the
//! order their effects entered play; the result keeps a trace of every step for the log.
//!
//! Stage order reproduces §7.4's example: the China Card's Asia bonus, then bonuses (Vietnam
//! Revolts, Containment, Brezhnev Doctrine), then penalties (Red Scare/Purge, floor 1). So a 1-Op
//! card under Red Scare/Purge and Vietnam Revolts spent in Southeast Asia is 1 + 1 − 1 = 1, not 2.

use crate::card::{CardDb, CardId};
use crate::map::Region;
use crate::side::Side;

/// Where a modifier comes from: a card, or a base rule (named in the trace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Card(CardId),
    Rule(String),
}

impl Source {
    fn label(&self, cards: &CardDb) -> String {
        match self {
            Source::Card(c) => cards.name(*c).to_string(),
            Source::Rule(s) => s.clone(),
        }
    }
}

/// The explicit order in which Ops modifiers apply (§7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpsStage {
    /// The China Card's own +1 (§9.6).
    ChinaCard,
    /// Bonuses such as Vietnam Revolts, Containment, Brezhnev Doctrine.
    Bonus,
    /// Penalties such as Red Scare/Purge, which have a floor.
    Penalty,
}

/// When an Ops modifier applies, judged by how the Ops were actually spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpsCondition {
    Always,
    /// Every Op spent in Asia, Southeast Asia included (§9.6).
    AllInAsia,
    /// Every Op spent in Southeast Asia (Vietnam Revolts).
    AllInSoutheastAsia,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpsModifier {
    pub source: Source,
    pub stage: OpsStage,
    /// Only the player a modifier was granted to benefits (§7.4.1).
    pub beneficiary: Side,
    pub condition: OpsCondition,
    pub add: i8,
    /// This step may not raise the value above the cap (Containment: "4 maximum").
    pub cap: Option<u8>,
    /// This step may not lower the value below the floor (Red Scare/Purge: "1 minimum").
    pub floor: Option<u8>,
}

/// How the Ops of one card play were (or would be) spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct Spend {
    pub all_in_asia: bool,
    pub all_in_southeast_asia: bool,
}

impl Spend {
    /// Nothing spent yet: every condition is still possible.
    pub const OPEN: Spend = Spend { all_in_asia: true, all_in_southeast_asia: true };
    /// Not spent in any region (space race, discards).
    pub const NOWHERE: Spend = Spend { all_in_asia: false, all_in_southeast_asia: false };

    fn holds(self, c: OpsCondition) -> bool {
        match c {
            OpsCondition::Always => true,
            OpsCondition::AllInAsia => self.all_in_asia,
            OpsCondition::AllInSoutheastAsia => self.all_in_southeast_asia,
        }
    }
}

pub use arbiter_kernel::pipeline::{Step, Traced};

impl arbiter_kernel::pipeline::Modifier for OpsModifier {
    type Stage = OpsStage;
    fn stage(&self) -> OpsStage {
        self.stage
    }
    fn add(&self) -> i32 {
        self.add as i32
    }
    fn cap(&self) -> Option<i32> {
        self.cap.map(i32::from)
    }
    fn floor(&self) -> Option<i32> {
        self.floor.map(i32::from)
    }
}

/// The one Ops fold (§7.4), the kernel's pipeline: stage order, then the order effects entered
/// play; each step's cap or floor bounds that step only. Only the player a modifier was granted
/// to benefits (§7.4.1), and only when the Ops are spent as its condition says.
fn fold_ops<'m>(
    base: u8,
    player: Side,
    mods: impl Iterator<Item = &'m OpsModifier> + Clone,
    spend: Spend,
    step: impl FnMut(&OpsModifier, i32, i32),
) -> i32 {
    const STAGES: [OpsStage; 3] = [OpsStage::ChinaCard, OpsStage::Bonus, OpsStage::Penalty];
    let applying = mods.filter(move |m| m.beneficiary == player && spend.holds(m.condition));
    arbiter_kernel::pipeline::fold(base as i32, &STAGES, applying, step).max(0)
}

/// The Ops value alone (legality checks).
pub fn ops_number<'m>(base: u8, player: Side, mods: impl Iterator<Item = &'m OpsModifier> + Clone, spend: Spend) -> i32 {
    fold_ops(base, player, mods, spend, |_, _, _| {})
}

/// The Ops value with its trace (the log).
pub fn ops_value(base: u8, player: Side, mods: &[OpsModifier], spend: Spend, cards: &CardDb) -> Traced {
    let mut steps = Vec::new();
    let value = fold_ops(base, player, mods.iter(), spend, |m, delta, value| {
        let mut label = m.source.label(cards);
        match m.condition {
            OpsCondition::Always => {}
            OpsCondition::AllInAsia => label.push_str(", all in Asia"),
            OpsCondition::AllInSoutheastAsia => label.push_str(", all in Southeast Asia"),
        }
        if let Some(c) = m.cap {
            label.push_str(&format!(" (max {c})"));
        }
        if let Some(f) = m.floor {
            label.push_str(&format!(" (min {f})"));
        }
        steps.push(Step { label, delta, value });
    });
    Traced { base: base as i32, base_label: "card", steps, value }
}

/// What a die roll is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RollKind {
    Coup,
    Realign,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DieModifier {
    pub source: Source,
    /// Whose roll it modifies.
    pub roller: Side,
    pub kind: RollKind,
    /// Only for targets in these regions; `None` means anywhere.
    pub regions: Option<Vec<Region>>,
    pub add: i8,
}

/// Apply die modifiers to a roll of `roller` against a target in `region`.
pub fn die_total(roll: u8, roller: Side, kind: RollKind, region: Region, mods: &[DieModifier], cards: &CardDb) -> Traced {
    let mut v = roll as i32;
    let mut steps = Vec::new();
    for m in mods.iter().filter(|m| die_applies(m, roller, kind, region)) {
        v += m.add as i32;
        steps.push(Step { label: m.source.label(cards), delta: m.add as i32, value: v });
    }
    Traced { base: roll as i32, base_label: "die", steps, value: v }
}

/// `die_total` without the steps (quiet play composes no labels): the same value.
pub fn die_quiet(roll: u8, roller: Side, kind: RollKind, region: Region, mods: &[DieModifier]) -> Traced {
    let value = roll as i32 + mods.iter().filter(|m| die_applies(m, roller, kind, region)).map(|m| m.add as i32).sum::<i32>();
    Traced { base: roll as i32, base_label: "die", steps: Vec::new(), value }
}

/// Does `m` modify a roll of `roller` of `kind` against a target in `region`?
fn die_applies(m: &DieModifier, roller: Side, kind: RollKind, region: Region) -> bool {
    m.roller == roller && m.kind == kind && m.regions.as_ref().is_none_or(|rs| rs.contains(&region))
}
