//! European events with fixed changes or marker removal: Socialist Governments (#7), De Gaulle
//! Leads France (#17), Willy Brandt (#55), The Iron Lady (#83).
//!
//! What their markers do to other cards is data: The Iron Lady prevents Socialist Governments
//! (`prevented_by`), Tear Down this Wall prevents and cancels Willy Brandt, and De Gaulle and
//! Willy Brandt free France and West Germany from NATO (the NATO veto's exceptions), even when
//! NATO is played after them.

use super::ids::*;
use super::placement::PlaceEvent;
use crate::shapes::{Change, FixedChanges, Markers, Who};
use arbiter_twilight::map::{Map, SubRegion};
use arbiter_twilight::{Position, Ruleset, Side};

fn western_europe(_p: Position, _s: Side) -> u128 {
    Map::standard().sub_mask(SubRegion::WesternEurope)
}

pub fn register(r: &mut Ruleset) {
    // Remove 3 US Influence in Western Europe, at most 2 per country (fewer if fewer remain).
    r.event(
        SOCIALIST_GOVERNMENTS,
        PlaceEvent {
            card: SOCIALIST_GOVERNMENTS,
            markers: Markers { influence_of: Who::Opponent, add: false, total: 3, max_per_country: 2, eligible: western_europe },
            what: "remove 3 US Influence from Western Europe, at most 2 per country",
            lasting: false,
            optional: false,
        },
    );
    r.event(
        DE_GAULLE,
        FixedChanges::new(DE_GAULLE, &[Change::Remove(Who::Opponent, "France", 2), Change::Add(Who::Owner, "France", 1)], true),
    );
    r.event(WILLY_BRANDT, FixedChanges::new(WILLY_BRANDT, &[Change::Vp(Who::Owner, 1), Change::Add(Who::Owner, "West Germany", 1)], true));
    r.event(
        IRON_LADY,
        FixedChanges::new(
            IRON_LADY,
            &[Change::Add(Who::Opponent, "Argentina", 1), Change::RemoveAll(Who::Opponent, "United Kingdom"), Change::Vp(Who::Owner, 1)],
            true,
        ),
    );
}
