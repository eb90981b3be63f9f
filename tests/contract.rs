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
    vec![
        Box::new(arbiter_twilight_cards::TwilightStruggle),
        Box::new(arbiter_minesweeper::Kind),
        Box::new(arbiter_mafia::Kind),
        Box::new(arbiter_diplomacy::Kind),
        Box::new(odd_one_out::Kind),
    ]
}

/// A test-only game of 3 to 6 seats, every round a simultaneous step: each seat shows heads or
/// tails at once, unseen by the others until all have shown; a seat alone in its choice scores.
/// The first to 2 points ends the game, the seats ranked by their points (a draw after 12
/// rounds). It is the smallest game of the shape Diplomacy's orders and Mafia's nights have.
mod odd_one_out {
    use arbiter_kernel::kind::{Capabilities, Information, SeatRange, Shape};
    use arbiter_kernel::{
        Decision, Encodable, Game, GameKind, Match, Outcome, Refusal, Report, Searchable, Seat, SeatResult, Turn, Viewer,
    };

    #[derive(Clone, Debug, Hash, PartialEq, Eq)]
    pub struct OddOneOut {
        points: Vec<u8>,
        shown: Vec<Option<bool>>,
        round: u8,
    }

    impl Game for OddOneOut {
        type Move = bool;
        type View = serde_json::Value;
        fn seats(&self) -> Vec<String> {
            (1..=self.points.len()).map(|i| format!("Seat {i}")).collect()
        }
        fn decision(&self) -> Option<Decision> {
            if Game::outcome(self).is_some() {
                return None;
            }
            Decision::step(
                (0..self.points.len())
                    .filter(|s| self.shown[*s].is_none())
                    .map(|s| Turn { seat: Seat(s as u8), prompt: format!("round {}: heads or tails", self.round + 1) }),
            )
        }
        fn legal_moves(&self) -> Vec<bool> {
            self.deciding().map(|s| Game::moves_for(self, s)).unwrap_or_default()
        }
        fn moves_for(&self, seat: Seat) -> Vec<bool> {
            let open = Game::outcome(self).is_none() && self.shown.get(seat.idx()).is_some_and(|c| c.is_none());
            if open {
                vec![true, false]
            } else {
                Vec::new()
            }
        }
        fn play_as(&mut self, seat: Seat, m: &bool) -> Result<Report, Refusal> {
            if !Game::moves_for(self, seat).contains(m) {
                return Err(Refusal::new("this seat has shown its side this round, or the game is over", "odd one out"));
            }
            self.shown[seat.idx()] = Some(*m);
            let mut r = Report::default();
            if self.shown.iter().all(Option::is_some) {
                let heads = self.shown.iter().filter(|c| **c == Some(true)).count();
                for s in 0..self.points.len() {
                    let same = if self.shown[s] == Some(true) { heads } else { self.points.len() - heads };
                    self.points[s] += u8::from(same == 1);
                }
                r.public(format!("round {}: {:?}", self.round + 1, self.shown));
                r.revealed = true;
                self.shown.iter_mut().for_each(|c| *c = None);
                self.round += 1;
            }
            Ok(r)
        }
        fn view(&self, viewer: Viewer) -> serde_json::Value {
            serde_json::json!({ "points": self.points, "round": self.round, "mine": viewer.and_then(|v| self.shown.get(v.idx()).copied().flatten()) })
        }
        fn state_hash(&self) -> u64 {
            arbiter_kernel::stable_hash(self)
        }
        fn outcome(&self) -> Option<Outcome> {
            let best = *self.points.iter().max()?;
            if best < 2 && self.round < 12 {
                return None;
            }
            let results = self
                .points
                .iter()
                .map(|p| SeatResult::Ranked { rank: 1 + self.points.iter().filter(|q| *q > p).count() as u16, score: i64::from(*p) })
                .collect();
            Some(Outcome { results, reason: "points".into(), text: format!("points: {:?}", self.points) })
        }
        fn move_text(&self, m: &bool) -> String {
            if *m {
                "heads".into()
            } else {
                "tails".into()
            }
        }
        fn parse_move(&self, text: &str) -> Result<bool, Refusal> {
            match text.trim() {
                "heads" => Ok(true),
                "tails" => Ok(false),
                _ => Err(Refusal::new("heads or tails", "odd one out")),
            }
        }
        /// Shown sides are secret until the round ends.
        fn hidden_move(&self, _text: &str, by: Seat, age: usize, viewer: Viewer) -> Option<String> {
            let this_round = self.shown.iter().filter(|c| c.is_some()).count();
            (age < this_round && viewer != Some(by)).then(|| "shown".into())
        }
        fn timeout_move(&self, _seat: Seat) -> Option<bool> {
            Some(true)
        }
    }

