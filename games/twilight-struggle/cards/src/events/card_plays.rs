//! Events that play, show, discard or draw cards.
//!
//! - UN Intervention (#32): played together with a card carrying the opponent's event, whose
//!   event is cancelled; its Ops are used (modified by the player's own modifiers, §7.4). A
//!   card-play task limited to such cards, for Operations only. With no such card in hand the
//!   event cannot be played (card text: "together with"). Never in the headline (card data).
//! - Grain Sales to Soviets (#67): the US takes a random card from the USSR hand (never The
//!   China Card, §9.2) and plays it as its own, or returns it and uses this card's Ops.
//! - CIA Created (#26), "Lone Gunman" (#62): the opponent shows its hand; the player conducts
//!   Operations. CIA Created's 1 Op is modified (the rulebook's own example: 2 under Containment,
//!   §7.4.2); "Lone Gunman"'s 1 Op is granted, "as if they played a 1 Ops card", and Ops
//!   modifiers do not change it (FAQ on Red Scare/Purge, as Olympic Games' boycott).
//! - Missile Envy (#49): see `MissileEnvy`.
//! - "Ask Not What Your Country…" (#77): the US discards any number of held cards, scoring
//!   cards included, then draws as many (§4.3 if the deck runs out).

use super::ids::*;
use arbiter_twilight::card::CardSet;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{CardPlace, Effect, Expiry, Shape};
use arbiter_twilight::error::illegal;
use arbiter_twilight::instr::DomainEvent;
use arbiter_twilight::instr::Instr;
use arbiter_twilight::state::Pile;
use arbiter_twilight::Arg;
use arbiter_twilight::{log, log_private, steps};
use arbiter_twilight::{
    Ask, CardEvent, CardId, EventTask, Intent, Lasting, Modes, Move, NoStep, OpsTask, PlayMode, PlayTask, Position, Prerequisite, Priority,
    Ruleset, Side, Source, Task, Verdict, Words,
};

struct UnIntervention;

fn opponent_event_cards(p: Position, side: Side) -> CardSet {
    p.st.hand(side).iter().filter(|c| p.cards().info(*c).side.side() == Some(side.opponent())).collect()
}

impl CardEvent for UnIntervention {
    type Step = NoStep;
    fn prerequisite(&self) -> Option<Prerequisite> {
        Some(|p, side| {
            if opponent_event_cards(p, side).is_empty() {
                illegal(
                    format!(
                        "UN Intervention is played together with a card carrying the {} event, and the {side} holds none",
                        side.opponent()
                    ),
                    UN_INTERVENTION.cite(),
                )
            } else {
                Ok(())
            }
        })
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::PlayCard(PlayTask {
            side,
            source: Source::Hand,
            opponent_events_only: true,
            modes: Modes::of(&[PlayMode::Ops]),
            event_cancelled: true,
            by: Some(UN_INTERVENTION),
            or_else: None,
            in_round: false,
        }));
    }
}

steps! {
    enum GrainStep { Returned }
}

struct GrainSales;

impl CardEvent for GrainSales {
    type Step = GrainStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let Some(card) = ctx.random_card(side.opponent()) else {
            if !ctx.over() {
                log!(ctx, "Grain Sales to Soviets: the {} has no card; the {side} uses this card's Ops", side.opponent());
                ctx.push(Task::Ops(OpsTask::for_card(side, GRAIN_SALES)));
            }
            return;
        };
        let name = ctx.card_name(card).to_string();
        log!(ctx, "Grain Sales to Soviets: the {side} takes a card at random from the {} hand", side.opponent());
        log_private!(ctx, side, "The {side} takes {name}");
        log_private!(ctx, side.opponent(), "The {side} takes {name} from your hand");
        ctx.put_in_play(card, side);
        ctx.push(Task::PlayCard(PlayTask {
            side,
            source: Source::Cards([card].into_iter().collect()),
            opponent_events_only: false,
            modes: Modes::ALL,
            event_cancelled: false,
            by: Some(GRAIN_SALES),
            or_else: Some(EventTask::new(GRAIN_SALES, side).at(GrainStep::Returned).arg(Arg::Card(card))),
            in_round: false,
        }));
    }
    /// The card was returned: back to the opponent's hand, then this card's Ops.
    fn resume(&self, ctx: &mut Ctx, _step: GrainStep, t: EventTask) {
        let Arg::Card(card) = t.arg else { return ctx.unexpected(&t, &Move::Pass) };
        if ctx.st().locate(card) != Pile::InPlay {
            return ctx.unexpected(&t, &Move::Pass);
        }
        log!(ctx, "The {} returns the card to the {} and uses the Ops of Grain Sales to Soviets", t.side, t.side.opponent());
        ctx.exec(Instr::MoveCard { card, to: Pile::Hand(t.side.opponent()) });
        ctx.push(Task::Ops(OpsTask::for_card(t.side, GRAIN_SALES)));
    }
}

