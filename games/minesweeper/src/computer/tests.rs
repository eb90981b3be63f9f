//! The computer's samples (consistent with the view, uniform, blind to the real mines) and its
//! choices (never a certain mine while a certain safe cell waits).

use super::*;
use crate::Options;
use arbiter_kernel::search::{decide, Agent, Level, Plan};
use arbiter_kernel::{Game, Searchable, Seat};
use pretty_assertions::assert_eq;
use rstest::rstest;
use std::collections::{BTreeMap, BTreeSet};

fn cell(name: &str) -> Cell {
    Cell::parse(name).unwrap()
}

fn cells(names: &[&str]) -> Vec<Cell> {
    names.iter().map(|n| cell(n)).collect()
}

/// A game with its mines at `mines`, then `opened` opened.
fn position(width: u8, height: u8, mines: &[&str], opened: &[&str]) -> Minesweeper {
    let mut g = Minesweeper::with_mines(width, height, &cells(mines)).unwrap();
    for c in opened {
        g.play_as(Seat(0), &Move::Open(cell(c))).unwrap();
    }
    assert_eq!(g.end(), None, "the position is still being played");
    g
}

fn board(g: &Minesweeper) -> Vec<String> {
    Game::view(g, Some(Seat(0))).board
}

/// Where a game's mines are (by cell name), if placed.
fn mines(g: &Minesweeper) -> Option<BTreeSet<String>> {
    match &g.mines {
        Minefield::Unplaced => None,
        Minefield::Placed(f) => Some((0..f.len()).filter(|&i| f[i]).map(|i| g.cell(i).name()).collect()),
    }
}

/// `sample` is a state the player of `real` may think it is in: the same squares (flags too),
/// the mine count, no mine on an open cell, every number right, and a random source of its own.
fn assert_consistent(real: &Minesweeper, sample: &Minesweeper) {
    assert_eq!(sample.squares, real.squares);
    assert_eq!((sample.options, sample.end), (real.options, real.end));
    assert_ne!(sample.rng, real.rng, "never the game's own random source");
    let Minefield::Placed(field) = &sample.mines else { panic!("a sample after an open places its mines") };
    assert_eq!(field.iter().filter(|&&m| m).count(), real.options.mines as usize, "the mine count");
    for (i, s) in real.squares.iter().enumerate() {
        if let Square::Open(n) = s {
            assert!(!field[i], "a mine on the open cell {}", real.cell(i));
            assert_eq!(sample.count(real.cell(i)), *n, "the number at {}", real.cell(i));
        }
    }
}

/// Positions of play on `options` from `seed`: each open a random safe cell (peeking, so that
/// play goes on), now and then a flag on a random closed cell (right or wrong).
fn positions(options: Options, seed: u64) -> Vec<Minesweeper> {
    let mut g = Minesweeper::new(options, Randomness::seeded(seed)).unwrap();
    let mut pick = Randomness::seeded(seed ^ 0x5eed);
    let mut out = Vec::new();
    while g.end().is_none() {
        let closed: Vec<usize> = (0..g.squares.len()).filter(|&i| g.squares[i] == Square::Closed).collect();
        let safe: Vec<usize> = closed.iter().copied().filter(|&i| !g.is_mine(i)).collect();
        if safe.is_empty() {
            break;
        }
        let m = if pick.pick(5).unwrap() == 0 {
            Move::Flag(g.cell(closed[pick.pick(closed.len()).unwrap()]))
        } else {
            Move::Open(g.cell(safe[pick.pick(safe.len()).unwrap()]))
        };
        g.play_as(Seat(0), &m).unwrap();
        if g.end().is_none() && g.mines != Minefield::Unplaced {
            out.push(g.clone());
        }
    }
    out
}

#[rstest]
#[case::beginner(Options { width: 9, height: 9, mines: 10 }, 12)]
#[case::crowded(Options { width: 8, height: 8, mines: 20 }, 12)]
#[case::intermediate(Options { width: 16, height: 16, mines: 40 }, 4)]
#[case::expert(Options { width: 16, height: 30, mines: 99 }, 2)]
#[case::narrow(Options { width: 2, height: 9, mines: 5 }, 12)]
fn every_sample_agrees_with_what_the_player_sees(#[case] options: Options, #[case] games: u64) {
    let mut checked = 0;
    for seed in 0..games {
        for (k, g) in positions(options, seed).iter().enumerate() {
            let mut rng = Randomness::seeded(seed * 1000 + k as u64);
            for _ in 0..3 {
                let sample = g.determinize(Seat(0), &mut rng).unwrap();
                assert_consistent(g, &sample);
                checked += 1;
            }
            // What the analysis calls certain is so in the real game.
            let a = analysis(&Sight::of(g));
            assert!(a.exact);
            for (i, f) in a.fate.iter().enumerate() {
                assert!(!(*f == Fate::Safe && g.is_mine(i) || *f == Fate::Mine && !g.is_mine(i)), "{} is called {f:?}", g.cell(i));
                assert!((0.0..=1.0).contains(&a.chance[i]));
            }
        }
    }
    assert!(checked >= 30, "only {checked} samples");
}

