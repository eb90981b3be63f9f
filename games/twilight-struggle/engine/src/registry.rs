//! The card API. The engine holds no card's event: each implemented card registers, under its
//! number, an **event** ([`CardEvent`]: can it occur, what it does, its decisions) and, if it
//! leaves something in play, a **lasting effect** ([`Lasting`]: what the effect in play does).
//! Lasting effects are data ([`Effect`]); their behaviour is found here by card id.
//!
//! Every lasting effect is made of a few kinds of behaviour, the same for every card:
//! modifiers (Ops, dice, scoring), vetoes, reactions to domain events, interceptions
//! (allow / cancel / replace what is about to happen), standing moves, and extra action
//! rounds. Each method is a kind of behaviour any card may have, though some serve one card
//! today: `standing_moves` the Cuban Missile Crisis, `extra_action_rounds` North Sea Oil, and
//! `Intent::Headline` Defectors. An effect says which kinds it uses (`Lasting::interest`).

use crate::card::{CardDb, CardId, CardSet, Era};
use crate::ctx::Ctx;
use crate::effect::{Effect, Shape};
use crate::error::Illegal;
use crate::instr::{DomainEvent, EventKind, Instr, InstrKind};
use crate::map::{CountryId, Region};
use crate::moves::Move;
use crate::permission::Veto;
use crate::pipeline::{DieModifier, OpsModifier};
use crate::side::Side;
use crate::state::State;
use crate::task::{EventTask, Task};
use std::fmt;
use std::sync::Arc;

/// Read-only access to a position, for card code and arbitrators.
#[derive(Clone, Copy)]
pub struct Position<'a> {
    pub rules: &'a Ruleset,
    pub st: &'a State,
}

// ------------------------------------------------------------------ decisions

/// What a prompt says, built for its viewers: `text` may be read by anyone, `secret` only by
/// the side that decides (a card it alone may see: Grain Sales, Our Man in Tehran).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub secret: String,
}

impl Prompt {
    pub fn public(text: impl Into<String>) -> Prompt {
        Prompt { text: text.into(), secret: String::new() }
    }
    /// What `viewer` may read when `decider` decides.
    pub fn for_viewer(&self, viewer: Option<Side>, decider: Side) -> String {
        if viewer == Some(decider) && !self.secret.is_empty() {
            format!("{} {}", self.text, self.secret)
        } else {
            self.text.clone()
        }
    }
}

/// Whether an event's question composes its words. Listing the moves, finding the decider and
/// checking a listed move read only the choices: composing the prompt there (a `format!` for
/// every question, asked at every decision) was wasted work. The words are composed only for a
/// viewer (`flow::prompt`) and for a refusal's explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    Compose,
    Skip,
}

impl Words {
    /// `explain` of a judge: a refusal explained quotes the prompt.
    pub fn when(compose: bool) -> Words {
        if compose {
            Words::Compose
        } else {
            Words::Skip
        }
    }
    /// The words `f` composes, or nothing (no allocation) when they are not wanted.
    #[inline]
    pub fn say(self, f: impl FnOnce() -> String) -> String {
        match self {
            Words::Compose => f(),
            Words::Skip => String::new(),
        }
    }
}

/// One pending event step, completely: who decides, what is asked, every legal move, and the
/// labels of `choose` options (`choose boycott`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    pub decider: Side,
    pub prompt: Prompt,
    pub choices: Vec<Move>,
    pub labels: &'static [&'static str],
}

impl Ask {
    pub fn new(decider: Side, prompt: impl Into<String>, choices: Vec<Move>) -> Ask {
        Ask { decider, prompt: Prompt::public(prompt), choices, labels: &[] }
    }
    /// A choice between named options; the moves are `choose LABEL` for each label.
    pub fn options(decider: Side, prompt: impl Into<String>, labels: &'static [&'static str]) -> Ask {
        Ask { decider, prompt: Prompt::public(prompt), choices: (0..labels.len() as u8).map(Move::Choose).collect(), labels }
    }
    pub fn labels(self, labels: &'static [&'static str]) -> Ask {
        Ask { labels, ..self }
    }
    pub fn secret(self, secret: impl Into<String>) -> Ask {
        Ask { prompt: Prompt { secret: secret.into(), ..self.prompt }, ..self }
    }
    pub fn or_pass(mut self) -> Ask {
        self.choices.push(Move::Pass);
        self
    }
}

