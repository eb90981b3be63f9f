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
    RULES.get_or_init(|| Arc::new(build())).clone()
}

/// The standard ruleset under the interest check (`Ruleset::check_interest`): every effect in
/// play is asked about everything, and one answering outside its declared interest faults the
/// move. The same games as `ruleset()`; slower. For the soak test.
pub fn ruleset_checking_interest() -> Arc<Ruleset> {
    static RULES: OnceLock<Arc<Ruleset>> = OnceLock::new();
    RULES
        .get_or_init(|| {
            let mut r = build();
            r.check_interest();
            Arc::new(r)
        })
        .clone()
}

fn build() -> Ruleset {
    let mut r = Ruleset::new(card_db());
    events::register(&mut r);
    // Static data, checked by the tests: every card but The China Card has its event.
    let missing = r.missing_events();
    assert!(missing.is_empty(), "cards without a registered event: {missing:?}");
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test effect that cancels every VP award and gives the USSR 1 VP when a round ends,
    /// declaring `interest`.
    struct Awards(arbiter_twilight::Interest);

    impl arbiter_twilight::Lasting for Awards {
        fn interest(&self) -> arbiter_twilight::Interest {
            self.0
        }
        /// For the rest of the game (the test adds it so).
        fn shape(&self, usual: arbiter_twilight::effect::Shape) -> arbiter_twilight::effect::Shape {
            arbiter_twilight::effect::Shape { expiry: arbiter_twilight::effect::Expiry::Permanent, ..usual }
        }
        fn intercept(
            &self,
            _p: arbiter_twilight::Position,
            _e: &arbiter_twilight::effect::Effect,
            what: &arbiter_twilight::Intent,
        ) -> arbiter_twilight::Verdict {
            match what {
                arbiter_twilight::Intent::Instr { instr: arbiter_twilight::instr::Instr::Vp { .. }, .. } => {
                    arbiter_twilight::Verdict::Cancel("cancels it".into())
                }
                _ => arbiter_twilight::Verdict::Allow,
            }
        }
        fn react(
            &self,
            ctx: &mut arbiter_twilight::ctx::Ctx,
            _e: &arbiter_twilight::effect::Effect,
            ev: &arbiter_twilight::instr::DomainEvent,
        ) {
            if let arbiter_twilight::instr::DomainEvent::RoundEnded { .. } = ev {
                ctx.exec(arbiter_twilight::instr::Instr::VpNet(-1));
            }
        }
    }

    /// With `interest` declared and the check on or off: (VP after a cancelled award and a round
    /// end, the engine fault).
    fn play_awards(interest: arbiter_twilight::Interest, check: bool) -> (i8, Option<String>) {
        use arbiter_twilight::effect::{Effect, Expiry};
        use arbiter_twilight::instr::{DomainEvent, Instr};
        use arbiter_twilight::{CardId, Side};
        let mut rules = build();
        let card = CardId(1);
        rules.lasting(card, Awards(interest));
        if check {
            rules.check_interest();
        }
        in_a_new_game(&rules, |ctx| {
            ctx.exec(Instr::AddEffect(Effect::new(card, Side::Us, Expiry::Permanent)));
            ctx.exec(Instr::Vp { side: Side::Us, n: 3 });
            ctx.emit(DomainEvent::RoundEnded { side: Side::Us });
        })
    }

    /// Run `f` on a new game of `rules`: (its VP after, the engine fault).
    fn in_a_new_game(rules: &Ruleset, f: impl FnOnce(&mut arbiter_twilight::ctx::Ctx)) -> (i8, Option<String>) {
        let mut st = arbiter_twilight::State::initial(rules, arbiter_twilight::Options::default(), arbiter_twilight::Randomness::seeded(1));
        let mut report = arbiter_twilight::Report::default();
        let mut carried = arbiter_twilight::ctx::Carried::default();
        let mut ctx = arbiter_twilight::ctx::Ctx::new(rules, &mut st, &mut report, &mut carried);
        f(&mut ctx);
        let fault = ctx.fault.clone();
        (st.vp, fault)
    }

    #[test]
    fn the_interest_check_catches_an_effect_answering_outside_its_declared_interest() {
        use arbiter_twilight::instr::{EventKind, InstrKind};
        use arbiter_twilight::Interest;
        let declared = Interest::NONE.instr(InstrKind::Vp).event(EventKind::RoundEnded);
        // Declared: the award is cancelled and the round's end gives the USSR its VP.
        assert_eq!(play_awards(declared, false), (-1, None));
        assert_eq!(play_awards(declared, true), (-1, None));
        assert_eq!(play_awards(Interest::ALL, true), (-1, None));
        // Declared too narrow, the effect is never asked: the rule is silently skipped…
        assert_eq!(play_awards(Interest::NONE, false), (3, None));
        // …which the check turns into an engine fault, for the interception and the reaction.
        let (_, fault) = play_awards(Interest::NONE.event(EventKind::RoundEnded), true);
        assert!(fault.as_deref().is_some_and(|f| f.contains("objects to") && f.contains("outside its declared interest")), "{fault:?}");
        let (_, fault) = play_awards(Interest::NONE.instr(InstrKind::Vp), true);
        assert!(fault.as_deref().is_some_and(|f| f.contains("reacts to") && f.contains("outside its declared interest")), "{fault:?}");
    }

    /// The fault of adding `e` (Chernobyl's effect, declared to remember a region) under the
    /// declaration check, and without it.
    fn add_chernobyl(e: arbiter_twilight::effect::Effect) -> [Option<String>; 2] {
        [true, false].map(|check| {
            let mut rules = build();
            if check {
                rules.check_interest();
            }
            in_a_new_game(&rules, |ctx| ctx.exec(arbiter_twilight::instr::Instr::AddEffect(e))).1
        })
    }

    #[test]
    fn the_declaration_check_catches_an_effect_entering_play_out_of_its_declared_shape() {
        use arbiter_twilight::effect::{Effect, Expiry, Memo};
        use arbiter_twilight::{Region, Side};
        let chernobyl = events::ids::CHERNOBYL;
        let right = Effect { memo: Memo::Region(Region::Asia), ..Effect::new(chernobyl, Side::Us, Expiry::EndOfTurn) };
        assert_eq!(add_chernobyl(right), [None, None]);
        for wrong in [
            Effect::new(chernobyl, Side::Us, Expiry::EndOfTurn),
            Effect { memo: Memo::Turn(8), ..right },
            Effect { expiry: Expiry::Permanent, ..right },
            right.keeping_card(),
        ] {
            let [checked, unchecked] = add_chernobyl(wrong);
            assert!(checked.as_deref().is_some_and(|f| f.contains("not its declared shape")), "{wrong:?}: {checked:?}");
            assert_eq!(unchecked, None);
        }
    }

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