#[rstest]
#[case::beginner(Options { width: 9, height: 9, mines: 10 })]
#[case::crowded(Options { width: 8, height: 8, mines: 20 })]
#[case::intermediate(Options { width: 16, height: 16, mines: 40 })]
fn counting_layer_by_layer_agrees_with_listing_every_solution(#[case] options: Options) {
    let listed = Limits { nodes: 20_000_000, solutions: 2_000_000, states: 0 };
    let mut compared = 0;
    for seed in 0..3 {
        for g in positions(options, seed) {
            let s = Sight::of(&g);
            let (counted, all) = (Analysis::within(&s, LIMITS), Analysis::within(&s, listed));
            if !all.exact {
                continue;
            }
            assert!(counted.exact && counted.components.iter().all(|c| matches!(c.solutions, Solved::Counted(_))));
            assert_eq!(counted.fate, all.fate);
            for i in 0..s.cells.len() {
                assert!((counted.chance[i] - all.chance[i]).abs() < 1e-9, "{}: {} and {}", g.cell(i), counted.chance[i], all.chance[i]);
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} positions compared");
}

#[test]
fn a_samples_hint_gives_the_rules_a_sound_head_start_and_is_no_part_of_the_state() {
    let mut checked = 0;
    for seed in 0..4 {
        for (k, g) in positions(Options { width: 9, height: 9, mines: 10 }, seed).iter().enumerate() {
            let mut sample = g.determinize(Seat(0), &mut Randomness::seeded(k as u64)).unwrap();
            assert!(sample.hint.0.is_some());
            let bare = Minesweeper { hint: Hint::default(), ..sample.clone() };
            assert_eq!(Game::state_hash(&sample), Game::state_hash(&bare));
            // The sample plays on (safe opens, by its own mines): the rules from the hint are
            // never wrong, and know all the rules from nothing know.
            let mut pick = Randomness::seeded(seed);
            for _ in 0..3 {
                let safe: Vec<usize> =
                    (0..sample.squares.len()).filter(|&i| sample.squares[i] == Square::Closed && !sample.is_mine(i)).collect();
                if safe.is_empty() || sample.end.is_some() {
                    break;
                }
                sample.play_as(Seat(0), &Move::Open(sample.cell(safe[pick.pick(safe.len()).unwrap()]))).unwrap();
                let s = Sight::of(&sample);
                let mut from_hint = sample.hint.deducer(s.clone());
                from_hint.run(None);
                for (i, (h, f)) in from_hint.fate.iter().zip(deduce(&s)).enumerate() {
                    assert!(!(*h == Fate::Safe && sample.is_mine(i) || *h == Fate::Mine && !sample.is_mine(i)));
                    assert!(f == Fate::Unknown || *h == f, "{}: {f:?} from nothing, {h:?} from the hint", sample.cell(i));
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} positions");
}

#[test]
fn cut_short_the_sampler_still_agrees_with_the_view() {
    // Limits so small that most enumerations give up: the chain's samples must still fit.
    let tiny = Limits { nodes: 40, solutions: 4, states: 0 };
    let (mut inexact, mut started) = (0, 0);
    for seed in 0..3 {
        for (k, g) in positions(Options { width: 16, height: 16, mines: 40 }, seed).iter().enumerate() {
            let s = Sight::of(g);
            let a = Analysis::within(&s, tiny);
            inexact += usize::from(!a.exact);
            started += usize::from(a.start.is_some());
            let mut rng = Randomness::seeded(k as u64);
            let field = a.sample(&s, &mut rng).expect("a sample");
            let sample = Minesweeper { mines: Minefield::Placed(field), rng: Randomness::seeded(u64::MAX), ..g.clone() };
            assert_consistent(g, &sample);
            // What is certain stays sound: the deduction's alone.
            for (i, f) in a.fate.iter().enumerate() {
                match f {
                    Fate::Safe => assert!(!g.is_mine(i), "{} is called safe", g.cell(i)),
                    Fate::Mine => assert!(g.is_mine(i), "{} is called a mine", g.cell(i)),
                    Fate::Open | Fate::Unknown => {}
                }
            }
        }
    }
    assert!(inexact >= 10 && started >= 1, "the limits cut {inexact} enumerations short, {started} started the chain afresh");
}

#[test]
fn before_the_first_open_a_sample_stays_unplaced_with_a_random_source_of_its_own() {
    let o = Options::default();
    let (a, b) = (Minesweeper::new(o, Randomness::seeded(1)).unwrap(), Minesweeper::new(o, Randomness::seeded(2)).unwrap());
    let (sa, sb) =
        (a.determinize(Seat(0), &mut Randomness::seeded(7)).unwrap(), b.determinize(Seat(0), &mut Randomness::seeded(7)).unwrap());
    assert_eq!(sa.mines, Minefield::Unplaced);
    assert_ne!(sa.rng, a.rng, "the game's future randomness is not the sample's");
    assert_eq!(sa, sb, "the seed of the game changes nothing the player sees");
    // The first open is a corner.
    assert_eq!(decide(&a, Seat(0), &Plan::new(Agent::Computer(Level::DEFAULT), 3), &|_| {}).unwrap(), Move::Open(cell("a1")));
}

/// Two layouts the player cannot tell apart: one mine in a1/a2 and one in f1/f2.
/// ```text
///   a b c d e f
/// 1 # 1 0 0 1 #
/// 2 # 1 0 0 1 #
/// ```
#[test]
fn no_peek_two_layouts_seen_alike_give_the_same_samples_and_moves() {
    let one = position(6, 2, &["a1", "f1"], &["c1"]);
    let other = position(6, 2, &["a2", "f2"], &["c1"]);
    assert_eq!(board(&one), ["#1001#", "#1001#"]);
    assert_eq!(Game::view(&one, Some(Seat(0))), Game::view(&other, Some(Seat(0))));
    assert_ne!(mines(&one), mines(&other));
    let mut seen = BTreeSet::new();
    for seed in 0..40 {
        let (a, b) = (
            one.determinize(Seat(0), &mut Randomness::seeded(seed)).unwrap(),
            other.determinize(Seat(0), &mut Randomness::seeded(seed)).unwrap(),
        );
        assert_eq!(a, b, "seed {seed}");
        seen.insert(mines(&a).unwrap());
    }
    assert_eq!(seen.len(), 4, "all four layouts come up: {seen:?}");
    for seed in 0..4 {
        let plan = Plan::new(Agent::Computer(Level::DEFAULT), seed);
        assert_eq!(decide(&one, Seat(0), &plan, &|_| {}).unwrap(), decide(&other, Seat(0), &plan, &|_| {}).unwrap());
    }
}

#[test]
fn no_peek_in_positions_of_play_another_layout_seen_alike_changes_nothing() {
    let mut differ = 0;
    let mut checked = 0;
    for seed in 0..4 {
        for (k, g) in positions(Options { width: 9, height: 9, mines: 10 }, seed).iter().enumerate().step_by(3) {
            // Another real game with the same view: one of the player's own samples.
            let other = g.determinize(Seat(0), &mut Randomness::seeded(99 + k as u64)).unwrap();
            assert_eq!(Game::view(&other, Some(Seat(0))), Game::view(g, Some(Seat(0))));
            differ += usize::from(mines(&other) != mines(g));
            let (mut a, mut b) = (Randomness::seeded(k as u64), Randomness::seeded(k as u64));
            assert_eq!(g.determinize(Seat(0), &mut a), other.determinize(Seat(0), &mut b));
            let plan = Plan::new(Agent::Computer(Level::new(1).unwrap()), seed * 100 + k as u64);
            assert_eq!(decide(g, Seat(0), &plan, &|_| {}).unwrap(), decide(&other, Seat(0), &plan, &|_| {}).unwrap());
            checked += 1;
        }
    }
    assert!(checked >= 10 && differ >= checked / 2, "{differ} of {checked} layouts differ");
}

/// 5×3, three mines (a1, b1, d3), e1 and c3 opened:
/// ```text
///   a b c d e
/// 1 # # 1 0 0
/// 2 # # 2 1 1
/// 3 # # 1 # #
/// ```
/// c1: b1 + b2 = 1; c2: b1 + b2 + b3 + d3 = 2; c3: b2 + b3 + d3 = 1; d2, e2: d3 + e3 = 1. So
/// b2 is safe, b1 a mine, b3 + d3 = 1 and d3 + e3 = 1. Either d3 is a mine and the third mine
/// is one of a1, a2, a3 (3 layouts) or b3 and e3 are (1 layout, none in column a): 4 layouts,
/// each a quarter, so d3 holds a mine 3 times in 4. (Drawing the frontier's two solutions
/// alike, without C(3, 1) = 3 against C(3, 0) = 1, would give d3 a half.)
fn quarters() -> Minesweeper {
    let g = position(5, 3, &["a1", "b1", "d3"], &["e1", "c3"]);
    assert_eq!(board(&g), ["##100", "##211", "##1##"]);
    g
}

/// Every layout of `g`'s mines consistent with its view, by brute force.
fn layouts(g: &Minesweeper) -> BTreeSet<BTreeSet<String>> {
    let closed: Vec<usize> = (0..g.squares.len()).filter(|&i| !matches!(g.squares[i], Square::Open(_))).collect();
    let m = g.options.mines as usize;
    let mut out = BTreeSet::new();
    let mut pick = vec![0usize; m];
    fn go(g: &Minesweeper, closed: &[usize], from: usize, k: usize, pick: &mut Vec<usize>, out: &mut BTreeSet<BTreeSet<String>>) {
        if k == pick.len() {
            let mut field = vec![false; g.squares.len()];
            pick.iter().for_each(|&i| field[i] = true);
            let t = Minesweeper { mines: Minefield::Placed(field), ..g.clone() };
            if (0..g.squares.len()).all(|i| !matches!(g.squares[i], Square::Open(n) if t.count(g.cell(i)) != n)) {
                out.insert(mines(&t).unwrap());
            }
            return;
        }
        for j in from..closed.len() {
            pick[k] = closed[j];
            go(g, closed, j + 1, k + 1, pick, out);
        }
    }
    go(g, &closed, 0, 0, &mut pick, &mut out);
    out
}

/// The solutions listed one by one, all of them (not counted along a chain).
const LISTED: Limits = Limits { nodes: u64::MAX, solutions: usize::MAX, states: 0 };

#[rstest]
// The hand-counted board above, through the game's sampler (counted along a chain)...
#[case::quarters(quarters(), 4, None)]
// ... and with every solution listed.
#[case::quarters_listed(quarters(), 4, Some(LISTED))]
// Two frontier groups and four interior cells: 42 layouts (counted by brute force).
#[case::two_groups(position(6, 4, &["e1", "d2", "a4", "d4", "f4"], &["b2", "f1"]), 42, None)]
#[case::two_groups_listed(position(6, 4, &["e1", "d2", "a4", "d4", "f4"], &["b2", "f1"]), 42, Some(LISTED))]
fn samples_are_uniform_over_the_layouts_the_player_cannot_tell_apart(
    #[case] g: Minesweeper,
    #[case] count: usize,
    #[case] limits: Option<Limits>,
) {
    let all = layouts(&g);
    assert_eq!(all.len(), count);
    let n = 20_000;
    let mut seen: BTreeMap<BTreeSet<String>, usize> = BTreeMap::new();
    let mut rng = Randomness::seeded(2026);
    let s = Sight::of(&g);
    let listed = limits.map(|l| Analysis::within(&s, l));
    for _ in 0..n {
        let sample = match &listed {
            None => g.determinize(Seat(0), &mut rng).unwrap(),
            Some(a) => {
                assert!(a.exact && a.components.iter().all(|c| matches!(c.solutions, Solved::Listed(_))));
                Minesweeper { mines: Minefield::Placed(a.sample(&s, &mut rng).unwrap()), ..g.clone() }
            }
        };
        *seen.entry(mines(&sample).unwrap()).or_default() += 1;
    }
    assert!(seen.keys().all(|l| all.contains(l)), "every sample is a possible layout");
    // Each layout 1/count of the time: within 5 standard deviations (the seed is fixed).
    let p = 1.0 / count as f64;
    let tolerance = 5.0 * (p * (1.0 - p) / n as f64).sqrt();
    for l in &all {
        let f = seen.get(l).copied().unwrap_or(0) as f64 / n as f64;
        assert!((f - p).abs() < tolerance, "{l:?}: {f} for {p} ± {tolerance}");
    }
}

#[rstest]
#[case::quarters(quarters(), 4)]
#[case::two_groups(position(6, 4, &["e1", "d2", "a4", "d4", "f4"], &["b2", "f1"]), 42)]
fn cut_short_the_chain_still_comes_near_uniform(#[case] g: Minesweeper, #[case] count: usize) {
    let s = Sight::of(&g);
    // One solution kept: the chain does all the work, from one placement.
    let a = Analysis::within(&s, Limits { nodes: 3, solutions: 1, states: 0 });
    assert!(!a.exact);
    let n = 20_000;
    let mut seen: BTreeMap<BTreeSet<String>, usize> = BTreeMap::new();
    let mut rng = Randomness::seeded(2026);
    for _ in 0..n {
        let field = a.sample(&s, &mut rng).unwrap();
        *seen.entry(mines(&Minesweeper { mines: Minefield::Placed(field), ..g.clone() }).unwrap()).or_default() += 1;
    }
    assert_eq!(seen.keys().cloned().collect::<BTreeSet<_>>(), layouts(&g), "every layout comes up, and only those");
    // Near uniform: each within a quarter of its share.
    let share = n as f64 / count as f64;
    assert!(seen.values().all(|&k| (k as f64 - share).abs() < share / 4.0), "{seen:?}");
}

#[test]
fn the_analysis_counts_the_quarters_exactly() {
    let g = quarters();
    let a = analysis(&Sight::of(&g));
    assert!(a.exact);
    let chance = |c: &str| a.chance[g.index(cell(c)).unwrap()];
    let fate = |c: &str| a.fate[g.index(cell(c)).unwrap()];
    for (c, p) in [("a1", 0.25), ("a2", 0.25), ("a3", 0.25), ("b3", 0.25), ("e3", 0.25), ("d3", 0.75), ("b1", 1.0), ("b2", 0.0)] {
        assert!((chance(c) - p).abs() < 1e-12, "{c}: {} for {p}", chance(c));
    }
    assert_eq!((fate("b1"), fate("b2"), fate("d3")), (Fate::Mine, Fate::Safe, Fate::Unknown));
}

#[test]
fn the_computer_opens_the_certainly_safe_cell_not_the_certain_mine() {
    let g = quarters();
    for seed in 0..4 {
        let plan = Plan::new(Agent::Computer(Level::DEFAULT), seed);
        assert_eq!(decide(&g, Seat(0), &plan, &|_| {}).unwrap(), Move::Open(cell("b2")));
    }
    assert_eq!(g.search_moves(), [Move::Open(cell("b2"))], "a safe cell is the only move weighed");
    // A flag on it is the player's note, not knowledge: lifted, to open it next.
    let mut flagged = g.clone();
    flagged.play_as(Seat(0), &Move::Flag(cell("b2"))).unwrap();
    let plan = Plan::new(Agent::Computer(Level::DEFAULT), 0);
    assert_eq!(decide(&flagged, Seat(0), &plan, &|_| {}).unwrap(), Move::Unflag(cell("b2")));
}

/// The board of [`quarters`] with b2 opened (a 2: a1 and b1): nothing is safe now, b1 is
/// certainly a mine, d3 a mine 3 times in 4, and a1, a2, a3, b3 and e3 once in 4.
#[test]
fn forced_to_guess_the_computer_takes_the_safest_cell_never_the_certain_mine() {
    let mut g = quarters();
    g.play_as(Seat(0), &Move::Open(cell("b2"))).unwrap();
    assert_eq!(board(&g), ["##100", "#2211", "##1##"]);
    let safest: Vec<Move> = cells(&["a1", "a2", "a3", "b3", "e3"]).into_iter().map(Move::Open).collect();
    assert!(g.search_moves().iter().all(|m| safest.contains(m)), "{:?}", g.search_moves());
    for seed in 0..6 {
        let plan = Plan::new(Agent::Computer(Level::DEFAULT), seed);
        let m = decide(&g, Seat(0), &plan, &|_| {}).unwrap();
        assert!(safest.contains(&m), "seed {seed}: {m:?}");
    }
}

#[test]
fn the_computer_weighs_only_opens_and_plays_a_board_to_its_end() {
    // 9×9 with 3 mines, from a seed: the computer plays it to the end (level 1, quick).
    let mut g = Minesweeper::new(Options { width: 9, height: 9, mines: 3 }, Randomness::seeded(4)).unwrap();
    let mut n = 0;
    while g.end().is_none() && n < 100 {
        assert!(g.search_moves().iter().all(|m| matches!(m, Move::Open(_))), "{:?}", g.search_moves());
        let m = decide(&g, Seat(0), &Plan::new(Agent::Computer(Level::new(1).unwrap()), n), &|_| {}).unwrap();
        g.play_as(Seat(0), &m).unwrap();
        n += 1;
    }
    assert!(g.end().is_some(), "over in {n} moves");
}