/// The typed steps of one card's event. Declare them with [`steps!`]; they are stored in
/// [`EventTask::step`] as a number and decoded back, so an unknown number is caught.
pub trait Step: Copy + fmt::Debug + Into<u8> + TryFrom<u8> + Send + Sync + 'static {}

/// The steps of an event that asks nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoStep {}

impl From<NoStep> for u8 {
    fn from(s: NoStep) -> u8 {
        match s {}
    }
}
impl TryFrom<u8> for NoStep {
    type Error = ();
    fn try_from(_: u8) -> Result<NoStep, ()> {
        Err(())
    }
}
impl Step for NoStep {}

/// `steps! { pub enum Stage { Place, Ops } }`: a card's typed event steps.
#[macro_export]
macro_rules! steps {
    ($(#[$m:meta])* $v:vis enum $name:ident { $($s:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        $v enum $name { $($s),+ }
        impl From<$name> for u8 {
            fn from(s: $name) -> u8 { s as u8 }
        }
        impl TryFrom<u8> for $name {
            type Error = ();
            fn try_from(n: u8) -> Result<$name, ()> {
                [$($name::$s),+].into_iter().find(|s| *s as u8 == n).ok_or(())
            }
        }
        impl $crate::registry::Step for $name {}
    };
}

/// A card's printed prerequisite (§5.2): `Ok` when the event may take place for `side` now.
pub type Prerequisite = fn(Position, Side) -> Result<(), Illegal>;

/// A card's event. Only `resolve` is required. An event that needs a decision pushes a
/// [`Task::Event`] with one of its steps and answers `ask`/`answer` for it.
pub trait CardEvent: Send + Sync + 'static {
    type Step: Step;
    /// A printed prerequisite ("playable only if / after …", §5.2), if the card has one. If it
    /// fails, the card cannot be played for its event; as the opponent's event it does not
    /// occur and a starred card is discarded, not removed. Prevention by another card is data
    /// (`CardInfo`). Given as a function, asked once at registration: a card without one is
    /// known to have none, so a card play does not ask every held card (`Ruleset::unconditional`).
    fn prerequisite(&self) -> Option<Prerequisite> {
        None
    }
    /// A condition in the event's text that, unmet, leaves the event without effect while the
    /// card counts as played for its event. Unmet, the card is discarded, not removed
    /// (Wargames away from DEFCON 2, FAQ).
    /// The refusal's words are composed only if `words` asks for them (the log of a game played
    /// with words; quiet play reads only whether the condition holds).
    fn condition(&self, _p: Position, _side: Side, _words: Words) -> Result<(), Illegal> {
        Ok(())
    }
    /// Carry out the event for `side`.
    fn resolve(&self, ctx: &mut Ctx, side: Side);
    /// Describe a pending step completely: who decides, the choices and the labels, and the
    /// prompt's words when `words` asks for them (compose them inside [`Words::say`]).
    fn ask(&self, _p: Position, _step: Self::Step, t: &EventTask, _words: Words) -> Ask {
        Ask::new(t.side, "", Vec::new())
    }
    /// Apply a move the kernel checked to be among `ask`'s choices. A move the card does not
    /// expect is an engine fault (`Ctx::unexpected`), never a silent decline.
    fn answer(&self, ctx: &mut Ctx, _step: Self::Step, t: EventTask, m: &Move) {
        ctx.unexpected(&t, m);
    }
    /// An automatic step, run when a [`Task::Continue`] of this card reaches the top.
    fn resume(&self, ctx: &mut Ctx, _step: Self::Step, t: EventTask) {
        ctx.fault(format!("{:?}: no automatic step {}", t.card, t.step));
    }
}

/// The object-safe form of [`CardEvent`] the kernel calls: it decodes the step.
pub trait Event: Send + Sync {
    fn prerequisite(&self) -> Option<Prerequisite>;
    fn condition(&self, p: Position, side: Side, words: Words) -> Result<(), Illegal>;
    fn resolve(&self, ctx: &mut Ctx, side: Side);
    /// `None` if the step number is not one of the card's steps (an engine fault).
    fn ask(&self, p: Position, t: &EventTask, words: Words) -> Option<Ask>;
    fn answer(&self, ctx: &mut Ctx, t: EventTask, m: &Move);
    fn resume(&self, ctx: &mut Ctx, t: EventTask);
}

