//! Shared helpers for the workspace tests: random playouts and invariant checks.

use arbiter_engine::map::Map;
use arbiter_engine::{Game, Move, Options, Randomness, Side};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The invariants that must hold after every move (issue #2).
pub fn check_invariants(g: &Game) -> Result<(), String> {
    let st = g.state();
    st.card_census(g.rules())?;
    if !(1..=5).contains(&st.defcon) {
        return Err(format!("DEFCON {} out of 1..=5", st.defcon));
    }
    if st.outcome.is_none() && st.vp.unsigned_abs() >= 20 {
        return Err(format!("VP {} reached 20 without ending the game", st.vp));
    }
    for s in Side::BOTH {
        if st.space[s.idx()] > 8 {
            return Err(format!("{s} space race {} > 8", st.space[s.idx()]));
        }
        if st.mil_ops[s.idx()] > 5 {
            return Err(format!("{s} military ops {} > 5", st.mil_ops[s.idx()]));
        }
    }
    if st.masks() != st.compute_masks() {
        return Err("the presence/control masks disagree with the Influence table".into());
    }
    if st.influence.len() != Map::standard().countries.len() {
        return Err("influence table has the wrong size".into());
    }
    if st.outcome.is_none() && g.decision().is_none() {
        return Err(format!("dead end: no decision and no outcome; stack top {:?}", st.stack.last()));
    }
    Ok(())
}

pub struct Playout {
    pub game: Game,
    pub decisions: usize,
}

/// Play one game with uniformly random legal moves, checking invariants after every move.
/// `check_moves` also checks that every listed move validates and a sample of unlisted moves
/// is rejected.
pub fn random_game(seed: u64, options: Options, check_moves: bool) -> Result<Playout, String> {
    let rules = arbiter_cards::ruleset();
    let (mut g, _) = Game::new(rules, options, Randomness::seeded(seed));
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut decisions = 0;
    check_invariants(&g)?;
    while g.outcome().is_none() {
        let d = g.decision().ok_or("no decision")?;
        if d.moves.is_empty() {
            return Err(format!("decision with no legal move: {}", d.prompt));
        }
        if check_moves {
            check_agreement(&g, &d.moves, &mut rng)?;
        }
        let m = d.moves[rng.random_range(0..d.moves.len())];
        let before = g.hash64();
        g.play(&m).map_err(|e| format!("seed {seed}: listed move {} rejected: {e}", g.move_text(&m)))?;
        if g.hash64() == before && g.outcome().is_none() {
            // Every accepted move changes the state (at least the work stack).
            return Err(format!("seed {seed}: move {:?} changed nothing", m));
        }
        decisions += 1;
        check_invariants(&g).map_err(|e| format!("seed {seed}, after {decisions} decisions: {e}"))?;
        if decisions > 20_000 {
            return Err(format!("seed {seed}: game did not end"));
        }
    }
    Ok(Playout { game: g, decisions })
}

/// Every listed move is accepted by validation; random moves outside the list are rejected
/// and leave the game unchanged.
pub fn check_agreement(g: &Game, moves: &[Move], rng: &mut ChaCha8Rng) -> Result<(), String> {
    for m in moves {
        g.validate(m).map_err(|e| format!("listed move {} fails validation: {e}", g.move_text(m)))?;
    }
    let universe = move_universe(g);
    for _ in 0..40 {
        let m = universe[rng.random_range(0..universe.len())];
        let listed = moves.contains(&m);
        let ok = g.validate(&m).is_ok();
        if listed != ok {
            return Err(format!("move {:?}: listed={listed} but validation ok={ok} at {:?}", m, g.decision().map(|d| d.prompt)));
        }
        if !ok {
            let mut copy = g.clone();
            let h = copy.hash64();
            if copy.play(&m).is_ok() || copy.hash64() != h {
                return Err(format!("illegal move {m:?} changed the game"));
            }
        }
    }
    Ok(())
}

/// Every move of every shape, over all cards and countries.
pub fn move_universe(g: &Game) -> Vec<Move> {
    use arbiter_engine::{CardId, PlayMode};
    let mut v = vec![Move::Pass];
    let modes = [PlayMode::Event, PlayMode::Ops, PlayMode::OpsThenEvent, PlayMode::EventThenOps, PlayMode::Space];
    for c in g.rules().cards.all().map(|c| c.id) {
        v.extend(modes.map(|mode| Move::Play { card: c, mode }));
        v.extend([Move::Headline(c), Move::Discard(c), Move::Take(c)]);
    }
    for c in Map::standard().ids() {
        v.extend([Move::Influence(c), Move::Remove(c), Move::Coup(c), Move::Realign(c), Move::Target(c)]);
        v.push(Move::Cancel { card: CardId(40), country: Some(c) });
    }
    for i in 0..4 {
        v.push(Move::Choose(i));
    }
    v
}

// ------------------------------------------------------------------ position builders

use arbiter_engine::effect::{Effect, Expiry};
use arbiter_engine::flow::Task;
use arbiter_engine::{CardId, CountryId, Report, State};

pub fn country(name: &str) -> CountryId {
    Map::standard().id(name)
}

pub fn card(name: &str) -> CardId {
    arbiter_cards::ruleset().cards.id(name)
}

pub fn set_inf(st: &mut State, name: &str, us: u8, ussr: u8) {
    st.influence[country(name).idx()] = [us, ussr];
}

pub fn give(st: &mut State, side: Side, names: &[&str]) {
    for n in names {
        st.hands[side.idx()].insert(card(n));
    }
}

pub fn effect(st: &mut State, name: &str, owner: Side) {
    st.effects.push(Effect { card: card(name), owner, expiry: Expiry::EndOfTurn, param: 0 });
}

/// An empty board (no Influence, empty hands and deck) with scripted dice, then `f`.
pub fn board(dice: &[u8], f: impl FnOnce(&mut State)) -> State {
    let rules = arbiter_cards::ruleset();
    let mut st = State::initial(&rules, Options { optional_cards: true, us_bonus: 0 }, Randomness::scripted(dice.iter().copied()));
    st.influence.iter_mut().for_each(|i| *i = [0, 0]);
    st.stack.clear();
    st.reserve = Default::default();
    f(&mut st);
    st
}

/// `side` to play a card in action round 1 of turn 1 (unless `f` says otherwise).
pub fn at_round(side: Side, dice: &[u8], f: impl FnOnce(&mut State)) -> Game {
    let mut st = board(dice, |st| {
        st.round = 1;
        st.phasing = side;
        f(st);
    });
    st.round_start_presence = [st.presence(Side::Us), st.presence(Side::Ussr)];
    st.stack = vec![Task::EndRound { side }, Task::ChooseCard { side }];
    Game::from_state(arbiter_cards::ruleset(), st).0
}

/// Play moves in notation; panics with the engine's message on a rejection.
pub fn play(g: &mut Game, moves: &[&str]) -> Vec<String> {
    let mut log = Vec::new();
    for text in moves {
        let m = g.parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let r: Report = g.play(&m).unwrap_or_else(|e| panic!("{text}: {e}"));
        log.extend(r.lines_for(None).map(String::from));
    }
    log
}

/// The rejection message of a move (panics if it is accepted); the game must be unchanged.
pub fn reject(g: &mut Game, text: &str) -> String {
    let before = g.hash64();
    let err = match g.parse(text) {
        Err(e) => e.to_string(),
        Ok(m) => match g.play(&m) {
            Ok(_) => panic!("{text} was accepted"),
            Err(e) => e.to_string(),
        },
    };
    assert_eq!(g.hash64(), before, "a rejected move changed the game");
    err
}

pub fn inf(g: &Game, name: &str) -> [u8; 2] {
    g.state().influence[country(name).idx()]
}
