//! North Sea Oil (#86): the US may take 8 action rounds this turn (8, not one more: with the
//! Space Station it is still 8, card text); the 8th is optional ("may"). Its marker prevents
//! OPEC for the rest of the game (card data). The effect's parameter is the turn it was
//! played.

use super::ids::NORTH_SEA_OIL;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::Memo;
use arbiter_twilight::effect::{Effect, Expiry, Remembers, Shape};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::{CardEvent, Lasting, NoStep, Position, Ruleset, Side};

struct NorthSeaOil;

impl CardEvent for NorthSeaOil {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let turn = ctx.st().turn;
        ctx.exec(Instr::AddEffect(Effect { memo: Memo::Turn(turn), ..Effect::new(NORTH_SEA_OIL, side, Expiry::Permanent) }));
    }
}

impl Lasting for NorthSeaOil {
    /// Neither intercepts nor reacts: it adds an action round.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.rounds()
    }
    /// For the rest of the game, remembering the turn it was played.
    fn shape(&self, usual: Shape) -> Shape {
        Shape { expiry: Expiry::Permanent, remembers: Remembers::Turn, ..usual }
    }
    fn extra_action_rounds(&self, p: Position, e: &Effect, side: Side) -> u8 {
        u8::from(side == e.owner && e.memo == Memo::Turn(p.st.turn))
    }
}

pub fn register(r: &mut Ruleset) {
    r.both(NORTH_SEA_OIL, NorthSeaOil);
}