impl<E: CardEvent> Event for E {
    fn prerequisite(&self) -> Option<Prerequisite> {
        CardEvent::prerequisite(self)
    }
    fn condition(&self, p: Position, side: Side, words: Words) -> Result<(), Illegal> {
        CardEvent::condition(self, p, side, words)
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        CardEvent::resolve(self, ctx, side)
    }
    fn ask(&self, p: Position, t: &EventTask, words: Words) -> Option<Ask> {
        let step = E::Step::try_from(t.step).ok()?;
        Some(CardEvent::ask(self, p, step, t, words))
    }
    fn answer(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        match E::Step::try_from(t.step) {
            Ok(step) => CardEvent::answer(self, ctx, step, t, m),
            Err(_) => ctx.unexpected(&t, m),
        }
    }
    fn resume(&self, ctx: &mut Ctx, t: EventTask) {
        match E::Step::try_from(t.step) {
            Ok(step) => CardEvent::resume(self, ctx, step, t),
            Err(_) => ctx.fault(format!("{:?}: no step {}", t.card, t.step)),
        }
    }
}

// ------------------------------------------------------------------ lasting effects

/// Why an instruction is about to be applied, for interceptors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A base rule or bookkeeping.
    Rule,
    /// A coup (§6.3): its DEFCON drop in a battleground (§6.3.4), its military ops.
    Coup { side: Side, country: CountryId, free: bool },
    /// A card's event.
    Event(CardId),
}

/// Something about to happen, offered to the effects in play ("I'm about to do X, any
/// objections?").
#[derive(Clone, Copy, Debug)]
pub enum Intent<'a> {
    /// An instruction, with its cause.
    Instr { instr: &'a Instr, cause: Cause },
    /// A card's event about to take place for `side`.
    Event { card: CardId, side: Side, headline: bool },
    /// A headline card, revealed, about to be resolved for the side that headlined it.
    Headline { card: CardId, by: Side },
    /// A task about to start (an action round's card play).
    Task(&'a Task),
}

/// An effect's answer to an [`Intent`]: allow, cancel, or replace with these tasks (the last
/// runs first); the reason is a verb phrase logged after the card's name ("Nuclear Subs spares
/// …"). The kernel's protocol (`arbiter_kernel::effects`).
pub type Verdict = arbiter_kernel::effects::Verdict<Task>;

/// When an effect answers an [`Intent`] among the effects in play: `Narrow` first
/// (obligations that narrow what happens: a card play limited to the card a side must play
/// this round, Missile Envy), so that what replaces it sees the narrowed form; then `Replace`
/// (effects that cancel or replace it: Bear Trap, Quagmire, Nuclear Subs…).
pub use arbiter_kernel::effects::Priority;

/// When a region is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoringTime {
    /// By its scoring card (§10.1).
    Card,
    /// At final scoring (§10.3.2).
    Final,
}

/// A change to how a region is scored, contributed by an effect in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoringModifier {
    /// `country` counts as a battleground, when `side` controls it (Formosan Resolution).
    ExtraBattleground { source: CardId, country: CountryId, side: Side },
    /// `country`, when `side` controls it, is not counted for `side` at all: not as a country,
    /// not as a battleground, not for its adjacency to the enemy superpower (Shuttle
    /// Diplomacy, FAQ).
    IgnoreCountry { source: CardId, side: Side, country: CountryId },
}

/// The kinds of [`Intent`] besides instructions (those are named by [`InstrKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntentKind {
    Event,
    Headline,
    Task,
}

impl Intent<'_> {
    /// This intent's bit in [`Interest`]: one per instruction kind, then one per other kind.
    #[inline]
    fn bit(&self) -> u32 {
        1 << self.index()
    }
    #[inline]
    fn index(&self) -> usize {
        (match self {
            Intent::Instr { instr, .. } => instr.kind() as u32,
            Intent::Event { .. } => InstrKind::COUNT + IntentKind::Event as u32,
            Intent::Headline { .. } => InstrKind::COUNT + IntentKind::Headline as u32,
            Intent::Task(_) => InstrKind::COUNT + IntentKind::Task as u32,
        }) as usize
    }
}

