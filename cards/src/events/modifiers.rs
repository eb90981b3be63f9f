//! Events whose lasting part is a turn-long Ops or die modifier (§7.4).

use super::ids::*;
use crate::shapes::{nothing, DieSpec, Modifiers, OpsSpec, Who};
use arbiter_engine::ctx::Ctx;
use arbiter_engine::effect::Effect;
use arbiter_engine::flow::EventTask;
use arbiter_engine::instr::Instr;
use arbiter_engine::log;
use arbiter_engine::pipeline::{DieModifier, OpsCondition, OpsModifier, OpsStage, RollKind};
use arbiter_engine::state::Pile;
use arbiter_engine::{CardEvent, Map, Move, Position, Region, Ruleset, Side};

/// "+1 Op, 4 maximum" (Containment, Brezhnev Doctrine).
const PLUS_ONE_MAX_FOUR: &[OpsSpec] =
    &[OpsSpec { who: Who::Owner, stage: OpsStage::Bonus, condition: OpsCondition::Always, add: 1, cap: Some(4), floor: None }];
const LATIN_AMERICA: &[Region] = &[Region::CentralAmerica, Region::SouthAmerica];

fn vietnam_influence(ctx: &mut Ctx, side: Side) {
    let vietnam = Map::standard().id("Vietnam");
    ctx.exec(Instr::AddInfluence { side, country: vietnam, n: 2 });
}

fn salt_defcon(ctx: &mut Ctx, _side: Side) {
    ctx.exec(Instr::ChangeDefcon(2));
}

pub const SALT_MODIFIERS: Modifiers = Modifiers {
    card: SALT,
    ops: &[],
    dice: &[DieSpec { who: Who::Both, kind: RollKind::Coup, regions: None, add: -1 }],
    first: salt_defcon,
};

pub fn register(r: &mut Ruleset) {
    r.register(CONTAINMENT, Box::new(Modifiers { card: CONTAINMENT, ops: PLUS_ONE_MAX_FOUR, dice: &[], first: nothing }));
    r.register(BREZHNEV_DOCTRINE, Box::new(Modifiers { card: BREZHNEV_DOCTRINE, ops: PLUS_ONE_MAX_FOUR, dice: &[], first: nothing }));
    r.register(
        RED_SCARE,
        Box::new(Modifiers {
            card: RED_SCARE,
            ops: &[OpsSpec {
                who: Who::Opponent,
                stage: OpsStage::Penalty,
                condition: OpsCondition::Always,
                add: -1,
                cap: None,
                floor: Some(1),
            }],
            dice: &[],
            first: nothing,
        }),
    );
    r.register(
        VIETNAM_REVOLTS,
        Box::new(Modifiers {
            card: VIETNAM_REVOLTS,
            ops: &[OpsSpec {
                who: Who::Owner,
                stage: OpsStage::Bonus,
                condition: OpsCondition::AllInSoutheastAsia,
                add: 1,
                cap: None,
                floor: None,
            }],
            dice: &[],
            first: vietnam_influence,
        }),
    );
    r.register(
        LATIN_AMERICAN_DEATH_SQUADS,
        Box::new(Modifiers {
            card: LATIN_AMERICAN_DEATH_SQUADS,
            ops: &[],
            // Die roll only, not Ops: military ops are unaffected (AAS RULINGS #4).
            dice: &[
                DieSpec { who: Who::Owner, kind: RollKind::Coup, regions: Some(LATIN_AMERICA), add: 1 },
                DieSpec { who: Who::Opponent, kind: RollKind::Coup, regions: Some(LATIN_AMERICA), add: -1 },
            ],
            first: nothing,
        }),
    );
    r.register(
        IRAN_CONTRA,
        Box::new(Modifiers {
            card: IRAN_CONTRA,
            ops: &[],
            dice: &[DieSpec { who: Who::Opponent, kind: RollKind::Realign, regions: None, add: -1 }],
            first: nothing,
        }),
    );
    r.register(SALT, Box::new(Salt));
}

/// SALT Negotiations: DEFCON +2, coup rolls −1 for both this turn, then the player may take a
/// non-scoring card from the discard pile.
struct Salt;

impl CardEvent for Salt {
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        SALT_MODIFIERS.start(ctx, side);
        if !self.options(ctx.pos(), &EventTask::new(SALT, side)).is_empty() {
            ctx.push(arbiter_engine::Task::Event(EventTask::new(SALT, side)));
        }
    }
    fn prompt(&self, _p: Position, t: &EventTask) -> String {
        format!("{}: take one non-scoring card from the discard pile, or pass (SALT Negotiations)", t.side)
    }
    fn options(&self, p: Position, _t: &EventTask) -> Vec<Move> {
        let cards: Vec<Move> = p.st.discard.iter().filter(|c| !p.cards().info(*c).scoring).map(Move::Take).collect();
        if cards.is_empty() {
            cards
        } else {
            cards.into_iter().chain([Move::Pass]).collect()
        }
    }
    fn apply(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        if let Move::Take(c) = m {
            let name = ctx.card_name(*c).to_string();
            log!(ctx, "{} takes {name} from the discard pile (SALT Negotiations)", t.side);
            ctx.exec(Instr::MoveCard { card: *c, to: Pile::Hand(t.side) });
        }
    }
    fn die_modifiers(&self, e: &Effect, out: &mut Vec<DieModifier>) {
        SALT_MODIFIERS.die_modifiers(e, out);
    }
    fn ops_modifiers(&self, e: &Effect, out: &mut Vec<OpsModifier>) {
        SALT_MODIFIERS.ops_modifiers(e, out);
    }
}
