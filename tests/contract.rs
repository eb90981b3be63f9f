//! The kernel's contract, checked the same way for every game a host can offer: random games
//! played through `Match` (moves in notation, views as JSON), and at every decision: each
//! listed move reads back to itself, a move outside the list is refused and changes nothing,
//! views serialise for every seat and the observer, and a second game from the same seed and
//! moves has the same state hash after each move.

use arbiter_kernel::{GameKind, Match, Seat};
use pretty_assertions::assert_eq;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn kinds() -> Vec<Box<dyn GameKind>> {
    vec![Box::new(arbiter_twilight_cards::TwilightStruggle), Box::new(arbiter_minesweeper::Kind)]
}

/// Play one random game of `kind`; the moves and the hash after each.
fn random_game(kind: &dyn GameKind, seed: u64, checks: bool) -> (Vec<(Seat, String)>, Vec<u64>) {
    let (mut m, _) = kind.create(&serde_json::Value::Null, seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut moves, mut hashes) = (Vec::new(), Vec::new());
    while let Some(turn) = m.decision() {
        let legal = m.legal_moves();
        assert!(!legal.is_empty(), "{}: a decision with no legal move", kind.id());
        if checks {
            for viewer in (0..m.seats().len()).map(|i| Some(Seat(i as u8))).chain([None]) {
                assert!(m.view(viewer).is_object(), "{}: the view of {viewer:?} is a JSON object", kind.id());
            }
            // A seat choosing at the same time is not the deciding seat, and has its choice.
            for t in m.simultaneous() {
                assert_ne!(t.seat, turn.seat, "{}: the deciding seat is not also choosing at the same time", kind.id());
                assert!(
                    !t.prompt.is_empty() && !m.interjections(t.seat).is_empty(),
                    "{}: {:?} chooses now, by an interjection",
                    kind.id(),
                    t.seat
                );
            }
            // Something no game accepts: refused, nothing changed.
            let before = m.state_hash();
            assert!(m.play(turn.seat, "frobnicate the board").is_err());
            assert_eq!(m.state_hash(), before, "{}: a refused move changed the game", kind.id());
        }
        let text = legal[rng.random_range(0..legal.len())].clone();
        let mut by_json = m.boxed_clone();
        let played = m.play(turn.seat, &text).unwrap_or_else(|e| panic!("{}: listed {text:?} refused: {e}", kind.id()));
        assert_eq!(played.text, text, "{}: a listed move is in canonical text", kind.id());
        // What a store keeps (the move's JSON) replays to the same game.
        let again = by_json.play_json(turn.seat, &played.json).unwrap_or_else(|e| panic!("{}: {text:?} as JSON refused: {e}", kind.id()));
        assert_eq!((again.text, again.report), (played.text.clone(), played.report), "{}: {text:?} from its JSON", kind.id());
        assert_eq!(by_json.state_hash(), m.state_hash(), "{}: {text:?} from its JSON", kind.id());
        moves.push((turn.seat, text));
        hashes.push(m.state_hash());
    }
    let o = m.outcome().unwrap_or_else(|| panic!("{}: no decision and no outcome", kind.id()));
    assert!(!o.reason.is_empty() && !o.text.is_empty());
    assert!(m.legal_moves().is_empty(), "{}: no legal move once the game is over", kind.id());
    (moves, hashes)
}

#[test]
fn every_game_keeps_the_contract() {
    for kind in kinds() {
        assert!(!kind.id().is_empty() && !kind.title().is_empty() && !kind.rules_version().is_empty());
        assert!(kind.default_options().is_object(), "{}: default options are an object", kind.id());
        assert!(kind.create(&serde_json::json!({ "no such option": 1 }), 1).is_err(), "{}: an unknown option is refused", kind.id());
        for seed in 0..6u64 {
            let (moves, hashes) = random_game(kind.as_ref(), seed, seed < 2);
            // Replay: the same seed and moves, the same hashes.
            let (mut again, _) = kind.create(&serde_json::Value::Null, seed).unwrap();
            for ((seat, text), want) in moves.iter().zip(&hashes) {
                again.play(*seat, text).unwrap();
                assert_eq!(again.state_hash(), *want, "{} seed {seed}: replay diverged at {text}", kind.id());
            }
        }
    }
}

#[test]
fn a_clone_is_independent() {
    for kind in kinds() {
        let (m, _) = kind.create(&serde_json::Value::Null, 3).unwrap();
        let mut copy: Box<dyn Match> = m.boxed_clone();
        let turn = copy.decision().unwrap();
        let first = copy.legal_moves()[0].clone();
        copy.play(turn.seat, &first).unwrap();
        assert_ne!(copy.state_hash(), m.state_hash(), "{}: playing on the clone left the original alone", kind.id());
    }
}

