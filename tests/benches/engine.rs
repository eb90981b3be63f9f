//! criterion benchmarks: `cargo bench -p arbiter-tests`. Figures go to BENCHMARKS.md.

use arbiter_store::{EventStore, Session, SqliteStore};
use arbiter_twilight::{Game, Move, Options, Randomness};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// A game after `n` random moves (seed 1), and the moves that led there.
fn midgame(n: usize) -> (Game, Vec<String>) {
    let (mut g, _) = Game::new(arbiter_twilight_cards::ruleset(), Options::default(), Randomness::seeded(1));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut texts = Vec::new();
    for _ in 0..n {
        let Some(d) = g.decision() else { break };
        let m = d.moves[rng.random_range(0..d.moves.len())];
        texts.push(g.move_text(&m));
        g.play(&m).unwrap();
    }
    (g, texts)
}

/// A position waiting for an Ops decision (Influence placement) in mid-game.
fn at_ops_decision() -> Game {
    let (mut g, _) = midgame(60);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    while !matches!(g.state().stack.last(), Some(arbiter_twilight::Task::Ops(_))) {
        let moves = g.legal_moves();
        let pick = moves.iter().find(|m| matches!(m, Move::Play { mode: arbiter_twilight::PlayMode::Ops, .. })).copied();
        g.play(&pick.unwrap_or(moves[rng.random_range(0..moves.len())])).unwrap();
    }
    g
}

fn engine(c: &mut Criterion) {
    let ops = at_ops_decision();
    c.bench_function("legal moves: Ops decision (arbitrator listing)", |b| {
        b.iter(|| black_box(arbiter_twilight::flow::legal_moves(ops.pos())))
    });
    let (round, _) = midgame(60);
    let (mut card_play, _) = (round.clone(), ());
    while !matches!(card_play.state().stack.last(), Some(arbiter_twilight::Task::PlayCard(_))) {
        let m = card_play.legal_moves()[0];
        card_play.play(&m).unwrap();
    }
    c.bench_function("legal moves: action round card play", |b| b.iter(|| black_box(arbiter_twilight::flow::legal_moves(card_play.pos()))));
    let m = ops.legal_moves()[0];
    c.bench_function("apply a move (validated, quiet), on a clone", |b| {
        b.iter_batched(|| ops.clone(), |mut g| black_box(g.play_quiet(&m).unwrap()), BatchSize::SmallInput)
    });
    c.bench_function("apply a move (validated, with log text), on a clone", |b| {
        b.iter_batched(|| ops.clone(), |mut g| black_box(g.play(&m).unwrap()), BatchSize::SmallInput)
    });
    c.bench_function("clone the game", |b| b.iter(|| black_box(ops.clone())));
    c.bench_function("hash the state", |b| b.iter(|| black_box(ops.hash64())));
    let rules = arbiter_twilight_cards::ruleset();
    c.bench_function("one complete random game (seed 7)", |b| {
        b.iter(|| black_box(arbiter_twilight::playout::random_game(&rules, Options::default(), 7).unwrap()))
    });
}

fn store(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    // A complete game saved to SQLite.
    let path = dir.path().join("full.arbiter");
    let ts = || arbiter_games::ts_options(Options::default());
    let mut s = Session::create(&path, &arbiter_games::TWILIGHT_STRUGGLE, &ts(), 3).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    while s.game().outcome().is_none() {
        let moves = s.game().first_moves();
        let m = moves[rng.random_range(0..moves.len())].clone();
        s.play(&m, None).unwrap();
    }
    let moves = s.seq();
    drop(s);
    c.bench_function(&format!("replay and verify a complete saved game ({moves} moves) from SQLite"), |b| {
        b.iter(|| black_box(Session::open(&path, &arbiter_games::catalogue()).unwrap().seq()))
    });
    // Appending one move: one durable transaction, as a move makes it (the write lock, the
    // row, the commit; an append outside the lock is refused).
    let row = SqliteStore::open(&path).unwrap().rows().unwrap()[10].clone();
    let append_path = dir.path().join("append.arbiter");
    drop(Session::create(&append_path, &arbiter_games::TWILIGHT_STRUGGLE, &ts(), 3).unwrap());
    let mut store = SqliteStore::open(&append_path).unwrap();
    let mut seq = 0u64;
    c.bench_function("append one move to the SQLite log (durable transaction)", |b| {
        b.iter(|| {
            seq += 1;
            let mut r = row.clone();
            r.seq = seq;
            store.lock().unwrap();
            store.append(&r).unwrap();
            store.commit().unwrap()
        })
    });
}

criterion_group!(benches, engine, store);
criterion_main!(benches);
