//! Action rounds (§4.5D, §5): the USSR then the US, one card each, 6 or 7 rounds (8 with the
//! Space Station). A card is played for its event, for Operations, or to the space race; an
//! opponent's event on a card played for Ops still happens, before or after, as the player
//! chooses (§5.2). The played card stays in play until the end of the round.

use crate::card::CardId;
use crate::ctx::Ctx;
use crate::error::{illegal, Illegal};
use crate::flow::{OpsTask, Task};
use crate::instr::DomainEvent;
use crate::moves::{Move, PlayMode};
use crate::registry::Position;
use crate::side::Side;
use crate::turn::action_rounds;

pub fn begin(ctx: &mut Ctx, round: u8, side: Side) {
    let last = action_rounds(ctx.pos(), Side::Us).max(action_rounds(ctx.pos(), Side::Ussr));
    match side {
        Side::Ussr => ctx.push(Task::ActionRound { round, side: Side::Us }),
        Side::Us if round < last => ctx.push(Task::ActionRound { round: round + 1, side: Side::Ussr }),
        Side::Us => {}
    }
    if round > action_rounds(ctx.pos(), side) {
        return;
    }
    ctx.st.round = round;
    ctx.st.phasing = side;
    // §6.1.1: access is judged from Influence held at the start of the round.
    ctx.st.round_start_presence = [ctx.st.presence(Side::Us), ctx.st.presence(Side::Ussr)];
    ctx.log(format!("--- Turn {}, action round {round}: {side} ---", ctx.st.turn));
    ctx.push(Task::EndRound { side });
    let trap = ctx.st.effects.iter().copied().find(|e| ctx.rules.event(e.card).and_then(|h| h.traps(e)) == Some(side));
    match trap {
        Some(e) => {
            if let Some(h) = ctx.rules.event(e.card) {
                h.trapped_round(ctx, &e, side);
            }
        }
        None => ctx.push(Task::ChooseCard { side }),
    }
}

pub fn end(ctx: &mut Ctx, side: Side) {
    ctx.emit(DomainEvent::RoundEnded { side });
    let cards: Vec<CardId> = ctx.st.in_play.iter().map(|p| p.card).collect();
    for c in cards {
        ctx.dispose(c);
    }
}

/// Cards `side` may play now: its hand, plus the China Card if held face up.
fn playable(p: Position, side: Side) -> Vec<CardId> {
    let mut v: Vec<CardId> = p.st.hand(side).iter().collect();
    if p.st.holds_playable_china(side) {
        v.push(CardId::CHINA);
    }
    v
}

pub fn candidates(p: Position, side: Side) -> Vec<Move> {
    const MODES: [PlayMode; 5] = [PlayMode::Event, PlayMode::Ops, PlayMode::OpsThenEvent, PlayMode::EventThenOps, PlayMode::Space];
    let mut v: Vec<Move> = playable(p, side).into_iter().flat_map(|card| MODES.map(|mode| Move::Play { card, mode })).collect();
    v.push(Move::Pass);
    for e in &p.st.effects {
        if let Some(h) = p.rules.event(e.card) {
            h.round_moves(p, e, side, &mut v);
        }
    }
    v
}

/// §4.5D, §10.1.5: scoring cards may never be held, so with as many scoring cards as action
/// rounds left (this one included), only a scoring card may be played. This also keeps The
/// China Card from forcing a hold (§9.5). Returns (scoring cards held, rounds left) when it
/// applies.
pub fn must_play_scoring(p: Position, side: Side) -> Option<(usize, usize)> {
    let held = p.st.hand(side).iter().filter(|c| p.cards().info(*c).scoring).count();
    let left = (action_rounds(p, side) as usize + 1).saturating_sub(p.st.round as usize);
    (held > 0 && held >= left).then_some((held, left))
}

/// Whether the event on `card` would take place if `side` triggered it now.
pub fn event_would_occur(p: Position, card: CardId, side: Side) -> bool {
    p.rules.event(card).is_some_and(|h| h.can_occur(p, side).is_ok())
}

pub fn check(p: Position, side: Side, m: &Move) -> Result<(), Illegal> {
    match m {
        Move::Play { card, mode } => check_play(p, side, *card, *mode),
        Move::Pass => {
            if !p.st.hand(side).is_empty() {
                illegal("a player with cards may not pass", "§5.1")
            } else {
                Ok(()) // only the China Card is left: it is never forced (§9.8)
            }
        }
        Move::Cancel { .. } => {
            let mut v = Vec::new();
            for e in &p.st.effects {
                if let Some(h) = p.rules.event(e.card) {
                    h.round_moves(p, e, side, &mut v);
                }
            }
            if v.contains(m) {
                Ok(())
            } else {
                illegal("there is no such effect to cancel now", "card text")
            }
        }
        _ => illegal("an action round needs a card play: `play CARD event|ops|space`", "§5"),
    }
}