/// What an effect in play may answer: the kinds of [`Intent`] its `intercept` may object to
/// and the kinds of [`DomainEvent`] its `react` may act on, declared once by
/// [`Lasting::interest`] and kept by the [`Ruleset`]. The engine asks an effect only about
/// what it declared (most effects answer "allow" to everything: skipping them is most of the
/// cost of instructions and domain events while effects are in play). A declaration too
/// narrow would silently skip a rule, so [`Ruleset::check_interest`] turns on a mode that asks
/// every effect anyway and faults the move when one answers outside its interest (the soak
/// test plays in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interest {
    intents: u32,
    events: u8,
    /// Whether its `standing_moves` may offer any (an effect that does not is not asked at
    /// every decision).
    standing: bool,
    /// Whether its `extra_action_rounds` may add any (an effect that does not is not asked
    /// each time a side's action rounds are counted: every action round, every card play).
    rounds: bool,
}

impl Interest {
    /// Nothing: the effect never intercepts, reacts nor offers standing moves (modifiers,
    /// vetoes…).
    pub const NONE: Interest = Interest { intents: 0, events: 0, standing: false, rounds: false };
    /// Everything: what an effect that declares nothing is asked about.
    pub const ALL: Interest = Interest { intents: u32::MAX, events: u8::MAX, standing: true, rounds: true };

    /// Also instructions of kind `k` (`Intent::Instr`).
    pub const fn instr(self, k: InstrKind) -> Interest {
        Interest { intents: self.intents | 1 << k as u32, ..self }
    }
    /// Also intents of kind `k`.
    pub const fn intent(self, k: IntentKind) -> Interest {
        Interest { intents: self.intents | 1 << (InstrKind::COUNT + k as u32), ..self }
    }
    /// Also domain events of kind `k`.
    pub const fn event(self, k: EventKind) -> Interest {
        Interest { events: self.events | 1 << k as u32, ..self }
    }
    /// Also standing moves: `Lasting::standing_moves` may offer some (Cuban Missile Crisis).
    pub const fn standing(self) -> Interest {
        Interest { standing: true, ..self }
    }
    /// Also action rounds: `Lasting::extra_action_rounds` may add some (North Sea Oil).
    pub const fn rounds(self) -> Interest {
        Interest { rounds: true, ..self }
    }
    /// May the effect object to `what`?
    #[inline]
    pub fn asks(&self, what: &Intent) -> bool {
        self.intents & what.bit() != 0
    }
    /// May the effect react to events of kind `k`?
    #[inline]
    pub fn hears(&self, k: EventKind) -> bool {
        self.events & (1 << k as u32) != 0
    }
}

/// How many kinds of intent and of domain event there are (`Interest`'s bits).
const INTENT_KINDS: usize = InstrKind::COUNT as usize + 3;
const EVENT_KINDS: usize = EventKind::RegionScored as usize + 1;

/// What an effect in play does. Every method has a neutral default.
pub trait Lasting: Send + Sync + 'static {
    /// What `intercept` may object to and `react` may act on (see [`Interest`]); asked once,
    /// when the effect is registered. The default, everything, is always safe; an effect that
    /// declares less is asked less, and the interest check holds it to its declaration.
    fn interest(&self) -> Interest {
        Interest::ALL
    }
    fn ops_modifiers(&self, _e: &Effect, _out: &mut Vec<OpsModifier>) {}
    fn die_modifiers(&self, _e: &Effect, _out: &mut Vec<DieModifier>) {}
    fn vetoes(&self, _e: &Effect, _out: &mut Vec<Veto>) {}
    fn scoring(&self, _p: Position, _e: &Effect, _region: Region, _when: ScoringTime, _out: &mut Vec<ScoringModifier>) {}
    /// React to something that happened (in the order effects entered play).
    fn react(&self, _ctx: &mut Ctx, _e: &Effect, _ev: &DomainEvent) {}
    /// Allow, cancel or replace something about to happen.
    fn intercept(&self, _p: Position, _e: &Effect, _what: &Intent) -> Verdict {
        Verdict::Allow
    }
    /// When this effect answers intents, among the others (see [`Priority`]).
    fn priority(&self) -> Priority {
        Priority::Replace
    }
    /// Moves `side` may make "at any time" while the effect is in play, offered at every
    /// decision of that side (cancelling the Cuban Missile Crisis).
    fn standing_moves(&self, _p: Position, _e: &Effect, _side: Side, _out: &mut Vec<Move>) {}
    fn apply_standing(&self, _ctx: &mut Ctx, _e: &Effect, _side: Side, _m: &Move) {}
    /// Action rounds this effect adds for `side` this turn (North Sea Oil).
    fn extra_action_rounds(&self, _p: Position, _e: &Effect, _side: Side) -> u8 {
        0
    }
    /// How the effect enters play, given the usual shape of its card ([`Shape::usual`]):
    /// asked once, when the effect is registered.
    fn shape(&self, usual: Shape) -> Shape {
        usual
    }
}

