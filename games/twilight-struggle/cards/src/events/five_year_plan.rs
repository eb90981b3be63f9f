//! Five Year Plan (#5): the USSR discards a random card; if its event is the US's, the event
//! takes place (for the US), otherwise the card is just discarded (§5.4: discards never trigger
//! events, scoring cards included). The China Card is never taken (§9.5).

use arbiter_twilight::card::CardSide;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::instr::Instr;
use arbiter_twilight::log;
use arbiter_twilight::state::Pile;
use arbiter_twilight::{CardEvent, NoStep, Side};

pub struct FiveYearPlan;

impl CardEvent for FiveYearPlan {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        let Some(card) = ctx.random_card(Side::Ussr) else {
            ctx.log("Five Year Plan: the USSR has no card to discard");
            return;
        };
        let info = ctx.rules.cards.info(card);
        let name = info.name.clone();
        if info.side == CardSide::Us {
            log!(ctx, "Five Year Plan: the USSR discards {name} at random; its US event takes place");
            ctx.put_in_play(card, Side::Us);
            ctx.resolve_event(card, Side::Us);
        } else {
            log!(ctx, "Five Year Plan: the USSR discards {name} at random");
            ctx.exec(Instr::MoveCard { card, to: Pile::Discard });
        }
    }
}
