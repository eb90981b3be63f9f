//! Hidden information never leaks: at every decision of many random games, every output a side
//! can obtain without the other's consent (its view as JSON, with its prompt; the log lines and
//! move texts it may read) is searched for each card it may not know: a card of the other hand
//! it has not been shown, a card of the draw pile, the other side's unrevealed headline.

use arbiter_games::{ts_options, TwilightSession, TWILIGHT_STRUGGLE};
use arbiter_store::{move_text_for, Session};
use arbiter_twilight::contract::seat;
use arbiter_twilight::view::{cards_named_in, hidden_from, without_rule_references};
use arbiter_twilight::{CardSet, Game, Options, Side, State};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// What a viewer may not know, the rule phrases to skip and the whole-name search are the
// engine's (`arbiter_twilight::view`), shared with the server's tests.
fn unknown(g: &Game, st: &State, viewer: Option<Side>) -> CardSet {
    hidden_from(arbiter_twilight::Position { rules: g.rules(), st }, viewer)
}

fn names(g: &Game, text: &str, cards: CardSet) -> Vec<String> {
    cards_named_in(g.pos(), text, cards)
}

#[test]
fn no_output_of_a_side_names_a_card_it_may_not_know() {
    no_leak(false);
}

/// The same, with every headline chosen at the same time (§4.5C): the US chooses while the
/// USSR decides (an interjection), so its choice is the last move while the USSR still decides.
#[test]
fn no_output_names_a_headline_chosen_while_the_other_side_chooses() {
    no_leak(true);
}

fn no_leak(early_headlines: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut early_made = 0;
    for seed in 0..24u64 {
        let path = dir.path().join(format!("s{seed}.arbiter"));
        let options = Options { optional_cards: seed % 2 == 0, us_bonus: 2 };
        let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(options), seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed + 1000);
        while s.ts().outcome().is_none() {
            let before = s.ts().state().clone();
            let d = s.ts().decision().expect("a decision");
            let early = s.ts().moves_for(d.side.opponent());
            let m = match early.first().filter(|_| early_headlines) {
                Some(h) => {
                    early_made += 1;
                    let m = s.ts().move_text(h);
                    s.play(&m, Some(seat(d.side.opponent()))).unwrap();
                    m
                }
                None => {
                    let m = s.ts().move_text(&d.moves[rng.random_range(0..d.moves.len())]);
                    s.play(&m, None).unwrap();
                    m
                }
            };
            let (g, st) = (s.ts(), s.ts().state());
            let rows = s.rows();
            let last = rows.len() - 1;
            // A card drawn in this move may have been played earlier in it (then discarded,
            // reshuffled and drawn): it was public when it was named.
            let random: Vec<arbiter_twilight::report::RandomOutcome> = serde_json::from_str(&rows[last].record.random_json).unwrap();
            let drawn: CardSet = random
                .iter()
                .filter_map(|r| if let arbiter_twilight::report::RandomOutcome::Draw { card, .. } = r { Some(*card) } else { None })
                .collect();
            // Likewise a card reshuffled into the draw pile in this move had been discarded.
            let reshuffled: CardSet = st.deck.iter().filter(|c| !before.deck.contains(c)).copied().collect();
            for viewer in [Some(Side::Us), Some(Side::Ussr), None] {
                // Unknown before and after this move, and not drawn in it.
                let secret = CardSet(unknown(g, &before, viewer).0 & unknown(g, st, viewer).0 & !drawn.0 & !reshuffled.0);
                let log = rows[last].record.lines_for(viewer.map(seat)).join("\n");
                let out = format!(
                    "{}\n{}\n{}",
                    move_text_for(rows, last, viewer.map(seat), g),
                    without_rule_references(&log),
                    serde_json::to_string(&g.view(viewer)).unwrap()
                );
                let leaked = names(g, &out, secret);
                let who = viewer.map(|s| s.to_string()).unwrap_or_else(|| "observer".into());
                assert!(leaked.is_empty(), "seed {seed}, move {} ({m}): the {who} can read {leaked:?}:\n{out}", last + 1);
            }
        }
    }
    assert!(!early_headlines || early_made >= 24, "only {early_made} headlines chosen early in 24 games");
}
