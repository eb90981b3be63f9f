//! Action rounds (§4.5D, §5): the USSR then the US, one card each, 6 or 7 rounds (8 with the
//! Space Station). A card is played for its event, for Operations, or to the space race; an
//! opponent's event on a card played for Ops still happens, before or after, as the player
//! chooses (§5.2). The played card stays in play until the end of the round.

use crate::card::CardId;
use crate::ctx::Ctx;
use crate::error::{illegal, Illegal};
use crate::flow::{OpsTask, Task};
use crate::instr::DomainEvent;
use crate::log;
use crate::moves::{Move, PlayMode};
use crate::refuse;
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
    ctx.st.round_start_presence = ctx.st.masks().presence;
    log!(ctx, "--- Turn {}, action round {round}: {side} ---", ctx.st.turn);
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

const MODES: [PlayMode; 5] = [PlayMode::Event, PlayMode::Ops, PlayMode::OpsThenEvent, PlayMode::EventThenOps, PlayMode::Space];

/// The arbitrator of an action round's card play. What holds for the whole decision (the
/// scoring-card lock, the Ops modifiers, the moves effects offer) is worked out once.
pub struct Judge<'a> {
    p: Position<'a>,
    side: Side,
    explain: bool,
    scoring_lock: Option<(usize, usize)>,
    mods: Vec<crate::pipeline::OpsModifier>,
    effect_moves: Vec<Move>,
}

impl<'a> Judge<'a> {
    pub fn new(p: Position<'a>, side: Side, explain: bool) -> Judge<'a> {
        let mut effect_moves = Vec::new();
        for e in &p.st.effects {
            if let Some(h) = p.rules.event(e.card) {
                h.round_moves(p, e, side, &mut effect_moves);
            }
        }
        Judge { p, side, explain, scoring_lock: must_play_scoring(p, side), mods: p.ops_modifiers(), effect_moves }
    }

    /// Every legal move: each playable card in each way, `pass`, and the effects' moves.
    pub fn legal(&self) -> Vec<Move> {
        let mut cards: Vec<CardId> = self.p.st.hand(self.side).iter().collect();
        if self.p.st.holds_playable_china(self.side) {
            cards.push(CardId::CHINA);
        }
        let mut out = Vec::with_capacity(cards.len() * 3 + 1);
        let candidates = cards.into_iter().flat_map(|card| MODES.map(|mode| Move::Play { card, mode }));
        out.extend(candidates.chain([Move::Pass]).chain(self.effect_moves.iter().copied()).filter(|m| self.check(m).is_ok()));
        out
    }

    pub fn check(&self, m: &Move) -> Result<(), Illegal> {
        match m {
            Move::Play { card, mode } => self.check_play(*card, *mode),
            Move::Pass if !self.p.st.hand(self.side).is_empty() => illegal("a player with cards may not pass", "§5.1"),
            Move::Pass => Ok(()), // only the China Card is left: it is never forced (§9.8)
            Move::Cancel { .. } if self.effect_moves.contains(m) => Ok(()),
            Move::Cancel { .. } => illegal("there is no such effect to cancel now", "card text"),
            _ => illegal("an action round needs a card play: `play CARD event|ops|space`", "§5"),
        }
    }

    fn check_play(&self, card: CardId, mode: PlayMode) -> Result<(), Illegal> {
        let (p, side, explain) = (self.p, self.side, self.explain);
        let info = p.cards().info(card);
        let name = &info.name;
        if card == CardId::CHINA {
            if p.st.china.holder != side {
                return refuse!(explain, "§9.1", "{side} does not hold The China Card");
            }
            if !p.st.china.face_up {
                return illegal("The China Card is face down until the end of the turn", "§9.3");
            }
        } else if !p.st.hand(side).contains(card) {
            return refuse!(explain, "§5", "{name} is not in {side}'s hand");
        }
        if let (false, Some((held, left))) = (info.scoring, self.scoring_lock) {
            return refuse!(
                explain,
                "§4.5D",
                "{side} holds {held} scoring card(s) with {left} action round(s) left: a scoring card may never be held"
            );
        }
        let event_side = info.side.side().unwrap_or(side);
        let opponents = event_side != side;
        match mode {
            PlayMode::Event if info.scoring => Ok(()),
            PlayMode::Event if opponents => {
                refuse!(explain, "§5.2", "{name} carries the {event_side} event: play it for Ops, choosing when its event happens")
            }
            PlayMode::Event if !p.rules.implemented(card) => {
                refuse!(explain, "CARDS.md", "the event of {name} is not implemented yet (see CARDS.md)")
            }
            PlayMode::Event => p.rules.event(card).map_or(Ok(()), |h| h.can_occur(p, side)),
            _ if info.scoring => refuse!(explain, "§10.1", "{name} is a scoring card: it can only be played as an event"),
            PlayMode::Ops if opponents && event_would_occur(p, card, event_side) => {
                refuse!(explain, "§5.2", "the {event_side} event of {name} will happen: choose `ops then event` or `event then ops`")
            }
            PlayMode::Ops => Ok(()),
            PlayMode::OpsThenEvent | PlayMode::EventThenOps if !opponents => {
                refuse!(explain, "§5.2", "{name} carries no opponent event: play it for `event` or `ops`")
            }
            PlayMode::OpsThenEvent | PlayMode::EventThenOps if !event_would_occur(p, card, event_side) => {
                refuse!(explain, "§5.2", "the event of {name} would not take place now: play it for `ops`")
            }
            PlayMode::OpsThenEvent | PlayMode::EventThenOps => Ok(()),
            PlayMode::Space => crate::space_race::check_with(p, &self.mods, side, card, explain),
        }
    }
}

pub fn check(p: Position, side: Side, m: &Move, explain: bool) -> Result<(), Illegal> {
    Judge::new(p, side, explain).check(m)
}

pub fn legal(p: Position, side: Side) -> Vec<Move> {
    Judge::new(p, side, false).legal()
}

pub fn apply(ctx: &mut Ctx, side: Side, m: &Move) {
    match m {
        Move::Play { card, mode } => play(ctx, side, *card, *mode),
        Move::Pass => log!(ctx, "{side} passes, keeping The China Card (§9.8)"),
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
    log!(ctx, "{side} plays {} ({} Ops, {:?}) {how}", info.name, info.ops, info.side);
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