/// The learning hooks (`arbiter_kernel::learn`), for every game that offers them: at every
/// decision of random games, the legal moves' action ids are distinct and read back to the
/// moves, the frame names the deciding seat, observations have the encoding's length and lie
/// in [-1, 1], and a sample of what the deciding seat cannot see (the computer's sampler)
/// gives it the same observation. (The Python tests check the same from Python.)
#[test]
fn every_encoding_keeps_the_learning_contract() {
    for kind in kinds() {
        let (probe, _) = kind.create(&serde_json::Value::Null, 0).unwrap();
        let Some(e) = probe.encoding() else { continue };
        assert!(e.actions > 0 && e.observation_len() > 0 && !e.frames.is_empty(), "{}", kind.id());
        let (mut ids, mut obs, mut again) = (Vec::new(), vec![0.0f32; e.observation_len()], vec![0.0f32; e.observation_len()]);
        let mut decisions = 0;
        for seed in 0..4u64 {
            let (mut m, _) = kind.create(&serde_json::Value::Null, seed).unwrap();
            // The same game played by text with its words: stepping by action id (a move played
            // quietly, into a report the game keeps) reaches the same states.
            let mut twin = m.boxed_clone();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(turn) = m.decision() {
                assert_eq!(m.state_hash(), twin.state_hash(), "{}: the quiet and the worded play agree", kind.id());
                decisions += 1;
                let legal = m.legal_moves();
                m.legal_actions(&mut ids);
                assert_eq!(ids.len(), legal.len(), "{}: every listed move has an action id", kind.id());
                let mut distinct = ids.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), ids.len(), "{}: two listed moves share an action id", kind.id());
                for (id, text) in ids.iter().zip(&legal) {
                    assert!(*id < e.actions);
                    assert_eq!(&m.action_text(*id).unwrap(), text, "{}", kind.id());
                    assert_eq!(m.action_of(text).unwrap(), *id, "{}", kind.id());
                }
                let frame = m.frame().expect("a frame at a decision");
                assert_eq!(frame.seat, turn.seat, "{}: the frame names the deciding seat", kind.id());
                assert!((frame.kind as usize) < e.frames.len());
                assert_eq!(m.observe_decider(&mut obs).unwrap(), Some(frame));
                // Every value is written (`Game::observe`): none is left from before.
                again.fill(f32::NAN);
                m.observe(turn.seat, &mut again).unwrap();
                assert_eq!(obs, again, "{}: the decider's observation is the seat's", kind.id());
                assert!(obs.iter().all(|v| (-1.0..=1.0).contains(v)), "{}: observations lie in [-1, 1]", kind.id());
                if let Ok(sample) = m.sample_hidden(turn.seat, rng.random()) {
                    sample.observe(turn.seat, &mut again).unwrap();
                    assert_eq!(obs, again, "{}: a sample of hidden information changed the observation", kind.id());
                }
                let k = rng.random_range(0..ids.len());
                m.step_action(turn.seat, ids[k]).unwrap_or_else(|r| panic!("{}: listed {:?} refused: {r}", kind.id(), legal[k]));
                twin.play(turn.seat, &legal[k]).unwrap_or_else(|r| panic!("{}: listed {:?} refused by text: {r}", kind.id(), legal[k]));
            }
            assert_eq!(m.state_hash(), twin.state_hash(), "{}", kind.id());
            assert_eq!(m.frame(), None);
            assert!(m.observe(Seat(0), &mut vec![0.0; 1]).is_err(), "{}: an observation of the wrong length is refused", kind.id());
        }
        assert!(decisions > 20, "{}", kind.id());
    }
}

/// Twilight Struggle: the observation of the seat that is *not* deciding (what PettingZoo's
/// `observe(agent)` gives a waiting agent) never changes when only what it cannot know changes:
/// a card of the other hand it has not seen swapped with a card of the draw pile. (The learning
/// contract above samples only at the deciding seat's own decision.)
#[test]
fn the_waiting_seats_observation_ignores_the_other_sides_hidden_cards() {
    use arbiter_twilight::encode::{observe, OBSERVATION};
    use arbiter_twilight::{Game, Options, Randomness};
    let rules = arbiter_twilight_cards::ruleset();
    let (mut checked, mut skipped) = (0, 0);
    for seed in 0..30u64 {
        let (mut g, _) = Game::new(rules.clone(), Options::default(), Randomness::seeded(seed));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(d) = g.decision() {
            let me = d.side.opponent();
            let st = g.state();
            let unseen = arbiter_twilight::CardSet(st.hands[d.side.idx()].0 & !st.known[d.side.idx()].0);
            if let (Some(hidden), Some(&drawn)) = (unseen.iter().next(), st.deck.first()) {
                let mut before = vec![0.0f32; OBSERVATION];
                observe(&g, me, &mut before);
                let mut swapped = st.clone();
                swapped.hands[d.side.idx()].remove(hidden);
                swapped.hands[d.side.idx()].insert(drawn);
                swapped.deck[0] = hidden;
                let (other, _) = Game::from_state(rules.clone(), swapped);
                // The same position, only the hidden cards differing: a swap after which the
                // decision has no legal move runs on to another position (a different game).
                if other.state().stack != st.stack || other.state().round != st.round {
                    skipped += 1;
                    let m = d.moves[rng.random_range(0..d.moves.len())];
                    g.play_quiet(&m).unwrap();
                    continue;
                }
                let mut after = vec![0.0f32; OBSERVATION];
                observe(&other, me, &mut after);
                let diff: Vec<usize> = (0..OBSERVATION).filter(|i| before[*i] != after[*i]).collect();
                assert!(before == after, "seed {seed}: indices {diff:?} hidden {hidden:?} drawn {drawn:?} known {:?}: swapping a hidden card of the {} changed the {}'s observation", st.known[d.side.idx()], d.side, me);
                checked += 1;
            }
            let m = d.moves[rng.random_range(0..d.moves.len())];
            g.play_quiet(&m).unwrap();
        }
    }
    assert!(checked > 1000 && skipped * 20 < checked, "{checked} positions checked, {skipped} skipped");
}