    impl Searchable for OddOneOut {}

    impl Encodable for OddOneOut {}

    pub struct Kind;

    impl GameKind for Kind {
        fn id(&self) -> &'static str {
            "odd-one-out"
        }
        fn title(&self) -> &'static str {
            "Odd one out"
        }
        fn rules_version(&self) -> &'static str {
            "test"
        }
        fn shape(&self) -> Shape {
            Shape {
                seats: SeatRange { min: 3, max: 6, default: 3 },
                options: Vec::new(),
                information: Information::Imperfect,
                capabilities: Capabilities { computer: false, encoding: false, clock: true },
            }
        }
        fn create(&self, options: &serde_json::Value, _seed: u64) -> Result<(Box<dyn Match>, Report), Refusal> {
            if options.as_object().is_some_and(|o| o.keys().any(|k| k != arbiter_kernel::kind::SEATS)) {
                return Err(Refusal::new("no such option", "game options"));
            }
            let n = usize::from(arbiter_kernel::kind::seats_of(options, self.shape().seats)?);
            Ok((Box::new(OddOneOut { points: vec![0; n], shown: vec![None; n], round: 0 }), Report::default()))
        }
    }
}

/// Play one random game of `kind`; the moves and the hash after each.
fn random_game(kind: &dyn GameKind, seed: u64, checks: bool) -> (Vec<(Seat, String)>, Vec<u64>) {
    let (mut m, _) = kind.create(&serde_json::Value::Null, seed).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut moves, mut hashes) = (Vec::new(), Vec::new());
    let seats = m.seats().len();
    while let Some(decision) = m.decision() {
        // At a simultaneous step, any seat that must act may be the next to.
        let acting: Vec<Seat> = decision.seats().collect();
        let seat = acting[rng.random_range(0..acting.len())];
        let legal = m.legal_moves(seat);
        assert!(!legal.is_empty(), "{}: a decision with no legal move", kind.id());
        assert_eq!(m.first_moves(), m.legal_moves(decision.first().seat), "{}", kind.id());
        if checks {
            for viewer in (0..seats).map(|i| Some(Seat(i as u8))).chain([None]) {
                assert!(m.view(viewer).is_object(), "{}: the view of {viewer:?} is a JSON object", kind.id());
            }
            // Each seat that must act has its prompt and its moves; the others have none.
            for s in (0..seats).map(|i| Seat(i as u8)) {
                match decision.prompt(s) {
                    Some(p) => assert!(!p.is_empty() && !m.legal_moves(s).is_empty(), "{}: {s:?} must act with nothing to do", kind.id()),
                    None => assert!(m.legal_moves(s).is_empty(), "{}: {s:?} need not act but has moves", kind.id()),
                }
            }
            assert!(!m.eliminated().iter().any(|e| decision.includes(*e)), "{}: an eliminated seat must act", kind.id());
            // Something no game accepts: refused, nothing changed.
            let before = m.state_hash();
            assert!(m.play(seat, "frobnicate the board").is_err());
            assert_eq!(m.state_hash(), before, "{}: a refused move changed the game", kind.id());
        }
        let text = legal[rng.random_range(0..legal.len())].clone();
        let mut by_json = m.boxed_clone();
        let played = m.play(seat, &text).unwrap_or_else(|e| panic!("{}: listed {text:?} refused: {e}", kind.id()));
        assert_eq!(played.text, text, "{}: a listed move is in canonical text", kind.id());
        // What a store keeps (the move's JSON) replays to the same game.
        let again = by_json.play_json(seat, &played.json).unwrap_or_else(|e| panic!("{}: {text:?} as JSON refused: {e}", kind.id()));
        assert_eq!((again.text, again.report), (played.text.clone(), played.report), "{}: {text:?} from its JSON", kind.id());
        assert_eq!(by_json.state_hash(), m.state_hash(), "{}: {text:?} from its JSON", kind.id());
        moves.push((seat, text));
        hashes.push(m.state_hash());
    }
    let o = m.outcome().unwrap_or_else(|| panic!("{}: no decision and no outcome", kind.id()));
    assert!(!o.reason.is_empty() && !o.text.is_empty());
    assert_eq!(o.results.len(), seats, "{}: a result for every seat", kind.id());
    assert_eq!(o.returns().len(), seats, "{}", kind.id());
    assert!(m.first_moves().is_empty(), "{}: no legal move once the game is over", kind.id());
    (moves, hashes)
}

