//! The headline phase (§4.5C): both players choose a card secretly; the higher Ops value
//! resolves first, the US first on ties, scoring cards (0) second. The China Card and UN
//! Intervention may not be headlined. Under Man in Earth Orbit the other player chooses first
//! and reveals it. The headliner counts as phasing for its card's DEFCON result.

use crate::card::CardId;
use crate::ctx::Ctx;
use crate::effect::{Effect, Expiry};
use crate::error::{illegal, Illegal};
use crate::instr::Instr;
use crate::moves::Move;
use crate::refuse;
use crate::registry::Intent;
use crate::registry::Position;
use crate::side::Side;
use crate::space_race::MAN_IN_EARTH_ORBIT;
use crate::state::Pile;
use crate::task::Task;
use crate::{log, log_private};

/// The side that must choose (and reveal) first, if Man in Earth Orbit applies (§6.4.4).
pub fn reveals_first(p: Position) -> Option<Side> {
    Side::BOTH.into_iter().find(|s| p.st.space_ability(s.opponent(), MAN_IN_EARTH_ORBIT))
}

pub fn start(ctx: &mut Ctx) {
    log!(ctx, "Headline phase, turn {}", ctx.st.turn);
    ctx.push(Task::HeadlineResolve);
    let first = reveals_first(ctx.pos()).unwrap_or(Side::Ussr);
    ctx.push(Task::HeadlineChoose { side: first.opponent() });
    ctx.push(Task::HeadlineChoose { side: first });
}

/// Every legal headline: each card in hand that may be headlined (`check` judges the same).
/// None once `side` has chosen (it chose while the other side decided: [`at_once`]).
pub fn legal(p: Position, side: Side) -> Vec<Move> {
    if p.st.headline[side.idx()].is_some() {
        return Vec::new();
    }
    // Sized for the whole hand: collecting through the filter would grow the list twice.
    let hand = p.st.hand(side);
    let mut v = Vec::with_capacity(hand.len());
    v.extend(hand.iter().filter(|c| !p.cards().info(*c).no_headline).map(Move::Headline));
    v
}

/// Whether `side` has a headline to choose (what [`legal`] lists is not empty), without
/// listing them.
fn may_choose(p: Position, side: Side) -> bool {
    p.st.headline[side.idx()].is_none() && p.st.hand(side).iter().any(|c| !p.cards().info(c).no_headline)
}

pub fn check(p: Position, side: Side, m: &Move, explain: bool) -> Result<(), Illegal> {
    let Move::Headline(c) = m else {
        return illegal("the headline phase needs `headline CARD`", "§4.5C");
    };
    let info = p.cards().info(*c);
    if *c == CardId::CHINA {
        return illegal("The China Card may not be headlined", "§9.5");
    }
    if p.st.headline[side.idx()].is_some() {
        return illegal(format!("the {side} has already chosen its headline"), "§4.5C");
    }
    if !p.st.hand(side).contains(*c) {
        return refuse!(explain, "§4.5C", "{} is not in {side}'s hand", info.name);
    }
    if info.no_headline {
        return refuse!(explain, c.cite(), "{} may not be headlined: choose another card", info.name);
    }
    Ok(())
}

/// What the side choosing at the same time as the decider is asked.
pub const AT_ONCE: &str = "Choose your headline now";

/// §4.5C: both players choose their headline at the same time, a simultaneous step. The stack
/// holds each side's choice (the USSR's on top, so that it is asked first); the side whose
/// choice lies below chooses meanwhile: it is the side [`at_once`] names while the other's
/// choice is on top, its own choice still to come and nothing chosen yet. Its choice then
/// waits on the stack, skipped when it comes up (chosen already). Not under Man in Earth Orbit
/// (§6.4.4), where one side reveals first and the other chooses knowing it: the order stays
/// sequential.
pub fn at_once(p: Position) -> Option<Side> {
    let st = p.st;
    let Some(Task::HeadlineChoose { side: first }) = st.stack.last() else { return None };
    let side = first.opponent();
    let own_to_come = st.stack.iter().any(|t| matches!(t, Task::HeadlineChoose { side: s } if *s == side));
    let open = own_to_come && reveals_first(p).is_none() && st.outcome.is_none() && may_choose(p, side);
    open.then_some(side)
}

/// Why `side` may not choose its headline now, while the other side's choice is on top and
/// `side` does not choose at the same time ([`at_once`]).
pub fn not_now(p: Position, side: Side) -> Illegal {
    match (p.st.headline[side.idx()], reveals_first(p)) {
        (Some(_), _) => Illegal::new(format!("the {side} has already chosen its headline"), "§4.5C"),
        (None, Some(first)) => Illegal::new(
            format!(
                "under Man in Earth Orbit the {first} chooses and reveals its headline first; the {} chooses after it",
                first.opponent()
            ),
            "§6.4.4",
        ),
        (None, None) => Illegal::new(format!("the {side} has no card it may headline"), "§4.5C"),
    }
}

