//! Hidden information never leaks: at every decision of many random games, every output a side
//! can obtain without the other's consent (its view as JSON, with its prompt; the log lines and
//! move texts it may read) is searched for each card it may not know: a card of the other hand
//! it has not been shown, a card of the draw pile, the other side's unrevealed headline.

use arbiter_engine::{CardId, CardSet, Game, Options, Side, State};
use arbiter_store::{move_text_for, Session};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The cards `viewer` may not know in `st`: for a side, the cards of the other hand it has not
/// been shown and the other side's unrevealed headline (the draw pile is checked through the
/// observer: a side may have looked at some of it, Our Man in Tehran); for an observer, every
/// card of both hands not revealed, both unrevealed headlines and the draw pile.
fn unknown(g: &Game, st: &State, viewer: Option<Side>) -> CardSet {
    let others: Vec<Side> = match viewer {
        Some(s) => vec![s.opponent()],
        None => Side::BOTH.to_vec(),
    };
    let mut set = CardSet::default();
    // Headlines are secret while they are being chosen (then revealed together), except one
    // that had to be revealed first (Man in Earth Orbit).
    let choosing = matches!(st.stack.last(), Some(arbiter_engine::Task::HeadlineChoose { .. }));
    let first = arbiter_engine::headline::reveals_first(arbiter_engine::Position { rules: g.rules(), st });
    for o in others {
        set.0 |= st.hand(o).0 & !st.known[o.idx()].0;
        if let (Some(c), true, false) = (st.headline[o.idx()], choosing, first == Some(o)) {
            set.insert(c);
        }
    }
    if viewer.is_none() {
        for c in &st.deck {
            set.insert(*c);
        }
    }
    set
}

/// Phrases that name cards as rules, not as cards somewhere: a stated reason ("… needs
/// Marshall Plan…"), a condition quoting card text.
fn without_rule_references(text: &str) -> String {
    text.lines()
        .map(|l| l.split(" does not occur: ").next().unwrap_or(l))
        .map(|l| l.split(" gives no Operations: ").next().unwrap_or(l))
        .map(|l| l.replace("not play UN Intervention as an event", "…"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn names(g: &Game, text: &str, cards: CardSet) -> Vec<String> {
    let db = &g.rules().cards;
    cards
        .iter()
        .filter(|c| *c != CardId::CHINA)
        .filter(|c| {
            let name = db.name(*c);
            // Whole names only: "Asia Scoring" inside "Southeast Asia Scoring" is not it.
            let mut t = text.to_string();
            for longer in db.all().map(|x| x.name.as_str()).filter(|n| n.len() > name.len() && n.contains(name)) {
                t = t.replace(longer, "…");
            }
            t.contains(name)
        })
        .map(|c| db.name(c).to_string())
        .collect()
}

#[test]
fn no_output_of_a_side_names_a_card_it_may_not_know() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..24u64 {
        let path = dir.path().join(format!("s{seed}.arbiter"));
        let options = Options { optional_cards: seed % 2 == 0, us_bonus: 2 };
        let mut s = Session::create(&path, seed, options).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed + 1000);
        while s.game().outcome().is_none() {
            let before = s.game().state().clone();
            let d = s.game().decision().expect("a decision");
            let m = s.game().move_text(&d.moves[rng.random_range(0..d.moves.len())]);
            s.play(&m, None).unwrap();
            let (g, st) = (s.game(), s.game().state());
            let rows = s.rows();
            let last = rows.len() - 1;
            // A card drawn in this move may have been played earlier in it (then discarded,
            // reshuffled and drawn): it was public when it was named.
            let random: Vec<arbiter_engine::report::RandomOutcome> = serde_json::from_str(&rows[last].record.random_json).unwrap();
            let drawn: CardSet = random
                .iter()
                .filter_map(|r| if let arbiter_engine::report::RandomOutcome::Draw { card, .. } = r { Some(*card) } else { None })
                .collect();
            // Likewise a card reshuffled into the draw pile in this move had been discarded.
            let reshuffled: CardSet = st.deck.iter().filter(|c| !before.deck.contains(c)).copied().collect();
            for viewer in [Some(Side::Us), Some(Side::Ussr), None] {
                // Unknown before and after this move, and not drawn in it.
                let secret = CardSet(unknown(g, &before, viewer).0 & unknown(g, st, viewer).0 & !drawn.0 & !reshuffled.0);
                let log = rows[last].record.lines_for(viewer).join("\n");
                let out = format!(
                    "{}\n{}\n{}",
                    move_text_for(rows, last, viewer),
                    without_rule_references(&log),
                    serde_json::to_string(&g.view(viewer)).unwrap()
                );
                let leaked = names(g, &out, secret);
                let who = viewer.map(|s| s.to_string()).unwrap_or_else(|| "observer".into());
                assert!(leaked.is_empty(), "seed {seed}, move {} ({m}): the {who} can read {leaked:?}:\n{out}", last + 1);
            }
        }
    }
}
