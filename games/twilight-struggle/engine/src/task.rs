//! The tasks of the work stack, as plain data. The state holds the stack (`State::stack`); the
//! flow module (`crate::flow`) runs it. Keeping the data here, below the state, is what lets
//! the kernel modules form layers (see ARCHITECTURE.md).

use crate::card::{CardId, CardSet};
use crate::map::{CountryId, CountrySet};
use crate::moves::PlayMode;
use crate::pipeline::Spend;
use crate::side::Side;
use serde::{Deserialize, Serialize};

/// A pending step of a card's event: which card, for whom, which step, and what the card's
/// steps carry to the next. The step is stored as a number and read back through the card's
/// own typed enum (`registry::Step`); an unknown number is an engine fault, never a silent
/// no-op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EventTask {
    pub card: CardId,
    pub side: Side,
    pub step: u8,
    /// A counter (markers left to place, rolls left...).
    pub count: u8,
    /// What the steps have chosen so far.
    pub picked: Picked,
    /// Countries chosen twice (for "at most 2 per country").
    pub twice: CountrySet,
    /// What a later step needs to know (the card returned, the summit's winner).
    pub arg: Arg,
}

/// What an event's steps have chosen so far: countries, or cards (a card's steps choose one
/// kind). One bitset with the kind in its top bit (no card or country number reaches it), so a
/// task stays as small as when it was a bare number (the work stack is copied at every move);
/// hashed without the kind bit, as that number was, so that the state hashes of saved games
/// hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Picked(u128);

/// The top bit: the bitset holds cards.
const PICKED_CARDS: u128 = 1 << 127;

impl Picked {
    /// Nothing chosen yet.
    pub const NOTHING: Picked = Picked(0);

    /// These cards chosen.
    #[inline]
    pub fn of_cards(s: CardSet) -> Picked {
        Picked(s.0 | PICKED_CARDS)
    }
    /// The countries chosen (none if the steps choose cards).
    #[inline]
    pub fn countries(self) -> CountrySet {
        if self.0 & PICKED_CARDS != 0 {
            CountrySet::default()
        } else {
            CountrySet(self.0)
        }
    }
    /// The cards chosen (none if the steps choose countries).
    #[inline]
    pub fn cards(self) -> CardSet {
        if self.0 & PICKED_CARDS != 0 {
            CardSet(self.0 & !PICKED_CARDS)
        } else {
            CardSet::default()
        }
    }
    /// The countries chosen and `c`.
    #[inline]
    pub fn with_country(self, c: CountryId) -> Picked {
        Picked(self.countries().with(c).0)
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 & !PICKED_CARDS == 0
    }
}

impl std::hash::Hash for Picked {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.0 & !PICKED_CARDS).hash(state)
    }
}

/// What a later step of an event needs to know. Hashed as the number it was stored as (the
/// card's number, the side's index, 0 for nothing), so that the state hashes of saved games
/// hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arg {
    #[default]
    Nothing,
    Card(CardId),
    Side(Side),
}

impl std::hash::Hash for Arg {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let n: i16 = match self {
            Arg::Nothing => 0,
            Arg::Card(c) => i16::from(c.0),
            Arg::Side(s) => s.idx() as i16,
        };
        n.hash(state)
    }
}

impl EventTask {
    pub fn new(card: CardId, side: Side) -> EventTask {
        EventTask { card, side, step: 0, count: 0, picked: Picked::NOTHING, twice: CountrySet::default(), arg: Arg::Nothing }
    }
    pub fn at(self, step: impl Into<u8>) -> Self {
        EventTask { step: step.into(), ..self }
    }
    pub fn count(self, count: u8) -> Self {
        EventTask { count, ..self }
    }
    pub fn arg(self, arg: Arg) -> Self {
        EventTask { arg, ..self }
    }
}

/// What the Ops of a card play are spent on (§6: one activity per card).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OpsKind {
    Influence,
    Realign,
    Coup,
}

impl OpsKind {
    pub const fn bit(self) -> u8 {
        match self {
            OpsKind::Influence => 1,
            OpsKind::Realign => 2,
            OpsKind::Coup => 4,
        }
    }
}

/// Spending the Ops of one card (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OpsTask {
    pub side: Side,
    /// The card whose (modified) Ops are spent; `None` for Ops an event grants as a number.
    pub card: Option<CardId>,
    /// The granted number when `card` is `None`.
    pub granted: u8,
    /// Fixed by the first Op spent.
    pub kind: Option<OpsKind>,
    pub spent: u8,
    pub spend: Spend,
    /// The countries these Ops may be spent in, as a bitmask (`u128::MAX`: anywhere). Events
    /// limit their Ops to regions (Junta) or to any set of countries (Che).
    pub targets: u128,
    /// A free coup or realignment from an event: ignores DEFCON limits and earns no military
    /// ops (§6.3.5, §8.2.5).
    pub free: bool,
    /// Bitmask of allowed kinds (`OpsKind::bit`).
    pub allowed: u8,
    /// The event that granted these Ops, if any: it is told when they are spent
    /// (`Task::Continue`, e.g. Che's second coup).
    pub then: Option<EventTask>,
    /// The event that limits these Ops to some kinds or countries (Junta, Che, Glasnost…),
    /// named when a move outside the limits is refused.
    pub by: Option<CardId>,
    /// The Ops values the last Op of this card found (`ops::apply`), kept for the next Op while
    /// the effects in play stay the same: a cache, no part of the task's identity.
    pub kept: KeptValues,
}