/// "The opponent shows its hand; the player then conducts Operations" (CIA Created, "Lone
/// Gunman"). `granted: None`: the card's Ops, modified (CIA Created, §7.4.2: 2 under
/// Containment); `Some(n)`: n granted Ops that Ops modifiers do not change ("Lone Gunman", FAQ).
/// Never spent on the space race (an event's Ops, FAQ §6.4).
struct ShowHandThenOps {
    card: CardId,
    granted: Option<u8>,
}

impl CardEvent for ShowHandThenOps {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let hand = ctx.st().hand(side.opponent());
        if hand.is_empty() {
            log!(ctx, "{}: the {} has no card to show", ctx.card_name(self.card), side.opponent());
        }
        ctx.exec(Instr::Reveal { whose: side.opponent(), cards: hand, public: false });
        let ops = match self.granted {
            Some(n) => OpsTask::granted(side, n),
            None => OpsTask::for_card(side, self.card),
        };
        ctx.push(Task::Ops(ops));
    }
}

// ------------------------------------------------------------------ Missile Envy (#49)

steps! {
    enum EnvyStep { Give }
}

/// Missile Envy: the player exchanges this card for the opponent's highest-valued card by
/// printed Ops (scoring cards count 0; the opponent chooses among ties, `take CARD` naming the
/// card to hand over). A taken card whose event is the player's or neutral is played for its
/// event at once (a scoring card is scored); one carrying the opponent's event gives its Ops
/// without the event. If that event cannot take place now, the card gives its Ops (§5.2).
/// Missile Envy goes to the opponent's hand, and the opponent must play it for Operations in
/// its next action round (an effect replacing that round's card play; see `Lasting`).
struct MissileEnvy;

fn highest(p: Position, side: Side) -> CardSet {
    let hand = p.st.hand(side);
    let value = |c: CardId| {
        let i = p.cards().info(c);
        if i.scoring {
            0
        } else {
            i.ops
        }
    };
    let top = hand.iter().map(value).max().unwrap_or(0);
    hand.iter().filter(|c| value(*c) == top).collect()
}

fn exchange(ctx: &mut Ctx, side: Side, card: CardId) {
    let opp = side.opponent();
    let name = ctx.card_name(card).to_string();
    log!(ctx, "Missile Envy: the {side} takes {name} from the {opp}, whose hand Missile Envy joins");
    ctx.exec(Instr::GiveOpenly { card: MISSILE_ENVY, side: opp });
    ctx.exec(Instr::AddEffect(Effect::new(MISSILE_ENVY, side, Expiry::Permanent)));
    let info = ctx.rules.cards.info(card);
    let own = info.side.side().is_none_or(|s| s == side);
    let for_event = own && (info.scoring || ctx.pos().event_possible(card, side));
    if own && !for_event {
        log!(ctx, "Missile Envy: the event of {name} cannot take place now: the {side} uses its Ops (§5.2)");
    }
    ctx.put_in_play(card, side);
    ctx.push(Task::PlayCard(PlayTask {
        side,
        source: Source::Cards([card].into_iter().collect()),
        opponent_events_only: false,
        modes: Modes::of(&[if for_event { PlayMode::Event } else { PlayMode::Ops }]),
        event_cancelled: !own,
        by: Some(MISSILE_ENVY),
        or_else: None,
        in_round: false,
    }));
}

impl CardEvent for MissileEnvy {
    type Step = EnvyStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let top = highest(ctx.pos(), side.opponent());
        let mut cards = top.iter();
        match (cards.next(), cards.next()) {
            (None, _) => log!(ctx, "Missile Envy: the {} has no card to exchange", side.opponent()),
            (Some(card), None) => exchange(ctx, side, card),
            (Some(_), Some(_)) => ctx.push(Task::Event(EventTask::new(MISSILE_ENVY, side).at(EnvyStep::Give))),
        }
    }
    fn ask(&self, p: Position, _step: EnvyStep, t: &EventTask, words: Words) -> Ask {
        let opp = t.side.opponent();
        let prompt = words
            .say(|| format!("{opp}: Missile Envy: your highest-valued cards are tied: `take CARD` names the one the {} takes", t.side));
        Ask::new(opp, prompt, highest(p, opp).iter().map(Move::Take).collect())
    }
    fn answer(&self, ctx: &mut Ctx, _step: EnvyStep, t: EventTask, m: &Move) {
        match *m {
            Move::Take(card) => exchange(ctx, t.side, card),
            _ => ctx.unexpected(&t, m),
        }
    }
}

