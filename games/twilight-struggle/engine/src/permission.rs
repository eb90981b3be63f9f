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
        except: Vec<(CardId, CountryId)>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Veto {
    pub source: CardId,
    /// The side that may not act.
    pub actor: Side,
    /// The acts forbidden (a constant list: no allocation each time the vetoes are asked).
    pub actions: &'static [Action],
    pub scope: Scope,
    /// Why, in words for the error message.
    pub reason: &'static str,
    pub rule: &'static str,
}

impl Veto {
    /// Every country this veto forbids to `actor` for `action` (the same rule as `forbids`).
    pub fn mask(&self, st: &State, masks: &crate::state::InfluenceMasks, actor: Side, action: Action) -> u128 {
        if actor != self.actor || !self.actions.contains(&action) {
            return 0;
        }
        let map = Map::standard();
        match &self.scope {
            Scope::Country(x) => x.bit(),
            Scope::Region(r) => map.region_mask(*r),
            Scope::ControlledBy { side, region, except } => {
                let freed = except.iter().filter(|(card, _)| st.has_effect(*card)).fold(0u128, |m, (_, c)| m | c.bit());
                map.region_mask(*region) & masks.control[side.idx()] & !freed
            }
        }
    }
}
