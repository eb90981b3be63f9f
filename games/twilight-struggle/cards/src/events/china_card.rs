//! Events that claim The China Card (`shapes::ClaimChinaCard`):
//!
//! - Cultural Revolution (#58, USSR): the US passes it face up; if the USSR already holds
//!   it, the USSR gains 1 VP.
//! - Nixon Plays the China Card (#71, US): the USSR passes it face down (card text, the
//!   exception to §9.4); if the US already holds it, the US gains 2 VP.
//! - Ussuri River Skirmish (#76, US): the USSR passes it face up; if the US already holds it,
//!   the US adds 4 Influence in Asia, at most 2 per country.
//!
//! "Holds" includes a face-down China Card (received this turn).

use super::ids::*;
use crate::shapes::{ClaimChinaCard, Markers, Otherwise, Who};
use arbiter_twilight::map::Map;
use arbiter_twilight::{Position, Ruleset, Side};

/// Asia includes Southeast Asia (§2.1.2).
fn in_asia(_p: Position, _s: Side) -> u128 {
    Map::standard().region_mask(arbiter_twilight::Region::Asia)
}

pub fn register(r: &mut Ruleset) {
    r.event(CULTURAL_REVOLUTION, ClaimChinaCard { card: CULTURAL_REVOLUTION, face_up: true, otherwise: Otherwise::Vp(1) });
    r.event(NIXON, ClaimChinaCard { card: NIXON, face_up: false, otherwise: Otherwise::Vp(2) });
    r.event(
        USSURI_RIVER,
        ClaimChinaCard {
            card: USSURI_RIVER,
            face_up: true,
            otherwise: Otherwise::Place(
                Markers { influence_of: Who::Owner, add: true, total: 4, max_per_country: 2, eligible: in_asia },
                "add 4 Influence in Asia, at most 2 per country",
            ),
        },
    );
}
