//! # Arbiter cards
//!
//! The 110 cards of Twilight Struggle (Deluxe): their data (`data/cards.json`, validated at
//! load) and the events implemented so far, registered with the engine's
//! [`arbiter_twilight::Ruleset`]. Events that share a shape use one named shape from
//! [`shapes`]; `CARDS.md` lists each card's status.

/// The bitmask of named countries, looked up once per call site (names are checked against
/// the map the first time; listing legal moves then costs nothing).
macro_rules! countries {
    ($($name:literal),+ $(,)?) => {{
        static MASK: std::sync::OnceLock<u128> = std::sync::OnceLock::new();
        *MASK.get_or_init(|| {
            let map = arbiter_twilight::Map::standard();
            0u128 $(| map.id($name).bit())+
        })
    }};
}

/// One named country, looked up once per call site.
macro_rules! country {
    ($name:literal) => {{
        static ID: std::sync::OnceLock<arbiter_twilight::CountryId> = std::sync::OnceLock::new();
        *ID.get_or_init(|| arbiter_twilight::Map::standard().id($name))
    }};
}

pub mod events;
mod kind;
pub mod shapes;

pub use kind::TwilightStruggle;

use arbiter_twilight::{CardDb, Ruleset};
use std::sync::{Arc, OnceLock};

/// The card data, parsed and validated against the rulebook's counts.
pub fn card_db() -> CardDb {
    CardDb::parse(include_str!("../data/cards.json")).unwrap_or_else(|e| panic!("the built-in card list is invalid: {e}"))
}

/// Every card's event in the project's own words (`data/texts.json`), by card number; checked
/// at first use: 110 texts, numbered 1–110 in order, none empty.
pub fn text(card: arbiter_twilight::CardId) -> &'static str {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    let texts = TEXTS.get_or_init(|| {
        parse_texts(include_str!("../data/texts.json")).unwrap_or_else(|e| panic!("the built-in card texts are invalid: {e}"))
    });
    texts.get(card.idx().wrapping_sub(1)).map(String::as_str).unwrap_or("")
}

fn parse_texts(json: &str) -> Result<Vec<String>, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Entry {
        id: u8,
        text: String,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Texts {
        texts: Vec<Entry>,
    }
    let t: Texts = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if t.texts.len() != 110 {
        return Err(format!("{} texts, expected 110", t.texts.len()));
    }
    t.texts
        .into_iter()
        .enumerate()
        .map(|(i, e)| match (usize::from(e.id) == i + 1, e.text.trim().is_empty()) {
            (false, _) => Err(format!("entry {} is card {}, expected {}", i + 1, e.id, i + 1)),
            (true, true) => Err(format!("card {} has an empty text", e.id)),
            (true, false) => Ok(e.text),
        })
        .collect()
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
        assert_eq!(db.era_deck(arbiter_twilight::card::Era::Early, false).len(), 35);
        assert_eq!(db.era_deck(arbiter_twilight::card::Era::Mid, false).len(), 46);
        assert_eq!(db.era_deck(arbiter_twilight::card::Era::Late, false).len(), 21);
        assert_eq!(db.era_deck(arbiter_twilight::card::Era::Early, true).len(), 38);
        assert_eq!(db.era_deck(arbiter_twilight::card::Era::Mid, true).len(), 48);
        assert_eq!(db.era_deck(arbiter_twilight::card::Era::Late, true).len(), 23);
    }

    #[test]
    fn every_card_has_a_text() {
        for c in card_db().all() {
            let t = text(c.id);
            assert!(!t.trim().is_empty() && t.len() <= 400, "{}: {t:?}", c.name);
        }
    }

    #[test]
    fn misnumbered_texts_are_rejected() {
        let bad = include_str!("../data/texts.json").replacen("\"id\": 2,", "\"id\": 3,", 1);
        assert!(parse_texts(&bad).unwrap_err().contains("entry 2 is card 3"));
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
