//! Action rounds (§4.5D, §5): the USSR then the US, one card each, 6 or 7 rounds (8 with the
//! Space Station). A card is played for its event, for Operations, or to the space race; an
//! opponent's event on a card played for Ops still happens, before or after, as the player
//! chooses (§5.2). The played card stays in play until the end of the round.

use crate::card::{CardId, CardSet};
use crate::ctx::Ctx;
use crate::effect::Expiry;
use crate::error::{illegal, Illegal};
use crate::instr::{DomainEvent, Instr};
use crate::listing::Listing;
use crate::log;
use crate::moves::{Move, PlayMode};
use crate::ops::{KeptAccess, KeptReading};
use crate::refuse;
use crate::registry::{Position, Prompt};
use crate::side::Side;
use crate::task::{Modes, OpsTask, PlayTask, Source, Task};
use crate::turn::{action_rounds, base_action_rounds};

pub fn begin(ctx: &mut Ctx, round: u8, side: Side) {
    // Whether there is a round `round` is judged when it would begin, so a round granted during
    // the turn (North Sea Oil, the Space Station reached) is played (§4.5D).
    // Each side's count judged once (it asks every effect in play), and only beyond the
    // turn's base rounds, which every side plays (effects and the Space Station only add).
    if round > base_action_rounds(ctx.pos()) {
        let rounds = Side::BOTH.map(|s| action_rounds(ctx.pos(), s));
        if round > rounds[0].max(rounds[1]) {
            return;
        }
        push_next(ctx, round, side);
        if round > rounds[side.idx()] {
            return;
        }
    } else {
        push_next(ctx, round, side);
    }
    // Effects that last "until the next action round" of this side end now (listed only when
    // there is one: most rounds none ends).
    let ends = |e: &&crate::effect::Effect| e.expiry == Expiry::UntilRoundOf(side);
    if ctx.st.effects.iter().any(|e| ends(&e)) {
        let ending: Vec<CardId> = ctx.st.effects.iter().filter(ends).map(|e| e.card).collect();
        for c in ending {
            ctx.exec(Instr::RemoveEffect(c));
        }
    }
    ctx.st.round = round;
    ctx.st.phasing = side;
    // §6.1.1: access is judged from Influence held at the start of the round.
    ctx.st.round_start_presence = ctx.st.masks().presence;
    log!(ctx, "--- Turn {}, action round {round}: {side} ---", ctx.st.turn);
    ctx.push(Task::EndRound { side });
    // Effects in play may replace the card play (Bear Trap, Quagmire).
    ctx.push_offered(Task::PlayCard(PlayTask::round(side)));
}

/// The next action round after `round` of `side` (§4.5D: the USSR, then the US).
fn push_next(ctx: &mut Ctx, round: u8, side: Side) {
    match side {
        Side::Ussr => ctx.push(Task::ActionRound { round, side: Side::Us }),
        Side::Us => ctx.push(Task::ActionRound { round: round + 1, side: Side::Ussr }),
    }
}

pub fn end(ctx: &mut Ctx, side: Side) {
    ctx.emit(DomainEvent::RoundEnded { side });
    // Each card in play disposed of, first to last: disposal removes the card from `in_play`
    // and puts none there (no list of them needed).
    while let Some(c) = ctx.st.in_play.first().map(|p| p.card) {
        ctx.dispose(c);
    }
}

/// §4.5D, §10.1.5: scoring cards may never be held, so with as many scoring cards as action
/// rounds left (this one included), only a scoring card may be played. This also keeps The
/// China Card from forcing a hold (§9.5). Returns (scoring cards held, rounds left) when it
/// applies.
pub fn must_play_scoring(p: Position, side: Side) -> Option<(usize, usize)> {
    let held = CardSet(p.st.hand(side).0 & p.cards().scoring_cards().0);
    if held.is_empty() {
        return None;
    }
    let held = held.len();
    let left = (action_rounds(p, side) as usize + 1).saturating_sub(p.st.round as usize);
    (held >= left).then_some((held, left))
}

const MODES: [PlayMode; 5] = PlayMode::ALL;

/// The cards a play may use.
fn cards(p: Position, pt: &PlayTask) -> CardSet {
    match pt.source {
        Source::HandAndChina => {
            let mut s = p.st.hand(pt.side);
            if p.st.holds_playable_china(pt.side) {
                s.insert(CardId::CHINA);
            }
            s
        }
        Source::Hand => p.st.hand(pt.side),
        Source::Cards(s) => s,
    }
}

