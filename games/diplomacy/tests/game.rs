//! Diplomacy through the host contract (`arbiter_kernel::Match`): random games played to
//! their end (every listed move accepted in its canonical text, a refused move changing
//! nothing, the same moves giving the same game), a scripted opening adjudicated as the rules
//! say, and orders kept secret from the other powers until their phase resolves.

use arbiter_kernel::{GameKind, Match, Seat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

fn new(last_year: u16) -> Box<dyn Match> {
    arbiter_diplomacy::Kind.create(&json!({ "last_year": last_year }), 1).unwrap().0
}

#[test]
fn random_games_keep_the_contract_and_replay() {
    for seed in 0..3u64 {
        let mut m = new(1904);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut moves = Vec::new();
        let mut hashes = Vec::new();
        while let Some(d) = m.decision() {
            let acting: Vec<Seat> = d.seats().collect();
            let seat = acting[rng.random_range(0..acting.len())];
            let legal = m.legal_moves(seat);
            assert!(legal.last().is_some_and(|l| l == "done"), "done is always open: {legal:?}");
            let before = m.state_hash();
            assert!(m.play(seat, "frobnicate the board").is_err());
            assert_eq!(m.state_hash(), before);
            // Mostly orders, now and then done early (the rest hold).
            let text = if rng.random_range(0..10) == 0 { "done".to_string() } else { legal[rng.random_range(0..legal.len())].clone() };
            let played = m.play(seat, &text).unwrap_or_else(|e| panic!("listed {text:?} refused: {e}"));
            assert_eq!(played.text, text, "a listed move is in canonical text");
            moves.push((seat, text));
            hashes.push(m.state_hash());
        }
        let o = m.outcome().expect("an outcome");
        assert_eq!(o.results.len(), 7);
        let mut again = new(1904);
        for ((seat, text), h) in moves.iter().zip(&hashes) {
            again.play(*seat, text).unwrap();
            assert_eq!(again.state_hash(), *h, "replay diverged at {text}");
        }
    }
}

/// Spring 1901: Germany and France both order an army to Burgundy (a standoff), Russia and
/// Austria to Galicia (another); England's fleets take the North Sea and the Norwegian Sea.
#[test]
fn an_opening_is_adjudicated_and_its_orders_are_secret_until_then() {
    let mut m = new(1930);
    let seat = |id: &str| Seat(m.seats().iter().position(|s| s == id).unwrap() as u8);
    let (england, france, germany, russia, austria) = (seat("england"), seat("france"), seat("germany"), seat("russia"), seat("austria"));
    for (s, o) in [
        (england, "F Lon - Nth"),
        (england, "F Edinburgh - Norwegian Sea"),
        (france, "A Par - Bur"),
        (germany, "A Mun - Bur"),
        (russia, "A War - Gal"),
        (austria, "A Vie - Gal"),
    ] {
        let played = m.play(s, o).unwrap_or_else(|e| panic!("{o}: {e}"));
        assert!(m.hidden_move(&played.text, s, 0, Some(france)).is_some() || s == france, "{o} is secret from France");
        assert!(m.hidden_move(&played.text, s, 0, Some(s)).is_none(), "{o} is its power's own");
    }
    let e = m.play(germany, "A Par - Pic").unwrap_err();
    assert!(e.to_string().contains("not Germany's"), "{e}");
    let e = m.play(england, "F Lon - Yor").unwrap_err();
    assert!(e.to_string().contains("has its order"), "{e}");
    for s in 0..7 {
        m.play(Seat(s), "done").unwrap();
    }
    let v = m.view(None);
    assert_eq!(v["season"], "Fall");
    let units: Vec<String> = v["units"].as_array().unwrap().iter().map(|u| u["unit"].as_str().unwrap().to_string()).collect();
    for u in ["F Nth", "F Nwg", "A Par", "A Mun", "A War", "A Vie"] {
        assert!(units.contains(&u.to_string()), "{u} in {units:?}");
    }
    assert!(!units.iter().any(|u| u == "A Bur" || u == "A Gal"), "standoffs: {units:?}");
    // Resolved: the orders are public now.
    assert!(m.hidden_move("A Par - Bur", france, 3, Some(germany)).is_none());
}

/// A power's time running out: it is done, its units hold.
#[test]
fn a_clock_s_move_is_done() {
    let m = new(1930);
    assert_eq!(m.timeout_move(Seat(0)).as_deref(), Some("done"));
}

/// The vocabulary of orders is fixed: every move of a random game has its id, read back to the
/// move; the ids of one power's moves now are distinct.
#[test]
fn every_move_has_its_place_in_the_fixed_vocabulary() {
    use arbiter_diplomacy::game::encode::vocabulary;
    use arbiter_kernel::{Encodable, Game};
    let v = vocabulary();
    // The size python/README.md documents: a learning program's output layer.
    assert_eq!(v.moves.len(), 46_806);
    eprintln!("the vocabulary: {} moves", v.moves.len());
    for seed in 0..3u64 {
        let mut g = arbiter_diplomacy::Diplomacy::new(1904);
        let mut rng = arbiter_kernel::Randomness::seeded(seed);
        while let Some(seat) = g.deciding() {
            let moves = g.moves_for(seat);
            let mut ids: Vec<u32> = moves.iter().map(|m| g.action_id(m).unwrap_or_else(|| panic!("{m:?} has no id"))).collect();
            for (id, m) in ids.iter().zip(&moves) {
                assert_eq!(g.move_of(*id).as_ref(), Some(m));
            }
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), moves.len());
            // Mostly orders, done now and then.
            let k = rng.pick(moves.len()).unwrap();
            let m = if rng.pick(8).unwrap() == 0 { arbiter_diplomacy::game::Move::Done } else { moves[k] };
            g.play_as(seat, &m).unwrap();
        }
    }
}