/// Card data plus the registered events and lasting effects.
pub struct Ruleset {
    pub cards: CardDb,
    events: Vec<Option<Arc<dyn Event>>>,
    lasting: Vec<Option<Arc<dyn Lasting>>>,
    /// Each card's `Lasting::interest`, asked once at registration (`NONE` without one).
    interest: Vec<Interest>,
    /// Each registered effect's `Lasting::shape`, asked once at registration.
    shapes: Vec<Option<Shape>>,
    /// The same by kind: the cards whose effect may object to each kind of intent
    /// (`Intent::index`), and that may react to each kind of domain event, so that the effects
    /// in play are tested with a bit each.
    askers: [CardSet; INTENT_KINDS],
    hearers: [CardSet; EVENT_KINDS],
    /// The cards whose effect may offer standing moves (`Interest::standing`).
    offerers: CardSet,
    /// The cards whose effect may add action rounds (`Interest::rounds`).
    rounders: CardSet,
    /// The interest check: ask every effect anyway and fault an answer outside its interest.
    check_interest: bool,
    /// Each registered event's prerequisite (`CardEvent::prerequisite`, asked at registration).
    prerequisites: Vec<Option<Prerequisite>>,
    /// The cards whose event always may take place (`Position::event_check` always `Ok`): a
    /// registered event with no prerequisite, no preventing card and no required card (card
    /// data). Kept by registration, the only writer of the events.
    unconditional: CardSet,
    /// The cards with a registered event (the others' events never take place).
    registered: CardSet,
    /// This ruleset's lasting effects, as one number: new for every ruleset and every
    /// registration of a lasting effect, so that what was read of the effects of one is never
    /// taken for another's (`ops::with_values` keys the Ops values by it).
    lasting_id: u64,
    /// Each era's deck (`CardDb::era_deck`) as a set, without and with the optional cards
    /// (§4.4), read once: every new game asked the card data for three of them (1 % of
    /// `arbiter bench`).
    era_sets: [[CardSet; 2]; 3],
}