pub fn prompt(p: Position, pt: &PlayTask) -> Prompt {
    let side = pt.side;
    let Some(by) = pt.by else {
        return Prompt::public(format!("{side}: action round {} of turn {}: play a card (§5)", p.st.round, p.st.turn));
    };
    let by = p.cards().name(by);
    let what = if pt.opponent_events_only { format!("a card carrying the {} event", side.opponent()) } else { "a card".into() };
    let how = if pt.event_cancelled { " for Operations; its event is cancelled" } else { "" };
    let pass = if pt.or_else.is_some() { ", or `pass`" } else { "" };
    match pt.source {
        Source::Cards(set) => {
            let names: Vec<&str> = set.iter().map(|c| p.cards().name(c)).collect();
            Prompt {
                text: format!("{side}: {by}: play the card it gives you{how}{pass}."),
                secret: format!("(the card: {})", names.join(", ")),
            }
        }
        _ => Prompt::public(format!("{side}: {by}: play {what}{how}{pass}")),
    }
}

/// A condition on playing a card in a mode, in the order a refusal names the first one
/// failed. Each is a set of cards for the mode ([`Judge::passing`]): listing takes the cards
/// that pass every condition, validation explains the first condition failed, so the list and
/// the checks read the same sets (as Ops do, `ops::Condition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Condition {
    /// §5: the card is one the play may use (the hand, The China Card face up, §9.3, or the
    /// cards an event gives).
    Usable,
    /// §4.5D: with as many scoring cards as rounds left, a scoring card (or a card whose own
    /// event may discard one) must be played.
    ScoringLock,
    /// The event asking for this play wants a card carrying the opponent's event.
    OpponentEvent,
    /// The event asking for this play allows this mode.
    ModeAllowed,
    /// The mode itself: §5.2 (whose event, whether it can take place), §10.1 (scoring cards
    /// only as events), §6.4 (the space race).
    Mode,
}

const CONDITIONS: [Condition; 5] =
    [Condition::Usable, Condition::ScoringLock, Condition::OpponentEvent, Condition::ModeAllowed, Condition::Mode];

/// The arbitrator of a card play. What holds for the whole decision (the cards and modes the
/// task allows, the scoring-card lock, the Ops modifiers, the card sets of each [`Condition`])
/// is worked out once.
pub struct Judge<'a> {
    p: Position<'a>,
    pt: &'a PlayTask,
    explain: bool,
    cards: CardSet,
    scoring_lock: Option<(usize, usize)>,
    /// The cards whose event would take place if played now, for the side whose event it is
    /// (worked out once: every mode of a card asks).
    occurs: CardSet,
    /// The usable cards that are scoring cards, and that carry the opponent's event.
    scoring: CardSet,
    opponents: CardSet,
    /// The usable cards the space race accepts now (§6.4).
    space: CardSet,
    /// Per mode (in `MODES` order): the cards that pass every condition.
    allowed: [CardSet; 5],
}