/// The Ops value of each way the rest of a card's Ops may be spent, `[all in Asia][all in
/// Southeast Asia]`, with the version of the effects in play they were folded under
/// (`State::effects_version`). The fold's only input that can change from one Op to the next is
/// the effects' Ops modifiers (§7.4; the card, its side and the base rules stay), so the values
/// hold while that version does. Derived data: equal and hashed as nothing, as `state::Derived`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct KeptValues(pub Option<(u32, [[i8; 2]; 2])>);

impl PartialEq for KeptValues {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for KeptValues {}
impl std::hash::Hash for KeptValues {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl OpsTask {
    pub const ALL: u8 = 7;
    pub fn for_card(side: Side, card: CardId) -> OpsTask {
        OpsTask {
            side,
            card: Some(card),
            granted: 0,
            kind: None,
            spent: 0,
            spend: Spend::OPEN,
            targets: u128::MAX,
            free: false,
            allowed: Self::ALL,
            then: None,
            by: None,
            kept: KeptValues(None),
        }
    }
    pub fn granted(side: Side, ops: u8) -> OpsTask {
        OpsTask { card: None, granted: ops, ..Self::for_card(side, CardId::CHINA) }
    }
    /// Ops an event limits (see `by`).
    pub fn by(self, card: CardId) -> OpsTask {
        OpsTask { by: Some(card), ..self }
    }
    pub fn only(self, kinds: &[OpsKind]) -> OpsTask {
        OpsTask { allowed: kinds.iter().fold(0, |m, k| m | k.bit()), ..self }
    }
    pub fn allows(&self, k: OpsKind) -> bool {
        self.allowed & k.bit() != 0 && self.kind.is_none_or(|x| x == k)
    }
}

/// A set of play modes (§5): which ways a card-play task allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Modes(pub u8);

impl Modes {
    pub const ALL: Modes = Modes(0b11111);
    /// Operations only (the card's own event, if any, in the order the player chooses).
    pub const OPS: Modes = Modes(0b00010 | 0b00100 | 0b01000);
    pub fn bit(m: PlayMode) -> u8 {
        match m {
            PlayMode::Event => 1,
            PlayMode::Ops => 2,
            PlayMode::OpsThenEvent => 4,
            PlayMode::EventThenOps => 8,
            PlayMode::Space => 16,
        }
    }
    pub fn of(ms: &[PlayMode]) -> Modes {
        Modes(ms.iter().fold(0, |m, x| m | Self::bit(*x)))
    }
    pub fn allows(self, m: PlayMode) -> bool {
        self.0 & Self::bit(m) != 0
    }
}

/// Where the cards of a card-play task come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Source {
    /// The player's hand, and The China Card when it may be played (an action round, §5).
    HandAndChina,
    /// The player's hand only (events never force or offer The China Card, §9.5).
    Hand,
    /// Only these cards, wherever they are (a card taken from the opponent: Grain Sales).
    Cards(CardSet),
}

/// Playing a card (§5) as a task: an action round's play, or a play an event asks for (UN
/// Intervention's card, Grain Sales' taken card).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayTask {
    pub side: Side,
    pub source: Source,
    /// Only cards carrying the opponent's event (UN Intervention).
    pub opponent_events_only: bool,
    pub modes: Modes,
    /// The played card's event does not occur (UN Intervention cancels it).
    pub event_cancelled: bool,
    /// The event that asks for this play (`None`: the action round's own play).
    pub by: Option<CardId>,
    /// `pass` is allowed and continues with this event step (Grain Sales: return the card).
    pub or_else: Option<EventTask>,
    /// This is the side's action-round card play: the round's own, or that play narrowed by
    /// an obligation ("must play this card next round": Missile Envy), which effects on the
    /// round's play (Bear Trap, Quagmire) still see as the round's play.
    pub in_round: bool,
}