impl Lasting for MissileEnvy {
    /// Until the opponent plays it (or a round of the opponent ends without it): the card is
    /// given to the opponent.
    fn shape(&self, usual: Shape) -> Shape {
        Shape { expiry: Expiry::Permanent, card: CardPlace::OpponentsHand, ..usual }
    }
    /// Asked about the round's card play it narrows; the plays and round ends that end it only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
            .intent(arbiter_twilight::IntentKind::Task)
            .event(arbiter_twilight::instr::EventKind::CardPlayed)
            .event(arbiter_twilight::instr::EventKind::RoundEnded)
    }
    /// An obligation: it narrows the round's card play before a trap replaces it (a trapped
    /// side discards Missile Envy to the trap, FAQ).
    fn priority(&self) -> Priority {
        Priority::Narrow
    }
    /// The opponent's next action round: its card play is Missile Envy, for Operations. Not
    /// when a scoring card must be played now (§10.1.5, which card text does not override: the
    /// obligation then moves to the next round) or when Missile Envy has left that hand.
    fn intercept(&self, p: Position, e: &Effect, what: &Intent) -> Verdict {
        let victim = e.owner.opponent();
        match what {
            Intent::Task(Task::PlayCard(pt))
                if pt.is_round()
                    && pt.side == victim
                    && p.st.hand(victim).contains(MISSILE_ENVY)
                    && arbiter_twilight::action_round::must_play_scoring(p, victim).is_none() =>
            {
                Verdict::Replace(
                    vec![Task::PlayCard(PlayTask {
                        side: victim,
                        source: Source::Cards([MISSILE_ENVY].into_iter().collect()),
                        opponent_events_only: false,
                        modes: Modes::of(&[PlayMode::Ops]),
                        event_cancelled: false,
                        by: Some(MISSILE_ENVY),
                        or_else: None,
                        in_round: true,
                    })],
                    format!("requires the {victim} to play it for Operations this action round (card text)"),
                )
            }
            _ => Verdict::Allow,
        }
    }
    /// The obligation ends when Missile Envy is played, or with a round of that side after
    /// which it is no longer in that hand; a round that had to be a scoring card keeps it.
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        let victim = e.owner.opponent();
        match *ev {
            DomainEvent::CardPlayed { side, card: MISSILE_ENVY, .. } if side == victim => ctx.exec(Instr::RemoveEffect(MISSILE_ENVY)),
            DomainEvent::RoundEnded { side } if side == victim && !ctx.st().hand(victim).contains(MISSILE_ENVY) => {
                ctx.exec(Instr::RemoveEffect(MISSILE_ENVY))
            }
            _ => {}
        }
    }
}

steps! {
    enum AskNotStep { Discard }
}

struct AskNot;

impl CardEvent for AskNot {
    type Step = AskNotStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(ASK_NOT, side).at(AskNotStep::Discard)));
    }
    fn ask(&self, p: Position, _step: AskNotStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| {
            format!(
                "{}: \"Ask Not What Your Country…\": `discard CARD` for each card to replace ({} so far), then `pass` to draw as many",
                t.side, t.count
            )
        });
        Ask::new(t.side, prompt, p.st.hand(t.side).iter().map(Move::Discard).collect()).or_pass()
    }
    fn answer(&self, ctx: &mut Ctx, _step: AskNotStep, t: EventTask, m: &Move) {
        match m {
            Move::Discard(c) => {
                log!(
                    ctx,
                    "The {} discards {} (\"Ask Not What Your Country…\"); its event does not occur (§5.4)",
                    t.side,
                    ctx.card_name(*c)
                );
                ctx.exec(Instr::MoveCard { card: *c, to: Pile::Discard });
                ctx.push(Task::Event(t.count(t.count.saturating_add(1))));
            }
            Move::Pass => {
                let mut drawn = 0;
                for _ in 0..t.count {
                    if ctx.draw(t.side).is_none() {
                        break;
                    }
                    drawn += 1;
                }
                log!(ctx, "The {} replaces {drawn} card(s) from the draw pile (\"Ask Not What Your Country…\")", t.side);
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

pub fn register(r: &mut Ruleset) {
    r.event(UN_INTERVENTION, UnIntervention);
    r.event(GRAIN_SALES, GrainSales);
    r.event(CIA_CREATED, ShowHandThenOps { card: CIA_CREATED, granted: None });
    r.event(LONE_GUNMAN, ShowHandThenOps { card: LONE_GUNMAN, granted: Some(1) });
    r.both(MISSILE_ENVY, MissileEnvy);
    r.event(ASK_NOT, AskNot);
}