impl<'a> Judge<'a> {
    pub fn new(p: Position<'a>, pt: &'a PlayTask, explain: bool) -> Judge<'a> {
        Judge::kept(p, pt, explain, &mut KeptReading::default())
    }

    /// [`Judge::new`], finding the thread's reading of the effects (the Ops values of the
    /// space race) as `reading` names it (`ops::with_values_kept`): the listing, from one
    /// decision to the next. Inlined into the listing, which reads only `listing`: the judge is
    /// not copied out to it (`#[inline]` alone left it a call returning the judge by copy).
    #[inline(always)]
    pub fn kept(p: Position<'a>, pt: &'a PlayTask, explain: bool, reading: &mut KeptReading) -> Judge<'a> {
        let scoring_lock = if pt.is_round() { must_play_scoring(p, pt.side) } else { None };
        let cards = cards(p, pt);
        let occurs = if pt.event_cancelled { CardSet::default() } else { p.events_possible(cards, pt.side) };
        let scoring = CardSet(cards.0 & p.cards().scoring_cards().0);
        let opponents = CardSet(cards.0 & p.cards().events_of(pt.side.opponent()).0);
        // The card-independent part of the space race judged once (most turns it is closed).
        let next_box = if pt.modes.allows(PlayMode::Space) { crate::space_race::next_box(p, pt.side, false).ok() } else { None };
        let space = match next_box {
            // The Ops values only where a card's Ops are judged (most turns the race is closed
            // to this side: none are read), from the thread's reading of the effects
            // (`ops::with_values`), one card asked for each group of cards of the same Ops value.
            Some(next) => crate::ops::with_values_kept(p, reading, |values| {
                let mut space = CardSet::default();
                for group in crate::ctx::ops_groups(p, CardSet(cards.0 & !scoring.0)) {
                    let first = group.iter().next();
                    if first.is_some_and(|c| crate::space_race::card_suffices(p, values, pt.side, c, next, false).is_ok()) {
                        space.0 |= group.0;
                    }
                }
                space
            }),
            None => CardSet::default(),
        };
        let mut j = Judge { p, pt, explain, cards, scoring_lock, occurs, scoring, opponents, space, allowed: [CardSet::default(); 5] };
        for mode in MODES {
            j.allowed[mode.index()] = CardSet(CONDITIONS.iter().fold(u128::MAX, |m, c| m & j.passing(mode, *c).0));
        }
        j
    }

    /// The cards that pass `cond` when played in `mode`.
    #[inline]
    fn passing(&self, mode: PlayMode, cond: Condition) -> CardSet {
        let all = CardSet(u128::MAX);
        let (scoring, opponents, occurs) = (self.scoring.0, self.opponents.0, self.occurs.0);
        match cond {
            Condition::Usable => self.cards,
            Condition::ScoringLock => match self.scoring_lock {
                None => all,
                Some((held, left)) => CardSet(scoring | self.spared_by_discards(mode, held, left).0),
            },
            Condition::OpponentEvent => {
                if self.pt.opponent_events_only {
                    self.opponents
                } else {
                    all
                }
            }
            Condition::ModeAllowed => {
                if self.pt.modes.allows(mode) {
                    all
                } else {
                    CardSet::default()
                }
            }
            Condition::Mode => CardSet(match mode {
                PlayMode::Event => scoring | (!opponents & occurs),
                PlayMode::Ops => !scoring & !(opponents & occurs),
                PlayMode::OpsThenEvent | PlayMode::EventThenOps => !scoring & opponents & occurs,
                PlayMode::Space => !scoring & self.space.0,
            }),
        }
    }

    /// Under the scoring-card lock (§4.5D), the cards that may be played in `mode` although
    /// they are not scoring cards. Played now, a card leaves `held` scoring cards for `left - 1`
    /// rounds, unless its own event makes this side discard some of them: the illegal act is
    /// holding one at the end of the turn (§4.5D, FAQ on Five Year Plan), which the turn-end
    /// check judges (§11.1.2). Apart from `passing` (rarely asked: the lock seldom holds), so
    /// that `passing` stays small enough to be inlined into every listing.
    #[inline(never)]
    fn spared_by_discards(&self, mode: PlayMode, held: usize, left: usize) -> CardSet {
        self.cards
            .iter()
            .filter(|c| {
                let event_side = self.p.cards().info(*c).side.side().unwrap_or(self.pt.side);
                held < left + self.own_discards(*c, mode, event_side)
            })
            .collect()
    }

    /// Every legal move: each playable card in each way, and `pass` where allowed, as the sets
    /// judged (written out only when asked: `Listing::Cards`).
    pub fn listing(&self) -> Listing {
        Listing::Cards { allowed: self.allowed, pass: self.may_pass().is_ok(), standing: Vec::new() }
    }

    /// May the player pass? Where the task allows it (an event's optional play), with no card
    /// left (only the China Card, §9.8), or in an action round beyond the turn's six or seven,
    /// which the Space Station or North Sea Oil only allow ("may", §6.4.4, card text).
    fn may_pass(&self) -> Result<(), Illegal> {
        let (p, pt) = (self.p, self.pt);
        if pt.or_else.is_some() || p.st.hand(pt.side).is_empty() {
            return Ok(());
        }
        if pt.is_round() && p.st.round > base_action_rounds(p) {
            return Ok(());
        }
        match pt.by {
            None => illegal("a player with cards may not pass: play one of them, for Operations if no event suits", "§5.1"),
            Some(by) => refuse!(self.explain, by.cite(), "{} requires this card play: it may not be declined", p.cards().name(by)),
        }
    }

    /// How many cards of its own hand the event of `card`, played in `mode`, may make the
    /// player discard (card data `hand_discards`): 0 unless the event takes place in this play.
    fn own_discards(&self, card: CardId, mode: PlayMode, event_side: Side) -> usize {
        let Some(d) = self.p.cards().info(card).hand_discards else {
            return 0;
        };
        let with_event = match mode {
            PlayMode::Event | PlayMode::OpsThenEvent | PlayMode::EventThenOps => true,
            PlayMode::Ops | PlayMode::Space => false,
        };
        if with_event && !self.pt.event_cancelled && self.occurs.contains(card) && d.whose.side(event_side) == self.pt.side {
            d.at_most as usize
        } else {
            0
        }
    }

    /// The scoring cards in the player's hand, by name (for the §4.5D refusal).
    fn scoring_names(&self) -> String {
        let p = self.p;
        let names: Vec<&str> = p.st.hand(self.pt.side).iter().filter(|c| p.cards().info(*c).scoring).map(|c| p.cards().name(c)).collect();
        names.join(", ")
    }

    pub fn check(&self, m: &Move) -> Result<(), Illegal> {
        match m {
            Move::Play { card, mode } => self.check_play(*card, *mode),
            Move::Pass => self.may_pass(),
            _ => illegal("a card play is needed: `play CARD event|ops|space`", "§5"),
        }
    }

    fn check_play(&self, card: CardId, mode: PlayMode) -> Result<(), Illegal> {
        if self.allowed[mode.index()].contains(card) {
            return Ok(());
        }
        match CONDITIONS.iter().find(|c| !self.passing(mode, **c).contains(card)) {
            Some(cond) => self.refusal(*cond, card, mode),
            None => Err(Illegal::new("the card play was refused by no rule (engine inconsistency)", "engine")),
        }
    }

    /// Why `card` may not be played in `mode`, which fails `cond`.
    fn refusal(&self, cond: Condition, card: CardId, mode: PlayMode) -> Result<(), Illegal> {
        let (p, pt, explain) = (self.p, self.pt, self.explain);
        let side = pt.side;
        let info = p.cards().info(card);
        let name = &info.name;
        let event_side = info.side.side().unwrap_or(side);
        match cond {
            Condition::Usable => {
                if card == CardId::CHINA && pt.source == Source::HandAndChina {
                    if p.st.china.holder != side {
                        return refuse!(explain, "§9.1", "{side} does not hold The China Card");
                    }
                    return illegal("The China Card is face down until the end of the turn", "§9.3");
                }
                match (pt.source, pt.by) {
                    (Source::Cards(set), Some(by)) => {
                        let by_name = p.cards().name(by);
                        let cards: Vec<&str> = set.iter().map(|c| p.cards().name(c)).collect();
                        let how = if pt.modes == Modes::ALL {
                            String::new()
                        } else {
                            let ways: Vec<&str> = MODES.iter().filter(|m| pt.modes.allows(**m)).map(|m| m.describe()).collect();
                            format!(" {}", ways.join(" or "))
                        };
                        if pt.in_round {
                            // An obligation on the round's play (Missile Envy): say what it demands.
                            refuse!(explain, by.cite(), "{}{how} must be played this round", cards.join(", "))
                        } else {
                            let pass = if pt.or_else.is_some() { ", or `pass`" } else { "" };
                            refuse!(
                                explain,
                                by.cite(),
                                "{name} is not the card this play allows: {by_name} lets the {side} play only {}{how}{pass}",
                                cards.join(", ")
                            )
                        }
                    }
                    (Source::Cards(_), None) => refuse!(explain, "card text", "{name} is not the card this play allows"),
                    _ if card == CardId::CHINA => illegal("an event never lets The China Card be played", "§9.5"),
                    _ => refuse!(explain, "§5", "{name} is not in {side}'s hand"),
                }
            }
            Condition::ScoringLock => {
                let (held, left) = self.scoring_lock.unwrap_or_default();
                refuse!(
                    explain,
                    "§4.5D",
                    "the {side} holds {held} scoring card(s) ({}) with {left} action round(s) left, this one included: a scoring card may never be held, so play a scoring card now{}",
                    self.scoring_names(),
                    if left == 1 { ", or a card whose event makes you discard it" } else { "" }
                )
            }
            Condition::OpponentEvent => {
                let (by, rule) = by_card(p, pt);
                refuse!(explain, rule, "{name} does not carry the {} event: {by} pairs only with a card that does", side.opponent())
            }
            Condition::ModeAllowed => {
                let (by, rule) = by_card(p, pt);
                let ways: Vec<&str> = MODES.iter().filter(|m| pt.modes.allows(**m)).map(|m| m.describe()).collect();
                refuse!(explain, rule, "{by} does not allow playing {name} {}: play it {}", mode.describe(), ways.join(" or "))
            }
            Condition::Mode => {
                let opponents = self.opponents.contains(card);
                match mode {
                    PlayMode::Event if opponents => {
                        refuse!(explain, "§5.2", "{name} carries the {event_side} event: play it for Ops, choosing when its event happens")
                    }
                    PlayMode::Event if !explain => illegal("the event cannot take place", "§5.2"),
                    PlayMode::Event => match p.event_allowed(card, side) {
                        Err(why) => Err(Illegal::new(format!("{}: play it for Operations or to the space race", why.reason), why.rule)),
                        // Cancelled by the event asking for this play.
                        Ok(()) => illegal("the event cannot take place", "§5.2"),
                    },
                    _ if info.scoring => refuse!(explain, "§10.1", "{name} is a scoring card: it can only be played as an event"),
                    PlayMode::Ops => {
                        refuse!(
                            explain,
                            "§5.2",
                            "the {event_side} event of {name} will happen: choose `ops then event` or `event then ops`"
                        )
                    }
                    PlayMode::OpsThenEvent | PlayMode::EventThenOps if !opponents => {
                        refuse!(explain, "§5.2", "{name} carries no opponent event: play it for `event` or `ops`")
                    }
                    PlayMode::OpsThenEvent | PlayMode::EventThenOps if pt.event_cancelled => {
                        refuse!(explain, by_card(p, pt).1, "the event of {name} is cancelled ({}): play it for `ops`", by_card(p, pt).0)
                    }
                    PlayMode::OpsThenEvent | PlayMode::EventThenOps => {
                        refuse!(explain, "§5.2", "the event of {name} would not take place now: play it for `ops`")
                    }
                    PlayMode::Space => match crate::space_race::check(p, side, card, explain) {
                        Err(why) => Err(why),
                        Ok(()) => Err(Illegal::new("the space race refused this card (engine inconsistency)", "engine")),
                    },
                }
            }
        }
    }
}