impl PlayTask {
    /// The card play of an action round (§5).
    pub fn round(side: Side) -> PlayTask {
        PlayTask {
            side,
            source: Source::HandAndChina,
            opponent_events_only: false,
            modes: Modes::ALL,
            event_cancelled: false,
            by: None,
            or_else: None,
            in_round: true,
        }
    }
    pub fn is_round(&self) -> bool {
        self.by.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Task {
    // ---- setup (§3) ----
    Setup,
    SetupPlace {
        side: Side,
        left: u8,
    },
    UsBonus {
        left: u8,
    },
    // ---- turn (§4.5) ----
    StartTurn,
    ImproveDefcon,
    Deal,
    HeadlineStart,
    HeadlineChoose {
        side: Side,
    },
    HeadlineResolve,
    HeadlineEvent {
        side: Side,
    },
    HeadlineEnd,
    ActionRound {
        round: u8,
        side: Side,
    },
    /// A card play (§5): the action round's, or one an event asks for.
    PlayCard(PlayTask),
    ResolveEvent {
        card: CardId,
        side: Side,
    },
    Ops(OpsTask),
    /// A decision step of a card's event.
    Event(EventTask),
    /// An automatic step of a card's event (what it does after a task it pushed).
    Continue(EventTask),
    EndRound {
        side: Side,
    },
    MilOpsCheck,
    SpaceDiscard {
        side: Side,
    },
    HeldCards,
    ChinaFlip,
    EndTurn,
    FinalScoring,
}

/// A task that waits for a side's move, by kind ([`Task::pending`]: the one place that says
/// which tasks are decisions). The flow matches on it exhaustively: a new kind of decision is a
/// compile error wherever it must be handled, never a silent catch-all.
#[derive(Clone, Copy, Debug)]
pub enum Pending<'a> {
    SetupPlace { side: Side, left: u8 },
    UsBonus { left: u8 },
    HeadlineChoose { side: Side },
    PlayCard(&'a PlayTask),
    Ops(&'a OpsTask),
    Event(&'a EventTask),
    SpaceDiscard { side: Side },
}

impl Task {
    /// The decision this task waits for, or `None` for an automatic task.
    #[inline(always)]
    pub fn pending(&self) -> Option<Pending<'_>> {
        match self {
            Task::SetupPlace { side, left } => Some(Pending::SetupPlace { side: *side, left: *left }),
            Task::UsBonus { left } => Some(Pending::UsBonus { left: *left }),
            Task::HeadlineChoose { side } => Some(Pending::HeadlineChoose { side: *side }),
            Task::PlayCard(pt) => Some(Pending::PlayCard(pt)),
            Task::Ops(o) => Some(Pending::Ops(o)),
            Task::Event(e) => Some(Pending::Event(e)),
            Task::SpaceDiscard { side } => Some(Pending::SpaceDiscard { side: *side }),
            Task::Setup
            | Task::StartTurn
            | Task::ImproveDefcon
            | Task::Deal
            | Task::HeadlineStart
            | Task::HeadlineResolve
            | Task::HeadlineEvent { .. }
            | Task::HeadlineEnd
            | Task::ActionRound { .. }
            | Task::ResolveEvent { .. }
            | Task::Continue(_)
            | Task::EndRound { .. }
            | Task::MilOpsCheck
            | Task::HeldCards
            | Task::ChinaFlip
            | Task::EndTurn
            | Task::FinalScoring => None,
        }
    }

    #[inline(always)]
    pub fn is_decision(&self) -> bool {
        self.pending().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_kernel::stable_hash;

    /// The typed continuations hash as the numbers they replaced (`picked: u128`, `arg: i16`):
    /// the state hashes recorded in saved games hold.
    #[test]
    fn typed_continuations_hash_as_the_numbers_they_replaced() {
        let (c, k) = (CountryId(17), CardId(43));
        assert_eq!(stable_hash(&Picked::NOTHING), stable_hash(&0u128));
        assert_eq!(stable_hash(&Picked::NOTHING.with_country(c)), stable_hash(&c.bit()));
        let cards = Picked::of_cards([k].into_iter().collect());
        assert_eq!(stable_hash(&cards), stable_hash(&(1u128 << 43)));
        // The kind is kept: cards are not countries, nor the other way round.
        assert_eq!((cards.cards().len(), cards.countries().is_empty()), (1, true));
        assert!(Picked::NOTHING.with_country(c).cards().is_empty() && !cards.is_empty());
        assert_eq!(std::mem::size_of::<Picked>(), std::mem::size_of::<u128>());
        // What an effect remembers, as the `param: i16` it replaced.
        use crate::effect::Memo;
        use crate::map::Region;
        assert_eq!(stable_hash(&Memo::Nothing), stable_hash(&0i16));
        assert_eq!(stable_hash(&Memo::Flag), stable_hash(&1i16));
        assert_eq!(stable_hash(&Memo::Region(Region::ALL[4])), stable_hash(&4i16));
        assert_eq!(stable_hash(&Memo::Country(c)), stable_hash(&18i16), "the country's number + 1");
        assert_eq!(stable_hash(&Memo::Turn(7)), stable_hash(&7i16));
        assert_eq!(stable_hash(&Arg::Nothing), stable_hash(&0i16));
        assert_eq!(stable_hash(&Arg::Card(k)), stable_hash(&43i16));
        assert_eq!(stable_hash(&Arg::Side(Side::Ussr)), stable_hash(&1i16));
        assert_eq!(stable_hash(&CountrySet(c.bit())), stable_hash(&c.bit()));
    }
}
