//! The card registry: the engine holds no card's event. Each implemented event is a
//! [`CardEvent`] registered under its card number by the `arbiter-cards` crate. Lasting effects
//! are data ([`Effect`]); their behaviour is found here by card id.

use crate::card::{CardDb, CardId};
use crate::ctx::Ctx;
use crate::effect::Effect;
use crate::error::Illegal;
use crate::flow::EventTask;
use crate::instr::DomainEvent;
use crate::moves::Move;
use crate::permission::Veto;
use crate::pipeline::{DieModifier, OpsModifier};
use crate::side::Side;
use crate::state::State;

/// Read-only access to a position, for card code and arbitrators.
#[derive(Clone, Copy)]
pub struct Position<'a> {
    pub rules: &'a Ruleset,
    pub st: &'a State,
}

/// A card's event and, if it leaves a lasting effect, that effect's behaviour.
///
/// Only `resolve` is required. An event that needs a player's decision pushes a
/// [`crate::flow::Task::Event`] and answers `options`/`apply` for it.
pub trait CardEvent: Send + Sync {
    /// Whether the event can take place now for `side` (prerequisites, cancelling events,
    /// §5.2). If not, the card may still be played for Ops and a starred card is discarded.
    fn can_occur(&self, _p: Position, _side: Side) -> Result<(), Illegal> {
        Ok(())
    }
    /// Carry out the event for `side`.
    fn resolve(&self, ctx: &mut Ctx, side: Side);

    /// Who decides a pending step of this event (default: the event's side).
    fn decider(&self, t: &EventTask) -> Side {
        t.side
    }
    fn prompt(&self, _p: Position, _t: &EventTask) -> String {
        String::new()
    }
    /// The complete list of legal moves at a pending step.
    fn options(&self, _p: Position, _t: &EventTask) -> Vec<Move> {
        Vec::new()
    }
    /// Labels for `Move::Choose(i)` at this step.
    fn labels(&self, _t: &EventTask) -> &'static [&'static str] {
        &[]
    }
    /// Apply a move already checked to be in `options`.
    fn apply(&self, _ctx: &mut Ctx, _t: EventTask, _m: &Move) {}

    /// Headlined by `side`, this card cancels the opponent's headline (Defectors).
    fn cancels_opponent_headline(&self, _side: Side) -> bool {
        false
    }

    // ---- lasting-effect behaviour, for an effect of this card in play ----
    fn ops_modifiers(&self, _e: &Effect, _out: &mut Vec<OpsModifier>) {}
    fn die_modifiers(&self, _e: &Effect, _out: &mut Vec<DieModifier>) {}
    fn vetoes(&self, _e: &Effect, _out: &mut Vec<Veto>) {}
    fn react(&self, _ctx: &mut Ctx, _e: &Effect, _ev: &DomainEvent) {}
    /// The side whose action rounds this effect replaces (Bear Trap, Quagmire).
    fn traps(&self, _e: &Effect) -> Option<Side> {
        None
    }
    /// Push the replacement for `side`'s action round.
    fn trapped_round(&self, _ctx: &mut Ctx, _e: &Effect, _side: Side) {}
    /// A coup by `side` in a battleground does not lower DEFCON (Nuclear Subs).
    fn spares_defcon(&self, _e: &Effect, _side: Side, _free: bool) -> bool {
        false
    }
    /// Moves this effect offers at an action round besides playing a card (cancelling the
    /// Cuban Missile Crisis), and how to apply them.
    fn round_moves(&self, _p: Position, _e: &Effect, _side: Side, _out: &mut Vec<Move>) {}
    fn apply_round_move(&self, _ctx: &mut Ctx, _e: &Effect, _side: Side, _m: &Move) {}
}

/// Card data plus the registered events.
pub struct Ruleset {
    pub cards: CardDb,
    events: Vec<Option<Box<dyn CardEvent>>>,
}

impl Ruleset {
    pub fn new(cards: CardDb) -> Ruleset {
        Ruleset { cards, events: (0..=110).map(|_| None).collect() }
    }
    pub fn register(&mut self, card: CardId, ev: Box<dyn CardEvent>) {
        self.events[card.idx()] = Some(ev);
    }
    pub fn event(&self, card: CardId) -> Option<&dyn CardEvent> {
        self.events.get(card.idx()).and_then(|e| e.as_deref())
    }
    pub fn implemented(&self, card: CardId) -> bool {
        self.event(card).is_some()
    }
}

impl<'a> Position<'a> {
    pub fn cards(&self) -> &'a CardDb {
        &self.rules.cards
    }
    /// All Ops modifiers in play, in the order their effects entered play.
    pub fn ops_modifiers(&self) -> Vec<OpsModifier> {
        let mut v = Vec::new();
        for e in &self.st.effects {
            if let Some(h) = self.rules.event(e.card) {
                h.ops_modifiers(e, &mut v);
            }
        }
        v
    }
    pub fn die_modifiers(&self) -> Vec<DieModifier> {
        let mut v = Vec::new();
        for e in &self.st.effects {
            if let Some(h) = self.rules.event(e.card) {
                h.die_modifiers(e, &mut v);
            }
        }
        v
    }
    pub fn vetoes(&self) -> Vec<Veto> {
        let mut v = Vec::new();
        for e in &self.st.effects {
            if let Some(h) = self.rules.event(e.card) {
                h.vetoes(e, &mut v);
            }
        }
        v
    }
}