/// The event that asks for a card play, by name, and its text as the rule ("this play", "card
/// text" for the round's own play).
fn by_card<'a>(p: Position<'a>, pt: &PlayTask) -> (&'a str, &'static str) {
    match pt.by {
        Some(c) => (p.cards().name(c), c.cite()),
        None => ("this play", "card text"),
    }
}

/// The legal card plays (see [`Judge::listing`]), finding the thread's reading of the effects
/// as `access` names it (and naming it there).
pub fn listing(p: Position, pt: &PlayTask, access: &mut KeptAccess) -> Listing {
    Judge::kept(p, pt, false, &mut access.1).listing()
}

pub fn apply(ctx: &mut Ctx, pt: PlayTask, m: &Move) {
    let side = pt.side;
    match m {
        Move::Play { card, mode } => play(ctx, &pt, *card, *mode),
        Move::Pass => match pt.or_else {
            Some(next) => {
                log!(ctx, "{side} declines the play");
                ctx.push(Task::Continue(next));
            }
            None if ctx.st.hand(side).is_empty() => log!(ctx, "{side} passes, keeping The China Card (§9.8)"),
            None => log!(ctx, "{side} passes this extra action round"),
        },
        _ => ctx.fault(format!("a card play cannot apply {m:?}")),
    }
}

fn play(ctx: &mut Ctx, pt: &PlayTask, card: CardId, mode: PlayMode) {
    let side = pt.side;
    let info = ctx.rules.cards.info(card);
    let event_side = info.side.side().unwrap_or(side);
    let whose = match info.side.side() {
        Some(Side::Us) => "US event",
        Some(Side::Ussr) => "USSR event",
        None => "neutral event",
    };
    log!(ctx, "{side} plays {} ({} Ops, {whose}) {}", info.name, info.ops, mode.describe());
    ctx.put_in_play(card, side);
    ctx.emit(DomainEvent::CardPlayed { side, card, mode, headline: false });
    let ops = Task::Ops(OpsTask::for_card(side, card));
    let event = Task::ResolveEvent { card, side: event_side };
    if pt.event_cancelled && mode != PlayMode::Space && event_side != side {
        let by = pt.by.map(|c| ctx.card_name(c).to_string()).unwrap_or_default();
        log!(ctx, "The event of {} is cancelled ({by})", info.name);
        ctx.push(ops);
        return;
    }
    match mode {
        PlayMode::Event => ctx.push(event),
        PlayMode::Ops if event_side != side => {
            // The event cannot take place (§5.2): the log says so after the Ops.
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
