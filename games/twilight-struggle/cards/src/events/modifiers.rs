//! Events whose lasting part is a turn-long Ops or die modifier (§7.4).

use super::ids::*;
use crate::shapes::{nothing, DieSpec, Modifiers, OpsSpec, Who};
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::Effect;
use arbiter_twilight::instr::Instr;
use arbiter_twilight::pipeline::{DieModifier, OpsCondition, OpsModifier, OpsStage, RollKind};
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, EventTask, Lasting, Move, Position, Region, Ruleset, Side, Task, Words};

/// "+1 Op, 4 maximum" (Containment, Brezhnev Doctrine).
const PLUS_ONE_MAX_FOUR: &[OpsSpec] =
    &[OpsSpec { who: Who::Owner, stage: OpsStage::Bonus, condition: OpsCondition::Always, add: 1, cap: Some(4), floor: None }];
const LATIN_AMERICA: &[Region] = &[Region::CentralAmerica, Region::SouthAmerica];

fn vietnam_influence(ctx: &mut Ctx, side: Side) {
    ctx.exec(Instr::AddInfluence { side, country: country!("Vietnam"), n: 2 });
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
    r.both(CONTAINMENT, Modifiers { card: CONTAINMENT, ops: PLUS_ONE_MAX_FOUR, dice: &[], first: nothing });
    r.both(BREZHNEV_DOCTRINE, Modifiers { card: BREZHNEV_DOCTRINE, ops: PLUS_ONE_MAX_FOUR, dice: &[], first: nothing });
    r.both(
        RED_SCARE,
        Modifiers {
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
        },
    );
    r.both(
        VIETNAM_REVOLTS,
        Modifiers {
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
        },
    );
    r.both(
        LATIN_AMERICAN_DEATH_SQUADS,
        Modifiers {
            card: LATIN_AMERICAN_DEATH_SQUADS,
            ops: &[],
            // Die roll only, not Ops: military ops are unaffected (AAS RULINGS #4).
            dice: &[
                DieSpec { who: Who::Owner, kind: RollKind::Coup, regions: Some(LATIN_AMERICA), add: 1 },
                DieSpec { who: Who::Opponent, kind: RollKind::Coup, regions: Some(LATIN_AMERICA), add: -1 },
            ],
            first: nothing,
        },
    );
    r.both(
        IRAN_CONTRA,
        Modifiers {
            card: IRAN_CONTRA,
            ops: &[],
            dice: &[DieSpec { who: Who::Opponent, kind: RollKind::Realign, regions: None, add: -1 }],
            first: nothing,
        },
    );
    r.both(SALT, Salt);
}

/// SALT Negotiations: DEFCON +2, coup rolls −1 for both this turn, then the player may take a
/// non-scoring card from the discard pile.
struct Salt;

steps! {
    enum SaltStep { Take }
}

fn salt_choices(p: Position) -> Vec<Move> {
    p.st.discard.iter().filter(|c| !p.cards().info(*c).scoring).map(Move::Take).collect()
}

impl CardEvent for Salt {
    type Step = SaltStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        SALT_MODIFIERS.start(ctx, side);
        if !salt_choices(ctx.pos()).is_empty() {
            ctx.push(Task::Event(EventTask::new(SALT, side).at(SaltStep::Take)));
        }
    }
    fn ask(&self, p: Position, _step: SaltStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| format!("{}: take one non-scoring card from the discard pile, or pass (SALT Negotiations)", t.side));
        Ask::new(t.side, prompt, salt_choices(p)).or_pass()
    }
    fn answer(&self, ctx: &mut Ctx, _step: SaltStep, t: EventTask, m: &Move) {
        match m {
            Move::Take(c) => {
                let name = ctx.card_name(*c).to_string();
                log!(ctx, "{} takes {name} from the discard pile (SALT Negotiations)", t.side);
                ctx.exec(Instr::GiveOpenly { card: *c, side: t.side });
            }
            Move::Pass => log!(ctx, "{} takes no card (SALT Negotiations)", t.side),
            _ => ctx.unexpected(&t, m),
        }
    }
}

impl Lasting for Salt {
    /// Neither intercepts nor reacts.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
    }
    fn die_modifiers(&self, e: &Effect, out: &mut Vec<DieModifier>) {
        SALT_MODIFIERS.die_modifiers(e, out);
    }
    fn ops_modifiers(&self, e: &Effect, out: &mut Vec<OpsModifier>) {
        SALT_MODIFIERS.ops_modifiers(e, out);
    }
}
