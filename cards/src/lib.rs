//! # Arbiter cards
//!
//! The 110 cards of Twilight Struggle (Deluxe): their data (`data/cards.json`, validated at
//! load) and the events implemented so far, registered with the engine's
//! [`arbiter_engine::Ruleset`]. Events that share a shape use one named shape from
//! [`shapes`]; `CARDS.md` lists each card's status.

/// The bitmask of named countries, looked up once per call site (names are checked against
/// the map the first time; listing legal moves then costs nothing).
macro_rules! countries {
    ($($name:literal),+ $(,)?) => {{
        static MASK: std::sync::OnceLock<u128> = std::sync::OnceLock::new();
        *MASK.get_or_init(|| {
            let map = arbiter_engine::Map::standard();
            0u128 $(| map.id($name).bit())+
        })
    }};
}

/// One named country, looked up once per call site.
macro_rules! country {
    ($name:literal) => {{
        static ID: std::sync::OnceLock<arbiter_engine::CountryId> = std::sync::OnceLock::new();
        *ID.get_or_init(|| arbiter_engine::Map::standard().id($name))
    }};
}

pub mod events;
pub mod shapes;

use arbiter_engine::{CardDb, Ruleset};
use std::sync::{Arc, OnceLock};

/// The card data, parsed and validated against the rulebook's counts.
pub fn card_db() -> CardDb {
    CardDb::parse(include_str!("../data/cards.json")).unwrap_or_else(|e| panic!("the built-in card list is invalid: {e}"))
}

/// The standard ruleset: all card data plus every implemented event. Built once.
pub fn ruleset() -> Arc<Ruleset> {
    static RULES: OnceLock<Arc<Ruleset>> = OnceLock::new();
    RULES
        .get_or_init(|| {
            let mut r = Ruleset::new(card_db());
            events::register(&mut r);
            // Static data, checked by the tests: every card but The China Card has its event.
            let missing = r.missing_events();
            assert!(missing.is_empty(), "cards without a registered event: {missing:?}");
            Arc::new(r)
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_data_loads_and_matches_reference_counts() {
        let db = card_db();
        assert_eq!(db.all().count(), 110);
        assert_eq!(db.era_deck(arbiter_engine::card::Era::Early, false).len(), 35);
        assert_eq!(db.era_deck(arbiter_engine::card::Era::Mid, false).len(), 46);
        assert_eq!(db.era_deck(arbiter_engine::card::Era::Late, false).len(), 21);
        assert_eq!(db.era_deck(arbiter_engine::card::Era::Early, true).len(), 38);
        assert_eq!(db.era_deck(arbiter_engine::card::Era::Mid, true).len(), 48);
        assert_eq!(db.era_deck(arbiter_engine::card::Era::Late, true).len(), 23);
    }

    #[test]
    fn every_card_has_its_event() {
        assert_eq!(ruleset().missing_events(), Vec::new());
    }

    #[test]
    fn a_miscounted_card_list_is_rejected() {
        let bad = include_str!("../data/cards.json").replacen(r#""starred": true"#, r#""starred": false"#, 1);
        let err = CardDb::parse(&bad).unwrap_err().to_string();
        assert!(err.contains("starred cards: 69, expected 70"), "{err}");
    }
}
