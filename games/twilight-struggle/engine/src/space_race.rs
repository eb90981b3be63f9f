//! The space race (§6.4): eight boxes, each with the Ops needed, the roll to succeed, the VP
//! for the first and second arrival, and an ability for the first arriver.

use crate::card::CardId;
use crate::ctx::Ctx;
use crate::error::Illegal;
use crate::instr::Instr;
use crate::log;
use crate::pipeline::Spend;
use crate::refuse;
use crate::registry::Position;
use crate::side::Side;

pub struct SpaceBox {
    pub name: &'static str,
    pub ops_needed: u8,
    /// Success on a roll of 1..=max_roll.
    pub max_roll: u8,
    pub vp_first: u8,
    pub vp_second: u8,
}

impl SpaceBox {
    pub fn name_vp(&self) -> (&'static str, u8, u8) {
        (self.name, self.vp_first, self.vp_second)
    }
}

/// §6.4.3 table.
pub const BOXES: [SpaceBox; 8] = [
    SpaceBox { name: "Earth Satellite", ops_needed: 2, max_roll: 3, vp_first: 2, vp_second: 1 },
    SpaceBox { name: "Animal in Space", ops_needed: 2, max_roll: 4, vp_first: 0, vp_second: 0 },
    SpaceBox { name: "Man in Space", ops_needed: 2, max_roll: 3, vp_first: 2, vp_second: 0 },
    SpaceBox { name: "Man in Earth Orbit", ops_needed: 2, max_roll: 4, vp_first: 0, vp_second: 0 },
    SpaceBox { name: "Lunar Orbit", ops_needed: 3, max_roll: 3, vp_first: 3, vp_second: 1 },
    SpaceBox { name: "Eagle/Bear Has Landed", ops_needed: 3, max_roll: 4, vp_first: 0, vp_second: 0 },
    SpaceBox { name: "Space Shuttle", ops_needed: 3, max_roll: 3, vp_first: 4, vp_second: 2 },
    SpaceBox { name: "Space Station", ops_needed: 4, max_roll: 2, vp_first: 2, vp_second: 0 },
];

/// Box abilities (§6.4.4), numbered as on the track.
pub const ANIMAL_IN_SPACE: u8 = 2;
pub const MAN_IN_EARTH_ORBIT: u8 = 4;
pub const EAGLE_BEAR_HAS_LANDED: u8 = 6;
pub const SPACE_STATION: u8 = 8;

/// May `side` play `card` to the space race now?
pub fn check(p: Position, side: Side, card: CardId, explain: bool) -> Result<(), Illegal> {
    let next = next_box(p, side, explain)?;
    crate::ops::with_values(p, |values| card_suffices(p, values, side, card, next, explain))
}

/// The card's part of `check`, for the box `next_box` found: is `card` worth the Ops that box
/// needs (§6.4.1)? A card play judges the box once and then each card with this, its values
/// read from the thread's reading of the effects (`ops::with_values`).
pub fn card_suffices(
    p: Position,
    values: &mut crate::ops::Values,
    side: Side,
    card: CardId,
    next: &SpaceBox,
    explain: bool,
) -> Result<(), Illegal> {
    if values.nowhere(side, card) < next.ops_needed as i32 {
        // The value's trace (its words) only inside the explanation: listing never reads it.
        return refuse!(
            explain,
            "§6.4.1",
            "{} needs a card of {} Ops; this card is worth {}",
            next.name,
            next.ops_needed,
            crate::ctx::ops_value(p, card, side, Spend::NOWHERE)
        );
    }
    Ok(())
}

/// The box `side` may attempt now, whatever the card (§6.4.2, §6.4.6).
pub fn next_box(p: Position, side: Side, explain: bool) -> Result<&'static SpaceBox, Illegal> {
    let b = p.st.space[side.idx()];
    if b as usize >= BOXES.len() {
        return refuse!(explain, "§6.4.6", "{side} has reached the Space Station and makes no more attempts");
    }
    let limit = if p.st.space_ability(side, ANIMAL_IN_SPACE) { 2 } else { 1 };
    if p.st.space_attempts[side.idx()] >= limit {
        return refuse!(explain, "§6.4.2", "{side} has made {limit} space race attempt(s) this turn");
    }
    Ok(&BOXES[b as usize])
}

/// One attempt: roll, and advance on success. The card's event never happens (§6.4.5).
pub fn attempt(ctx: &mut Ctx, side: Side, card: CardId) {
    ctx.exec(Instr::SpaceAttempt { side });
    let b = ctx.st.space[side.idx()];
    let next = &BOXES[b as usize];
    if ctx.logging {
        let ops = crate::ctx::ops_value(ctx.pos(), card, side, Spend::NOWHERE);
        ctx.log(format!("{side} Ops value: {ops}; {} needs {}", next.name, next.ops_needed));
    }
    let roll = ctx.die(side);
    let ok = roll <= next.max_roll;
    log!(
        ctx,
        "{side} space race attempt for box {} ({}) with {}: rolled {roll}, needs 1-{}: {}",
        b + 1,
        next.name,
        ctx.card_name(card),
        next.max_roll,
        if ok { "success" } else { "failure" }
    );
    if ok {
        ctx.exec(Instr::SpaceAdvance { side, boxes: 1 });
    }
}
