//! Permission checks: data-driven vetoes with a reason (NATO, US/Japan Mutual Defense Pact, The
//! Reformer, Chernobyl…). Lasting effects contribute [`Veto`]s; the arbitrators consult them
//! before accepting a coup, realignment or influence placement.

use crate::card::CardId;
use crate::map::{CountryId, Map, Region};
use crate::side::Side;
use crate::state::State;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Coup,
    Realign,
    /// Placing Influence with Operations.
    Influence,
    /// Attacking a country with a war event that lets the player choose it (NATO: Brush War).
    War,
}

/// Which countries a veto covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Country(CountryId),
    Region(Region),
    /// Countries of `region` controlled by `side`, except a country freed by another effect in
    /// play (NATO: France after De Gaulle Leads France, West Germany after Willy Brandt).
    ControlledBy {
        side: Side,
        region: Region,
        /// At most two (held in place: the vetoes in play are read at every Ops decision, and
        /// a list on the heap cost an allocation each time).
        except: arrayvec::ArrayVec<(CardId, CountryId), 2>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Veto {
    pub source: CardId,
    /// The side that may not act.
    pub actor: Side,
    /// What it forbids (a fixed list: building the vetoes in play allocates nothing for it,
    /// and every Ops decision builds them).
    pub actions: &'static [Action],
    pub scope: Scope,
    /// Why, in words for the error message.
    pub reason: &'static str,
    pub rule: &'static str,
}

impl Veto {
    /// Does this veto forbid `action` to `actor`?
    pub fn applies(&self, actor: Side, action: Action) -> bool {
        actor == self.actor && self.actions.contains(&action)
    }

    /// Every country this veto's scope covers, for whichever action it forbids.
    pub fn scope_mask(&self, st: &State, masks: &crate::state::InfluenceMasks) -> u128 {
        self.scope_parts(st).mask(masks)
    }

    /// This veto's scope as the countries it may cover and the side whose control it asks:
    /// what [`Veto::scope_mask`] reads of the effects in play (the exceptions freed), apart from
    /// what it reads of the board (control), so that it can be kept while the effects stay.
    pub fn scope_parts(&self, st: &State) -> ScopeParts {
        let map = Map::standard();
        match &self.scope {
            Scope::Country(x) => ScopeParts { within: x.bit(), controlled_by: None },
            Scope::Region(r) => ScopeParts { within: map.region_mask(*r), controlled_by: None },
            Scope::ControlledBy { side, region, except } => {
                let freed = except.iter().filter(|(card, _)| st.has_effect(*card)).fold(0u128, |m, (_, c)| m | c.bit());
                ScopeParts { within: map.region_mask(*region) & !freed, controlled_by: Some(*side) }
            }
        }
    }

    /// Every country this veto forbids to `actor` for `action`.
    pub fn mask(&self, st: &State, masks: &crate::state::InfluenceMasks, actor: Side, action: Action) -> u128 {
        if self.applies(actor, action) {
            self.scope_mask(st, masks)
        } else {
            0
        }
    }
}

/// A veto's scope ([`Veto::scope_parts`]): the countries it may cover, and the side that must
/// control them for it to cover them (`None`: it covers them all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopeParts {
    pub within: u128,
    pub controlled_by: Option<Side>,
}

impl ScopeParts {
    /// The countries covered now.
    #[inline]
    pub fn mask(self, masks: &crate::state::InfluenceMasks) -> u128 {
        match self.controlled_by {
            Some(side) => self.within & masks.control[side.idx()],
            None => self.within,
        }
    }
}