fn check_play(p: Position, side: Side, card: CardId, mode: PlayMode) -> Result<(), Illegal> {
    let info = p.cards().info(card);
    let name = &info.name;
    if card == CardId::CHINA {
        if p.st.china.holder != side {
            return illegal(format!("{side} does not hold The China Card"), "§9.1");
        }
        if !p.st.china.face_up {
            return illegal("The China Card is face down until the end of the turn", "§9.3");
        }
    } else if !p.st.hand(side).contains(card) {
        return illegal(format!("{name} is not in {side}'s hand"), "§5");
    }
    if !info.scoring {
        if let Some((held, left)) = must_play_scoring(p, side) {
            return illegal(
                format!("{side} holds {held} scoring card(s) with {left} action round(s) left: a scoring card may never be held"),
                "§4.5D",
            );
        }
    }
    let event_side = info.side.side().unwrap_or(side);
    let opponents = event_side != side;
    match mode {
        PlayMode::Event if info.scoring => Ok(()),
        PlayMode::Event if opponents => {
            illegal(format!("{name} carries the {event_side} event: play it for Ops, choosing when its event happens"), "§5.2")
        }
        PlayMode::Event if !p.rules.implemented(card) => {
            illegal(format!("the event of {name} is not implemented yet (see CARDS.md)"), "CARDS.md")
        }
        PlayMode::Event => p.rules.event(card).map_or(Ok(()), |h| h.can_occur(p, side)),
        _ if info.scoring => illegal(format!("{name} is a scoring card: it can only be played as an event"), "§10.1"),
        PlayMode::Ops if opponents && event_would_occur(p, card, event_side) => {
            illegal(format!("the {event_side} event of {name} will happen: choose `ops then event` or `event then ops`"), "§5.2")
        }
        PlayMode::Ops => Ok(()),
        PlayMode::OpsThenEvent | PlayMode::EventThenOps if !opponents => {
            illegal(format!("{name} carries no opponent event: play it for `event` or `ops`"), "§5.2")
        }
        PlayMode::OpsThenEvent | PlayMode::EventThenOps if !event_would_occur(p, card, event_side) => {
            illegal(format!("the event of {name} would not take place now: play it for `ops`"), "§5.2")
        }
        PlayMode::OpsThenEvent | PlayMode::EventThenOps => Ok(()),
        PlayMode::Space => crate::space_race::check(p, side, card),
    }
}

pub fn apply(ctx: &mut Ctx, side: Side, m: &Move) {
    match m {
        Move::Play { card, mode } => play(ctx, side, *card, *mode),
        Move::Pass => ctx.log(format!("{side} passes, keeping The China Card (§9.8)")),
        Move::Cancel { card, .. } => {
            let effect = ctx.st.effect(*card).copied();
            if let (Some(e), Some(h)) = (effect, ctx.rules.event(*card)) {
                h.apply_round_move(ctx, &e, side, m);
            }
            ctx.push(Task::ChooseCard { side });
        }
        _ => {}
    }
}

fn play(ctx: &mut Ctx, side: Side, card: CardId, mode: PlayMode) {
    let info = ctx.rules.cards.info(card);
    let event_side = info.side.side().unwrap_or(side);
    let how = match mode {
        PlayMode::Event => "for its event",
        PlayMode::Ops => "for Operations",
        PlayMode::OpsThenEvent => "for Operations, then its event",
        PlayMode::EventThenOps => "for its event first, then Operations",
        PlayMode::Space => "to the space race",
    };
    ctx.log(format!("{side} plays {} ({} Ops, {:?}) {how}", info.name, info.ops, info.side));
    ctx.put_in_play(card, side);
    ctx.emit(DomainEvent::CardPlayed { side, card });
    let ops = Task::Ops(OpsTask::for_card(side, card));
    let event = Task::ResolveEvent { card, side: event_side };
    match mode {
        PlayMode::Event => ctx.push(event),
        PlayMode::Ops if event_side != side => {
            // The event does not occur (not implemented, or cannot take place): say so after.
            ctx.push(event);
            ctx.push(ops);
        }
        PlayMode::Ops => ctx.push(ops),
        PlayMode::OpsThenEvent => {
            ctx.push(event);
            ctx.push(ops);
        }
        PlayMode::EventThenOps => {
            ctx.push(ops);
            ctx.push(event);
        }
        PlayMode::Space => crate::space_race::attempt(ctx, side, card),
    }
}