/// A number no ruleset's lasting effects had before ([`Ruleset::lasting_id`]).
fn next_lasting_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Ruleset {
    pub fn new(cards: CardDb) -> Ruleset {
        let era_sets = [Era::Early, Era::Mid, Era::Late].map(|e| [false, true].map(|o| cards.era_deck(e, o).into_iter().collect()));
        Ruleset {
            era_sets,
            cards,
            events: (0..=110).map(|_| None).collect(),
            lasting: (0..=110).map(|_| None).collect(),
            interest: vec![Interest::NONE; 111],
            shapes: vec![None; 111],
            askers: [CardSet::default(); INTENT_KINDS],
            hearers: [CardSet::default(); EVENT_KINDS],
            offerers: CardSet::default(),
            rounders: CardSet::default(),
            check_interest: false,
            prerequisites: vec![None; 111],
            unconditional: CardSet::default(),
            registered: CardSet::default(),
            lasting_id: next_lasting_id(),
        }
    }
    /// The identity of this ruleset's lasting effects as registered now: equal for two
    /// readings only if they are of the same ruleset with the same lasting effects.
    #[inline]
    pub fn lasting_id(&self) -> u64 {
        self.lasting_id
    }
    /// The cards of `era`'s deck (§4.4), the optional cards with them if `optional`: the
    /// same cards as `CardDb::era_deck`.
    #[inline]
    pub fn era_cards(&self, era: Era, optional: bool) -> CardSet {
        let e = match era {
            Era::Early => 0,
            Era::Mid => 1,
            Era::Late => 2,
        };
        self.era_sets[e][usize::from(optional)]
    }
    /// May the effects of the cards `in_play` offer standing moves (`Interest::standing`)?
    /// Always under the interest check, which asks every effect.
    #[inline]
    pub fn offers_standing(&self, in_play: CardSet) -> bool {
        self.check_interest || in_play.0 & self.offerers.0 != 0
    }
    /// Turn on the interest check (tests): every effect in play is asked about every intent
    /// and domain event, and one that objects or acts outside its declared [`Interest`] is an
    /// engine fault (the move is refused), so that a declaration too narrow cannot go unseen.
    /// The games played are the same as without it.
    pub fn check_interest(&mut self) {
        self.check_interest = true;
    }
    #[inline]
    pub fn checks_interest(&self) -> bool {
        self.check_interest
    }
    fn declare(&mut self, card: CardId, interest: Interest) {
        self.lasting_id = next_lasting_id();
        self.interest[card.idx()] = interest;
        for (i, s) in self.askers.iter_mut().enumerate() {
            if interest.intents & (1 << i) != 0 {
                s.insert(card);
            }
        }
        for (i, s) in self.hearers.iter_mut().enumerate() {
            if interest.events & (1 << i) != 0 {
                s.insert(card);
            }
        }
        if interest.standing {
            self.offerers.insert(card);
        }
        if interest.rounds {
            self.rounders.insert(card);
        }
    }
    /// The cards whose effect may object to `what`.
    #[inline]
    pub fn askers(&self, what: &Intent) -> CardSet {
        self.askers[what.index()]
    }
    /// The cards whose effect may react to a domain event of kind `k`.
    #[inline]
    pub fn hearers(&self, k: EventKind) -> CardSet {
        self.hearers[k as usize]
    }
    /// What `card`'s effect declared it may answer (`NONE` without a lasting effect).
    #[inline]
    pub fn interest(&self, card: CardId) -> Interest {
        self.interest.get(card.idx()).copied().unwrap_or(Interest::NONE)
    }
    /// Register `card`'s event.
    pub fn event<E: CardEvent>(&mut self, card: CardId, e: E) {
        self.note_event(card, CardEvent::prerequisite(&e));
        self.events[card.idx()] = Some(Arc::new(e));
    }
    /// Keep what `Position::event_check` reads of a newly registered event: its prerequisite,
    /// and whether nothing can stop it (`unconditional`).
    fn note_event(&mut self, card: CardId, prerequisite: Option<Prerequisite>) {
        self.prerequisites[card.idx()] = prerequisite;
        self.registered.insert(card);
        let info = self.cards.get(card);
        let free = prerequisite.is_none() && info.is_some_and(|i| i.prevented_by.is_empty() && i.requires_any.is_empty());
        if free {
            self.unconditional.insert(card);
        } else {
            self.unconditional.remove(card);
        }
    }
    /// The cards whose event may always take place when played (no prerequisite, no card that
    /// prevents it or that it requires): `Position::events_possible` asks only about the others.
    #[inline]
    pub fn unconditional(&self) -> CardSet {
        self.unconditional
    }
    /// Register what `card`'s effect does in play.
    pub fn lasting<L: Lasting>(&mut self, card: CardId, l: L) {
        self.declare(card, l.interest());
        self.declare_shape(card, &l);
        self.lasting[card.idx()] = Some(Arc::new(l));
    }
    fn declare_shape(&mut self, card: CardId, l: &dyn Lasting) {
        let usual = Shape::usual(self.cards.get(card).is_some_and(|i| i.lasting));
        if let Some(s) = self.shapes.get_mut(card.idx()) {
            *s = Some(l.shape(usual));
        }
    }
    /// How `card`'s effect enters play: its declared shape, the usual one for an underlined
    /// card with no behaviour of its own (Marshall Plan), `None` for a card that leaves no
    /// effect in play.
    pub fn shape(&self, card: CardId) -> Option<Shape> {
        let declared = self.shapes.get(card.idx()).copied().flatten();
        declared.or_else(|| self.cards.get(card).filter(|i| i.lasting).map(|_| Shape::usual(true)))
    }
    /// Register one value as both the event and the lasting effect of `card`.
    pub fn both<T: CardEvent + Lasting>(&mut self, card: CardId, t: T) {
        self.note_event(card, CardEvent::prerequisite(&t));
        let t = Arc::new(t);
        self.events[card.idx()] = Some(t.clone());
        self.declare(card, t.interest());
        self.declare_shape(card, &*t);
        self.lasting[card.idx()] = Some(t);
    }
    pub fn get_event(&self, card: CardId) -> Option<&dyn Event> {
        self.events.get(card.idx()).and_then(|e| e.as_deref())
    }
    pub fn get_lasting(&self, card: CardId) -> Option<&dyn Lasting> {
        self.lasting.get(card.idx()).and_then(|e| e.as_deref())
    }
    pub fn implemented(&self, card: CardId) -> bool {
        self.get_event(card).is_some()
    }
    /// The cards with no registered event (The China Card has none: its rules are the base
    /// game's, §9). Empty for a complete ruleset.
    pub fn missing_events(&self) -> Vec<CardId> {
        self.cards.all().map(|c| c.id).filter(|c| *c != CardId::CHINA && !self.implemented(*c)).collect()
    }
}

