//! The computer opponent on Twilight Struggle: it does not peek (the same view and seed give
//! the same thought, whatever the hidden cards are), it is deterministic by seed on any thread
//! count, its samples agree with what the seat sees, and a game against it replays.

use arbiter_games::{catalogue, ts_options, TwilightSession, TWILIGHT_STRUGGLE};
use arbiter_kernel::search::{think, Agent, Budget, Level, Plan, Seen};
use arbiter_kernel::{Game as _, Randomness, Seat};
use arbiter_store::Session;
use arbiter_twilight::contract::seat;
use arbiter_twilight::playout::random_until;
use arbiter_twilight::{Game, Options, Side};
use pretty_assertions::assert_eq;

fn rules() -> std::sync::Arc<arbiter_twilight::Ruleset> {
    arbiter_twilight_cards::ruleset()
}

/// The same game with `side`'s unseen cards dealt otherwise: one unshown card of the other
/// hand swapped with a card of the draw pile (and the secret headline, if any, with another).
fn reshuffled(g: &Game, side: Side) -> Game {
    let o = side.opponent();
    let mut st = g.state().clone();
    let unshown: Vec<_> = st.hand(o).iter().filter(|c| !st.known[o.idx()].contains(*c)).collect();
    let (Some(&from_hand), Some(from_deck)) = (unshown.first(), st.deck.first().copied()) else {
        panic!("the position has no unseen card to move")
    };
    st.hands[o.idx()].remove(from_hand);
    st.hands[o.idx()].insert(from_deck);
    st.deck[0] = from_hand;
    Game::from_state(rules(), st).0
}

/// Positions after `after` decisions of random play where `side` decides and the other hand
/// holds unseen cards, from a few seeds.
fn positions(side: Side, phase: impl Fn(&Game) -> bool + Copy) -> Vec<Game> {
    (0..6u64)
        .filter_map(|k| {
            random_until(&rules(), Options::default(), k * 1000..k * 1000 + 40, |g| {
                let st = g.state();
                g.to_move() == Some(side)
                    && st.turn >= 1 + k as u8 % 3
                    && !st.deck.is_empty()
                    && {
                        let o = side.opponent();
                        st.hand(o).iter().any(|c| !st.known[o.idx()].contains(c))
                    }
                    && phase(g)
            })
            .map(|r| r.game)
        })
        .collect()
}

#[test]
fn the_same_view_and_seed_give_the_same_thought_whatever_the_hidden_cards() {
    let mut checked = 0;
    for side in Side::BOTH {
        for (k, g) in positions(side, |g| g.state().round >= 1).into_iter().enumerate() {
            let other = reshuffled(&g, side);
            assert_ne!(other.hash64(), g.hash64(), "the hidden cards differ");
            assert_eq!(other.view(Some(side)), g.view(Some(side)), "the side sees the two alike");
            let budget = Budget::level(Level::new(1).unwrap(), k as u64);
            let mine = think(&Seen::new(&g, seat(side)).unwrap(), &budget, &|_| {}).unwrap();
            let theirs = think(&Seen::new(&other, seat(side)).unwrap(), &budget, &|_| {}).unwrap();
            assert_eq!(mine.weighed, theirs.weighed, "{side} at turn {} round {}", g.state().turn, g.state().round);
            // The samples themselves are the same states.
            let (mut a, mut b) = (Randomness::seeded(9), Randomness::seeded(9));
            let (sa, sb) = (
                Seen::new(&g, seat(side)).unwrap().sample(&mut a).unwrap(),
                Seen::new(&other, seat(side)).unwrap().sample(&mut b).unwrap(),
            );
            assert_eq!(sa.state(), sb.state());
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} positions checked");
}

#[test]
fn a_secret_headline_is_sampled_not_read() {
    // The second side to choose a headline may not see the first side's choice.
    let gs = positions(Side::Us, |g| g.state().round == 0 && g.state().headline[Side::Ussr.idx()].is_some());
    assert!(!gs.is_empty(), "no position with a secret headline");
    for g in gs {
        let mut st = g.state().clone();
        let real = st.headline[1].unwrap();
        let swap = st.deck[0];
        st.headline[1] = Some(swap);
        st.deck[0] = real;
        let other = Game::from_state(rules(), st).0;
        assert_eq!(other.view(Some(Side::Us)), g.view(Some(Side::Us)));
        let plan = Plan::new(Agent::Computer(Level::new(1).unwrap()), 5);
        assert_eq!(
            arbiter_kernel::search::decide(&g, seat(Side::Us), &plan, &|_| {}),
            arbiter_kernel::search::decide(&other, seat(Side::Us), &plan, &|_| {})
        );
    }
}

#[test]
fn samples_keep_what_the_side_sees_and_deal_the_rest() {
    for side in Side::BOTH {
        for g in positions(side, |_| true) {
            let seen = Seen::new(&g, seat(side)).unwrap();
            let mut rng = Randomness::seeded(3);
            let mut differs = false;
            for _ in 0..20 {
                let s = seen.sample(&mut rng).unwrap();
                assert_eq!(s.view(Some(side)), g.view(Some(side)));
                s.state().card_census(&rules()).unwrap();
                assert_eq!(s.legal_moves(), g.legal_moves());
                differs |= s.state().hands != g.state().hands || s.state().deck != g.state().deck;
            }
            assert!(differs, "twenty samples all dealt the cards as they are");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_move_on_one_thread_or_two() {
    let g = &positions(Side::Ussr, |g| g.state().round >= 1 && g.legal().len() > 1)[0];
    let budget = Budget::level(Level::new(1).unwrap(), 77);
    let one = think(&Seen::new(g, seat(Side::Ussr)).unwrap(), &budget, &|_| {}).unwrap();
    let two = think(&Seen::new(g, seat(Side::Ussr)).unwrap(), &budget.clone().with_threads(2), &|_| {}).unwrap();
    assert_eq!(one.weighed, two.weighed);
    assert_eq!(one.iterations, u64::from(Level::new(1).unwrap().iterations()));
}

#[test]
fn a_game_against_the_computer_replays() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vs.arbiter");
    let mut s = Session::create(&path, &TWILIGHT_STRUGGLE, &ts_options(Options::default()), 11).unwrap();
    let mut computer_moves = 0;
    for k in 0..120u64 {
        let Some(turn) = s.game().decision() else { break };
        let agent = if turn.first().seat == seat(Side::Ussr) { Agent::Computer(Level::new(1).unwrap()) } else { Agent::Random };
        let m = s.game().computer().agent_move(turn.first().seat, &Plan::new(agent, k), &|_| {}).unwrap();
        computer_moves += usize::from(turn.first().seat == seat(Side::Ussr));
        s.play(&m, Some(turn.first().seat)).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    assert!(computer_moves > 20);
    let loaded = Session::open(&path, &catalogue()).unwrap();
    assert_eq!(loaded.ts().state(), s.ts().state());
    assert_eq!(loaded.rows(), s.rows());
}

#[test]
fn the_computer_moves_only_at_its_own_decision() {
    let (g, _) = Game::new(rules(), Options::default(), Randomness::seeded(1));
    let waiting = Seat(1 - g.deciding().unwrap().0);
    let r = arbiter_kernel::Computer::agent_move(&g, waiting, &Plan::new(Agent::Greedy, 1), &|_| {}).unwrap_err();
    assert!(r.reason.contains("its own decision"), "{r}");
}