pub fn apply_choice(ctx: &mut Ctx, side: Side, m: &Move) {
    let Move::Headline(c) = m else { return };
    ctx.exec(Instr::MoveCard { card: *c, to: Pile::Headline(side) });
    // The rest only logs: quiet play (random playouts) skips the name and the question.
    if !ctx.logging {
        return;
    }
    let name = ctx.card_name(*c).to_string();
    if reveals_first(ctx.pos()) == Some(side) {
        log!(ctx, "{side} headlines {name}, revealed first (Man in Earth Orbit, §6.4.4)");
    } else {
        log!(ctx, "{side} has chosen a headline card");
        log_private!(ctx, side, "{side} headlines {name}");
    }
}

/// Reveal both, let the effects in play and the revealed cards themselves intercept each
/// headline (Defectors cancels the USSR headline), then order by Ops.
pub fn resolve(ctx: &mut Ctx) {
    let cards = ctx.st.headline;
    // Composed only when logging, as every other line (quiet play composed this one too).
    if ctx.logging {
        let name = |c: Option<CardId>| c.map(|c| ctx.card_name(c).to_string()).unwrap_or_else(|| "nothing".into());
        let line = format!("Headlines revealed: US {}, USSR {}", name(cards[0]), name(cards[1]));
        ctx.log(line);
    }
    ctx.reveal();
    // The revealed cards act as sources too, each owned by the side that headlined it.
    // At most one per side: on the stack (this runs every turn).
    let revealed: arrayvec::ArrayVec<Effect, 2> =
        Side::BOTH.into_iter().filter_map(|s| cards[s.idx()].map(|c| Effect::new(c, s, Expiry::EndOfTurn))).collect();
    let mut cancelled = Vec::new();
    for side in Side::BOTH {
        let Some(card) = cards[side.idx()] else { continue };
        if let Some((by, v)) = ctx.intercept(&revealed, &Intent::Headline { card, by: side }, &[]) {
            ctx.overruled(by, v);
            cancelled.push(card);
        }
    }
    for card in cancelled {
        ctx.exec(Instr::MoveCard { card, to: Pile::Discard });
    }
    let ops = |c: Option<CardId>| {
        c.map(|c| {
            let i = ctx.rules.cards.info(c);
            if i.scoring {
                0
            } else {
                i.ops
            }
        })
    };
    let first = match (ops(ctx.st.headline[0]), ops(ctx.st.headline[1])) {
        (Some(us), Some(ussr)) if ussr > us => Side::Ussr,
        (None, Some(_)) => Side::Ussr,
        _ => Side::Us,
    };
    ctx.push(Task::HeadlineEnd);
    ctx.push(Task::HeadlineEvent { side: first.opponent() });
    ctx.push(Task::HeadlineEvent { side: first });
}

pub fn event(ctx: &mut Ctx, side: Side) {
    let Some(card) = ctx.st.headline[side.idx()] else {
        return;
    };
    ctx.st.phasing = side;
    // §6.1.1: Ops an event grants here judge access from Influence held now, where they begin
    // (not at the start of the previous turn's last action round).
    ctx.st.round_start_presence = ctx.st.masks().presence;
    ctx.st.headline[side.idx()] = None;
    ctx.put_in_play(card, side);
    let owner = ctx.rules.cards.info(card).side.side().unwrap_or(side);
    log!(ctx, "{side} headline: {}", ctx.card_name(card));
    ctx.emit(crate::instr::DomainEvent::CardPlayed { side, card, mode: crate::moves::PlayMode::Event, headline: true });
    ctx.resolve_event(card, owner);
}

pub fn end(ctx: &mut Ctx) {
    // The cards in play when the phase ends, in order, on the stack (this runs every turn; the
    // headlines are two, with the cards their events put in play).
    let mut buf = arrayvec::ArrayVec::<CardId, 8>::new();
    let spill: Vec<CardId> = if ctx.st.in_play.len() <= buf.capacity() {
        buf.extend(ctx.st.in_play.iter().map(|p| p.card));
        Vec::new()
    } else {
        ctx.st.in_play.iter().map(|p| p.card).collect()
    };
    let cards: &[CardId] = if spill.is_empty() { &buf } else { &spill };
    for &c in cards {
        ctx.dispose(c);
    }
}
