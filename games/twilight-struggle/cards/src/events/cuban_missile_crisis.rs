//! Cuban Missile Crisis (#40): DEFCON to 2; for the rest of the turn the opponent loses if it
//! coups. The opponent may cancel it at any time by removing 2 Influence: the USSR from Cuba,
//! the US from West Germany or Turkey (card text; "Germany" means West Germany, FAQ). The
//! cancel is a standing move, offered at every decision of that side.

use super::ids::CUBAN_MISSILE_CRISIS;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::instr::{DomainEvent, Instr};
use arbiter_twilight::log;
use arbiter_twilight::state::{EndReason, Outcome};
use arbiter_twilight::{CardEvent, CountryId, Lasting, Map, Move, NoStep, Position, Side};

pub struct CubanMissileCrisis {
    /// Where each side may remove 2 Influence to cancel it: [US, USSR].
    cancel: [Vec<CountryId>; 2],
}

impl CubanMissileCrisis {
    pub fn new() -> CubanMissileCrisis {
        let map = Map::standard();
        CubanMissileCrisis { cancel: [vec![map.id("West Germany"), map.id("Turkey")], vec![map.id("Cuba")]] }
    }
}

impl CardEvent for CubanMissileCrisis {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::SetDefcon(2));
        ctx.exec(Instr::AddEffect(Effect::new(CUBAN_MISSILE_CRISIS, side, Expiry::EndOfTurn)));
    }
}

impl Lasting for CubanMissileCrisis {
    /// Asked about the opponent's coups only; offers the cancel as a standing move.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.event(arbiter_twilight::instr::EventKind::CoupAttempted).standing()
    }
    /// The loss trigger: a coup declared by the opponent ends the game before its roll.
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        if let DomainEvent::CoupAttempted { side, .. } = ev {
            if *side == e.owner.opponent() {
                log!(ctx, "{side} attempted a coup under the {}'s Cuban Missile Crisis", e.owner);
                ctx.exec(Instr::EndGame(Outcome { winner: Some(e.owner), reason: EndReason::CubanMissileCrisis }));
            }
        }
    }
    fn standing_moves(&self, p: Position, e: &Effect, side: Side, out: &mut Vec<Move>) {
        if side != e.owner.opponent() {
            return;
        }
        for &c in &self.cancel[side.idx()] {
            if p.st.inf(side, c) >= 2 {
                out.push(Move::Cancel { card: CUBAN_MISSILE_CRISIS, country: Some(c) });
            }
        }
    }
    fn apply_standing(&self, ctx: &mut Ctx, _e: &Effect, side: Side, m: &Move) {
        if let Move::Cancel { country: Some(c), .. } = m {
            log!(ctx, "{side} removes 2 Influence from {} to cancel the Cuban Missile Crisis", Map::standard().name(*c));
            ctx.exec(Instr::RemoveInfluence { side, country: *c, n: 2 });
            ctx.exec(Instr::RemoveEffect(CUBAN_MISSILE_CRISIS));
        }
    }
}