#[test]
fn every_game_keeps_the_contract() {
    for kind in kinds() {
        assert!(!kind.id().is_empty() && !kind.title().is_empty() && !kind.rules_version().is_empty());
        says_what_it_is(kind.as_ref());
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

/// The kind's shape ([`GameKind::shape`]) is what its games are: each number of seats in its
/// range makes a game of that many seats (and one outside is refused), its options' defaults
/// make a game, and its capabilities are the hooks its games answer.
fn says_what_it_is(kind: &dyn GameKind) {
    let shape = kind.shape();
    let r = shape.seats;
    assert!(r.min >= 1 && r.min <= r.default && r.default <= r.max, "{}: {r:?}", kind.id());
    for n in r.min..=r.max {
        let options = shape.options_from(Some(n), &[]).unwrap();
        let (m, _) = kind.create(&options, 7).unwrap_or_else(|e| panic!("{}: {n} seats: {e}", kind.id()));
        assert_eq!(m.seats().len(), usize::from(n), "{}", kind.id());
    }
    assert!(shape.options_from(Some(r.max + 1), &[]).is_err(), "{}: too many seats are refused", kind.id());
    let (m, _) = kind.create(&kind.default_options(), 7).unwrap();
    assert_eq!(m.seats().len(), usize::from(r.default), "{}: the default number of seats", kind.id());
    for o in &shape.options {
        // At its default; an option with none (a preset) at each of its choices.
        let values: Vec<String> = match (o.kind, o.default.is_null()) {
            (arbiter_kernel::kind::OptionType::Choice { choices }, true) => choices.iter().map(|c| c.to_string()).collect(),
            (_, true) => panic!("{}: option {} has no default and no choices", kind.id(), o.key),
            (_, false) => vec![o.default.to_string()],
        };
        for v in values {
            let given = [format!("{}={v}", o.key)];
            let options = kind.complete_options(&shape.options_from(None, &given).unwrap()).unwrap();
            assert!(kind.create(&options, 7).is_ok(), "{}: option {} at {v}", kind.id(), o.key);
            assert_eq!(
                kind.complete_options(&options).unwrap(),
                options,
                "{}: completed options complete to themselves (a saved game's replay)",
                kind.id()
            );
        }
    }
    let c = shape.capabilities;
    let seat = m.decision().expect("a new game has a decision").first().seat;
    assert_eq!(c.encoding, m.learning().encoding().is_some(), "{}: the encoding capability", kind.id());
    assert_eq!(c.computer, m.computer().sample_hidden(seat, 1).is_ok(), "{}: the computer capability", kind.id());
    assert_eq!(c.clock, m.timeout_move(seat).is_some(), "{}: the clock capability", kind.id());
}

#[test]
fn a_clone_is_independent() {
    for kind in kinds() {
        let (m, _) = kind.create(&serde_json::Value::Null, 3).unwrap();
        let mut copy: Box<dyn Match> = m.boxed_clone();
        let turn = copy.decision().unwrap();
        let first = copy.first_moves()[0].clone();
        copy.play(turn.first().seat, &first).unwrap();
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
        let Some(e) = probe.learning().encoding() else { continue };
        assert!(e.actions > 0 && e.observation_len() > 0 && !e.frames.is_empty(), "{}", kind.id());
        let (mut ids, mut obs, mut again) = (Vec::new(), vec![0.0f32; e.observation_len()], vec![0.0f32; e.observation_len()]);
        let mut decisions = 0;
        for seed in 0..4u64 {
            let (mut m, _) = kind.create(&serde_json::Value::Null, seed).unwrap();
            // The same game played by text with its words: stepping by action id (a move played
            // quietly, into a report the game keeps) reaches the same states.
            let mut twin = m.boxed_clone();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(d) = m.decision() {
                let turn = d.first();
                assert_eq!(m.state_hash(), twin.state_hash(), "{}: the quiet and the worded play agree", kind.id());
                decisions += 1;
                let legal = m.first_moves();
                m.learning().legal_actions(&mut ids);
                assert_eq!(ids.len(), legal.len(), "{}: every listed move has an action id", kind.id());
                let mut distinct = ids.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), ids.len(), "{}: two listed moves share an action id", kind.id());
                for (id, text) in ids.iter().zip(&legal) {
                    assert!(*id < e.actions);
                    assert_eq!(&m.learning().action_text(*id).unwrap(), text, "{}", kind.id());
                    assert_eq!(m.learning().action_of(text).unwrap(), *id, "{}", kind.id());
                }
                let frame = m.learning().frame().expect("a frame at a decision");
                assert_eq!(frame.seat, turn.seat, "{}: the frame names the deciding seat", kind.id());
                assert!((frame.kind as usize) < e.frames.len());
                assert_eq!(m.learning().observe_decider(&mut obs).unwrap(), Some(frame));
                // Every value is written (`Encodable::observe`): none is left from before.
                again.fill(f32::NAN);
                m.learning().observe(turn.seat, &mut again).unwrap();
                assert_eq!(obs, again, "{}: the decider's observation is the seat's", kind.id());
                assert!(obs.iter().all(|v| (-1.0..=1.0).contains(v)), "{}: observations lie in [-1, 1]", kind.id());
                if let Ok(sample) = m.computer().sample_hidden(turn.seat, rng.random()) {
                    sample.learning().observe(turn.seat, &mut again).unwrap();
                    assert_eq!(obs, again, "{}: a sample of hidden information changed the observation", kind.id());
                }
                let k = rng.random_range(0..ids.len());
                m.learning_mut()
                    .step_action(turn.seat, ids[k])
                    .unwrap_or_else(|r| panic!("{}: listed {:?} refused: {r}", kind.id(), legal[k]));
                twin.play(turn.seat, &legal[k]).unwrap_or_else(|r| panic!("{}: listed {:?} refused by text: {r}", kind.id(), legal[k]));
            }
            assert_eq!(m.state_hash(), twin.state_hash(), "{}", kind.id());
            assert_eq!(m.learning().frame(), None);
            assert!(
                m.learning().observe(Seat(0), &mut vec![0.0; 1]).is_err(),
                "{}: an observation of the wrong length is refused",
                kind.id()
            );
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

/// A game whose choices are final (the default, `Game::choices_revocable`): the store refuses
/// to take a seat's choice back at a simultaneous step, and changes nothing.
#[test]
fn a_final_choice_is_not_taken_back() {
    static ODD: odd_one_out::Kind = odd_one_out::Kind;
    let dir = tempfile::tempdir().unwrap();
    let mut s = arbiter_store::Session::create(&dir.path().join("o.arbiter"), &ODD, &serde_json::json!({ "seats": 3 }), 1).unwrap();
    assert!(!s.game().choices_revocable());
    for seat in [Seat(0), Seat(1)] {
        let m = s.game().legal_moves(seat)[0].clone();
        s.play(&m, Some(seat)).unwrap();
    }
    assert_eq!(s.own_choice_check(Seat(0)).unwrap_err(), "in this game a choice is final");
    let e = s.undo_own_choice(Seat(0)).unwrap_err().to_string();
    assert!(e.contains("cannot undo: in this game a choice is final"), "{e}");
    assert_eq!(s.rows().len(), 2);
}