/// The vocabulary's groups split a power's moves by unit: each move but `waive` and `done` is
/// of the province its unit stands in (or its build is made in), and a power gives at most one
/// move of each group in a phase, so that a mask per unit holds that unit's orders only.
#[test]
fn a_power_s_moves_split_into_a_group_per_unit() {
    use arbiter_diplomacy::game::{encode::vocabulary, Move};
    use arbiter_diplomacy::map::standard;
    use arbiter_kernel::{Encodable, Game};
    use std::collections::HashSet;
    let v = vocabulary();
    let g = arbiter_diplomacy::Diplomacy::new(1904);
    let groups = Encodable::encoding(&g).unwrap().groups;
    assert_eq!(groups.len(), 75);
    assert_eq!(groups.iter().collect::<HashSet<_>>().len(), 75, "one name each");
    for (id, m) in v.moves.iter().enumerate() {
        let at = match m {
            Move::Order { at, .. } | Move::Retreat { at, .. } | Move::Build { at, .. } | Move::Remove { at } => Some(*at),
            Move::Waive | Move::Done => None,
        };
        let group = g.action_group(id as u32);
        assert_eq!(group, at.map(|l| u16::from(standard().province(l).0)), "{m:?}");
        if let (Some(q), Some(l)) = (group, at) {
            assert_eq!(groups[usize::from(q)], standard().short(arbiter_diplomacy::Loc(standard().province(l).0)));
        }
    }
    assert_eq!(g.action_group(v.moves.len() as u32), None, "no such action");
    for seed in 0..3u64 {
        let mut g = arbiter_diplomacy::Diplomacy::new(1904);
        let mut rng = arbiter_kernel::Randomness::seeded(seed);
        let mut given = HashSet::new();
        let mut phase = None;
        while let Some(seat) = g.deciding() {
            let view = Game::view(&g, None);
            if phase != Some((view.year, view.season, view.phase)) {
                phase = Some((view.year, view.season, view.phase));
                given.clear();
            }
            let moves = g.moves_for(seat);
            let k = rng.pick(moves.len()).unwrap();
            let m = if rng.pick(8).unwrap() == 0 { Move::Done } else { moves[k] };
            if let Some(q) = g.action_group(g.action_id(&m).unwrap()) {
                assert!(given.insert((seat, q)), "{m:?}: a second move of group {} in one phase", groups[usize::from(q)]);
            }
            g.play_as(seat, &m).unwrap();
        }
    }
}

/// The computer's sample of what a power cannot see (D11) does not depend on the orders the
/// others have given in secret: two positions alike but for another power's orders give the
/// same sample; the power's own orders stay in it, and it decides first there.
#[test]
fn the_computer_s_sample_forgets_the_others_secret_orders() {
    use arbiter_diplomacy::game::Move;
    use arbiter_kernel::{Game, Randomness, Searchable};
    let play = |g: &mut arbiter_diplomacy::Diplomacy, seat: u8, text: &str| {
        let m = Game::parse_move(g, text).unwrap();
        g.play_as(Seat(seat), &m).unwrap();
    };
    let mut a = arbiter_diplomacy::Diplomacy::new(1910);
    let mut b = a.clone();
    // As many orders each (how many a power has given is public: the log tells each).
    play(&mut a, 0, "A Vie - Gal");
    play(&mut a, 0, "F Tri - Alb");
    play(&mut b, 0, "A Vie - Tyr");
    play(&mut b, 0, "F Tri - Adr");
    for g in [&mut a, &mut b] {
        play(g, 1, "F Lon - Nth");
        play(g, 5, "A War - Gal");
        play(g, 5, "done");
    }
    let sa = a.determinize(Seat(1), &mut Randomness::seeded(7)).unwrap();
    let sb = b.determinize(Seat(1), &mut Randomness::seeded(7)).unwrap();
    assert_eq!(sa, sb, "the samples differ only by what England cannot see");
    assert_eq!(sa.deciding(), Some(Seat(1)), "England decides first in its sample");
    assert!(sa.view(Some(Seat(1))).your_orders.contains(&"F Lon - Nth".to_string()), "its own order stays");
    assert!(sa.view(None).done.contains(&"russia".to_string()), "a power done is done in the sample (public)");
    // The moves the computer considers are legal, in the sample and in games it plays out.
    let mut g = arbiter_diplomacy::Diplomacy::new(1903);
    let mut rng = Randomness::seeded(3);
    while let Some(seat) = g.deciding() {
        let considered = g.search_moves();
        let legal = g.moves_for(seat);
        assert!(considered.iter().all(|m| legal.contains(m)), "{considered:?} within {legal:?}");
        let m = considered[g.playout_move(&considered, &mut rng)];
        g.play_as(seat, &m).unwrap();
        let _: Move = m;
    }
    assert!(Game::outcome(&g).is_some());
}