impl<'a> Position<'a> {
    pub fn cards(&self) -> &'a CardDb {
        &self.rules.cards
    }
    /// The effects in play with their behaviour, in the order they entered play.
    pub fn lasting(&self) -> impl Iterator<Item = (&'a Effect, &'a dyn Lasting)> + 'a {
        let rules = self.rules;
        self.st.effects.iter().filter_map(move |e| rules.get_lasting(e.card).map(|l| (e, l)))
    }
    /// All Ops modifiers in play, in the order their effects entered play.
    pub fn ops_modifiers(&self) -> Vec<OpsModifier> {
        let mut v = Vec::new();
        for (e, l) in self.lasting() {
            l.ops_modifiers(e, &mut v);
        }
        v
    }
    pub fn die_modifiers(&self) -> Vec<DieModifier> {
        let mut v = Vec::new();
        for (e, l) in self.lasting() {
            l.die_modifiers(e, &mut v);
        }
        v
    }
    pub fn vetoes(&self) -> Vec<Veto> {
        let mut v = Vec::new();
        for (e, l) in self.lasting() {
            l.vetoes(e, &mut v);
        }
        v
    }
    pub fn scoring_modifiers(&self, region: Region, when: ScoringTime) -> Vec<ScoringModifier> {
        let mut v = Vec::new();
        for (e, l) in self.lasting() {
            l.scoring(*self, e, region, when, &mut v);
        }
        v
    }
    /// The first effect in play that does not allow `what`, with its verdict. `extra` are
    /// sources acting outside the effects in play (the revealed headline cards).
    pub fn intercept(&self, extra: &[Effect], what: &Intent) -> Option<(CardId, Verdict)> {
        self.intercept_except(extra, what, &[])
    }
    /// `intercept`, by the effects other than `answered` (those that already replaced what
    /// led to `what`), in [`Priority`] order.
    pub fn intercept_except(&self, extra: &[Effect], what: &Intent, answered: &[CardId]) -> Option<(CardId, Verdict)> {
        // One pass (this runs before every instruction while effects are in play): the
        // kernel's protocol, a `Narrow` answer first, else the first `Replace` answer. Only
        // the effects that declared an interest in this kind of intent are asked (`Interest`).
        let rules = self.rules;
        let askers = rules.askers(what);
        // Most often no effect in play cares: one bit test each, and no protocol.
        if !self.st.effects.iter().chain(extra).any(|e| askers.contains(e.card)) {
            return None;
        }
        let asked = self.effects_asked(extra, answered).filter(|e| askers.contains(e.card));
        let asked = asked.filter_map(|e| rules.get_lasting(e.card).map(|l| (e, l)));
        arbiter_kernel::effects::first_objection(asked, |(_, l)| l.priority(), |(e, l)| l.intercept(*self, e, what))
            .map(|((e, _), v)| (e.card, v))
    }
    /// The effects in play, then `extra`, but those in `answered`.
    fn effects_asked<'b>(&'b self, extra: &'b [Effect], answered: &'b [CardId]) -> impl Iterator<Item = &'b Effect> + 'b {
        self.st.effects.iter().chain(extra).filter(move |e| !answered.contains(&e.card))
    }
    /// The interest check's side of `intercept_except`: the first effect that did not declare
    /// an interest in `what` and yet does not allow it (`Ruleset::check_interest`).
    pub fn undeclared_objection(&self, extra: &[Effect], what: &Intent, answered: &[CardId]) -> Option<CardId> {
        let rules = self.rules;
        let askers = rules.askers(what);
        self.effects_asked(extra, answered).filter(|e| !askers.contains(e.card)).find_map(|e| {
            let l = rules.get_lasting(e.card)?;
            (!matches!(l.intercept(*self, e, what), Verdict::Allow)).then_some(e.card)
        })
    }
    /// Moves the effects in play offer `side` at any of its decisions: only the effects that
    /// declared standing moves are asked (`Interest::standing`; this runs at every decision).
    pub fn standing_moves(&self, side: Side) -> Vec<Move> {
        self.standing_moves_by(side, true)
    }
    /// The interest check's side of `standing_moves`: the moves offered by the effects that did
    /// not declare standing moves, which must be none (the soak test's invariants ask it).
    pub fn undeclared_standing_moves(&self, side: Side) -> Vec<Move> {
        self.standing_moves_by(side, false)
    }
    /// The standing moves of the effects that declared them (`declared`) or of the others.
    fn standing_moves_by(&self, side: Side, declared: bool) -> Vec<Move> {
        let offerers = self.rules.offerers;
        let mut v = Vec::new();
        for e in self.st.effects.iter().filter(|e| offerers.contains(e.card) == declared) {
            if let Some(l) = self.rules.get_lasting(e.card) {
                l.standing_moves(*self, e, side, &mut v);
            }
        }
        v
    }
    /// Action rounds the effects in play add for `side` this turn: only the effects that
    /// declared some are asked (`Interest::rounds`; this runs at every action round and card
    /// play).
    pub fn extra_action_rounds(&self, side: Side) -> u8 {
        self.extra_action_rounds_by(side, true)
    }
    /// The interest check's side of `extra_action_rounds`: the rounds added by the effects that
    /// did not declare any, which must be none (the soak test's invariants ask it).
    pub fn undeclared_extra_action_rounds(&self, side: Side) -> u8 {
        self.extra_action_rounds_by(side, false)
    }
    /// The rounds added by the effects that declared some (`declared`) or by the others.
    fn extra_action_rounds_by(&self, side: Side, declared: bool) -> u8 {
        let rounders = self.rules.rounders;
        let mut n = 0;
        for e in self.st.effects.iter().filter(|e| rounders.contains(e.card) == declared) {
            if let Some(l) = self.rules.get_lasting(e.card) {
                n += l.extra_action_rounds(*self, e, side);
            }
        }
        n
    }

    /// Can `card`'s event take place for `side` now? Checks prevention and requirements stated
    /// as card data, then the card's printed prerequisite (§5.2). `Ok` does not mean it will
    /// have an effect: see [`CardEvent::condition`].
    pub fn event_allowed(&self, card: CardId, side: Side) -> Result<(), Illegal> {
        self.event_check(card, side, true)
    }

    /// `event_allowed` without composing the reason (listing legal moves).
    pub fn event_possible(&self, card: CardId, side: Side) -> bool {
        self.event_check(card, side, false).is_ok()
    }

    /// The cards of `cards` whose event may take place now, each for the side whose event it
    /// is (`side` for a neutral or scoring card): [`Position::event_possible`] asked only of
    /// the cards that are not [`Ruleset::unconditional`], for which it is always `Ok`, and
    /// have a registered event.
    pub fn events_possible(&self, cards: CardSet, side: Side) -> CardSet {
        let free = self.rules.unconditional();
        let mut out = CardSet(cards.0 & free.0);
        // A card with no registered event (The China Card) never: `event_check` refuses it.
        for c in CardSet(cards.0 & !free.0 & self.rules.registered.0).iter() {
            let event_side = self.cards().info(c).side.side().unwrap_or(side);
            if self.event_possible(c, event_side) {
                out.insert(c);
            }
        }
        out
    }

    fn event_check(&self, card: CardId, side: Side, explain: bool) -> Result<(), Illegal> {
        let info = self.cards().info(card);
        if !info.prevented_by.is_empty() {
            if let Some(by) = info.prevented_by.iter().find(|x| self.st.has_effect(**x)) {
                let name = self.cards().name(*by);
                return crate::refuse!(explain, by.cite(), "{} cannot be played as an event while {name} is in effect", info.name);
            }
        }
        if !info.requires_any.is_empty() && !info.requires_any.iter().any(|x| self.st.has_effect(*x)) {
            if !explain {
                return Err(Illegal::new("a required card has not been played", "card text, §5.2"));
            }
            let names: Vec<&str> = info.requires_any.iter().map(|x| self.cards().name(*x)).collect();
            return Err(Illegal::new(format!("{} needs {} to have been played first (§5.2)", info.name, names.join(" or ")), card.cite()));
        }
        if self.rules.get_event(card).is_none() {
            return crate::refuse!(explain, "engine fault", "no event is registered for {}", self.cards().name(card));
        }
        // What is checked above and here is what `Ruleset::unconditional` leaves out.
        match self.rules.prerequisites[card.idx()] {
            Some(prerequisite) => prerequisite(*self, side),
            None => Ok(()),
        }
    }
}
