//! Shared helpers for the workspace tests: random playouts and invariant checks.

use arbiter_twilight::map::Map;
use arbiter_twilight::pipeline::Spend;
use arbiter_twilight::{CardSet, Game, Move, Options, PlayMode, Randomness, Side};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every effect in play has its card's declared shape (`Lasting::shape`), and its card is where
/// the shape says (`CardPlace::allows`).
fn effects_have_their_shape(g: &Game) -> Result<(), String> {
    let st = g.state();
    for e in &st.effects {
        let name = g.rules().cards.name(e.card);
        let shape = g.rules().shape(e.card).ok_or_else(|| format!("{name} is in effect but declares no effect"))?;
        if !shape.fits(e) {
            return Err(format!("{name}'s effect {e:?} does not have its declared shape {shape:?}"));
        }
        let at = st.locate(e.card);
        if !shape.card.allows(at, g.rules().cards.info(e.card).starred, e.owner) {
            return Err(format!("{name}'s effect is in play, its card in {at:?} (its shape: {:?})", shape.card));
        }
    }
    Ok(())
}

/// The invariants that must hold after every move.
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
    effects_have_their_shape(g)?;
    if st.masks() != st.compute_masks() {
        return Err("the presence/control masks disagree with the Influence table".into());
    }
    if !g.kept_access().agrees(g.pos()) {
        return Err(format!(
            "what the Ops listings keep (the access mask, the Ops values of a first Op) disagrees with a fresh computation: {:?}",
            g.kept_access()
        ));
    }
    if !arbiter_twilight::ops::reading_agrees(g.pos()) {
        return Err("the reading of the effects kept (vetoes, Ops modifiers, Ops values) disagrees with a fresh one".into());
    }
    if let Some(arbiter_twilight::Task::Ops(o)) = st.stack.last() {
        if !arbiter_twilight::ops::kept_values_agree(g.pos(), o) {
            return Err(format!("the Ops values kept from the last Op disagree with the effects in play: {o:?}"));
        }
    }
    // The listing kept in its own form (`Game::check` asks it, playouts take moves from it by
    // index) lists what a listing from scratch lists, in the same order; it holds every move it
    // numbers, and no placement, roll, coup or card play outside the list.
    let (listing, legal) = (g.listing(), g.legal());
    if legal != arbiter_twilight::flow::legal_moves(g.pos()) {
        return Err(format!("the kept list {legal:?} is not what a listing from scratch lists"));
    }
    if listing.len() != legal.len() {
        return Err(format!("the listing counts {} moves, its list {}", listing.len(), legal.len()));
    }
    for (i, m) in legal.iter().enumerate() {
        if listing.get(i) != Some(*m) || !listing.contains(m) {
            return Err(format!("move {i} of the list, {m:?}, is not move {i} of {listing:?}: {:?}", listing.get(i)));
        }
    }
    let outside = (0..=u8::MAX)
        .flat_map(|n| {
            let c = arbiter_twilight::CountryId(n);
            let plays = PlayMode::ALL.map(|mode| Move::Play { card: CardId(n), mode });
            [Move::Influence(c), Move::Realign(c), Move::Coup(c)].into_iter().chain(plays)
        })
        .chain([Move::Pass]);
    for m in outside {
        if listing.contains(&m) != legal.contains(&m) {
            return Err(format!("the listing {listing:?} and its list disagree on {m:?}"));
        }
    }
    if st.influence.len() != Map::standard().countries.len() {
        return Err("influence table has the wrong size".into());
    }
    if st.outcome.is_none() && g.decision().is_none() {
        return Err(format!("dead end: no decision and no outcome; stack top {:?}", st.stack.last()));
    }
    // The card play judges which events may take place by asking only the cards that are not
    // `Ruleset::unconditional`: for every card, that is what asking each one answers.
    let p = g.pos();
    let every = CardSet(p.cards().all().fold(0, |m, c| m | 1u128 << c.id.0));
    for s in Side::BOTH {
        let asked: CardSet = every.iter().filter(|c| p.event_possible(*c, p.cards().info(*c).side.side().unwrap_or(s))).collect();
        if p.events_possible(every, s) != asked {
            return Err(format!(
                "the events possible for the {s} ({:?}) are not those each card answers ({asked:?})",
                p.events_possible(every, s)
            ));
        }
        // The card play judges the space race on one card of each group of `ops_groups`: every
        // card of a group has the same Ops value, however it is spent.
        let mods = p.ops_modifiers();
        for g in arbiter_twilight::ctx::ops_groups(p, every) {
            for spend in [Spend::NOWHERE, Spend::OPEN] {
                let values: std::collections::BTreeSet<i32> =
                    g.iter().map(|c| arbiter_twilight::ctx::ops_number_with(p, &mods, c, s, spend)).collect();
                if values.len() != 1 {
                    return Err(format!("the cards {g:?} of one Ops group are worth {values:?} to the {s}"));
                }
            }
        }
        // Only the effects that declared standing moves are asked for them (`Interest::standing`).
        let undeclared = p.undeclared_standing_moves(s);
        if !undeclared.is_empty() {
            return Err(format!("effects that declared no standing moves offer the {s} {undeclared:?}"));
        }
        // Only the effects that declared action rounds are asked for them (`Interest::rounds`).
        let undeclared = p.undeclared_extra_action_rounds(s);
        if undeclared != 0 {
            return Err(format!("effects that declared no action rounds add {undeclared} for the {s}"));
        }
    }
    Ok(())
}

pub struct Playout {
    pub game: Game,
    pub decisions: usize,
    /// Canonical text of every move, in order (to replay through a store).
    pub moves: Vec<String>,
    /// The card events that took place, in order.
    pub events: Vec<arbiter_twilight::CardId>,
}

/// How much of the legal-move agreement to check at each decision.
#[derive(Clone, Copy)]
pub struct Agreement {
    /// Validate every listed move with its arbitrator.
    pub all_listed: bool,
    /// Check that every listed move's canonical text parses back to it.
    pub notation: bool,
    /// Moves outside the list (mutations of listed moves and random moves) that must be
    /// rejected without changing the game.
    pub outside: usize,
}

/// Play one game with uniformly random legal moves (the same choices as `arbiter bench` for
/// this seed), checking the invariants after every move and the agreement of the move list
/// with validation at every decision.
pub fn random_game(seed: u64, options: Options, agreement: Option<Agreement>) -> Result<Playout, String> {
    // Under the interest check: every effect in play is asked about everything, and one that
    // answers outside its declared interest faults the move (the same games otherwise).
    let rules = arbiter_twilight_cards::ruleset_checking_interest();
    let (mut g, _) = Game::new(rules, options, Randomness::seeded(seed));
    let mut rng = ChaCha8Rng::seed_from_u64(arbiter_twilight::playout::chooser_seed(seed));
    let mut check_rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(31) + 7);
    let universe = move_universe(&g);
    let mut decisions = 0;
    let mut moves = Vec::new();
    let mut events = Vec::new();
    check_invariants(&g)?;
    while g.outcome().is_none() {
        let d = g.decision().ok_or("no decision")?;
        if d.moves.is_empty() {
            return Err(format!("decision with no legal move: {}", d.prompt));
        }
        // Whose decision it is was kept from the listing (`Game::to_move`): it must be what
        // the flow answers when asked afresh.
        let fresh = g.state().stack.last().map(|t| arbiter_twilight::flow::decider(g.pos(), t));
        if fresh != Some(d.side) || g.to_move() != Some(d.side) {
            return Err(format!("seed {seed}, decision {decisions}: the kept decider {:?} is not the flow's {fresh:?}", d.side));
        }
        if let Some(a) = agreement {
            check_agreement(&g, &d.moves, &universe, a, &mut check_rng).map_err(|e| format!("seed {seed}, decision {decisions}: {e}"))?;
            check_interjections(&g, d.side, &d.moves).map_err(|e| format!("seed {seed}, decision {decisions}: {e}"))?;
        }
        let m = d.moves[rng.random_range(0..d.moves.len())];
        let before = g.hash64();
        moves.push(g.move_text(&m));
        let report = g.play_quiet(&m).map_err(|e| format!("seed {seed}: listed move {} rejected: {e}", g.move_text(&m)))?;
        events.extend(report.events);
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
    Ok(Playout { game: g, decisions, moves, events })
}

/// The side not deciding: each interjection it is offered is accepted (on a copy), leaves the
/// decision with the deciding side and keeps the invariants; the deciding side's own moves,
/// made out of turn by the other side, are refused and change nothing.
fn check_interjections(g: &Game, decider: arbiter_twilight::Side, listed: &[Move]) -> Result<(), String> {
    let other = decider.opponent();
    if !g.interjections(decider).is_empty() {
        return Err("the deciding side is offered interjections (its standing moves are among its legal moves)".into());
    }
    for m in g.interjections(other) {
        let mut copy = g.clone();
        copy.play_as(other, &m).map_err(|e| format!("interjection {} refused: {e}", g.move_text(&m)))?;
        if copy.outcome().is_none() && copy.to_move() != Some(decider) {
            return Err(format!("interjection {} took the decision from the {decider}", g.move_text(&m)));
        }
        check_invariants(&copy).map_err(|e| format!("after interjection {}: {e}", g.move_text(&m)))?;
    }
    let before = g.hash64();
    for m in listed.iter().take(3) {
        let mut copy = g.clone();
        if copy.play_as(other, m).is_ok() && !g.interjections(other).contains(m) {
            return Err(format!("the {other} made the {decider}'s move {} out of turn", g.move_text(m)));
        }
        if copy.hash64() != before && !g.interjections(other).contains(m) {
            return Err(format!("a refused out-of-turn move {} changed the game", g.move_text(m)));
        }
    }
    Ok(())
}

/// A move like `m` but different: another country, card or way of playing.
fn mutate(m: &Move, rng: &mut ChaCha8Rng, g: &Game) -> Move {
    use arbiter_twilight::CountryId;
    let country = |rng: &mut ChaCha8Rng| CountryId(rng.random_range(0..84));
    let card = |rng: &mut ChaCha8Rng| g.rules().cards.all().nth(rng.random_range(0..110)).map(|c| c.id).unwrap_or(CardId(1));
    const MODES: [PlayMode; 5] = [PlayMode::Event, PlayMode::Ops, PlayMode::OpsThenEvent, PlayMode::EventThenOps, PlayMode::Space];
    match *m {
        Move::Influence(_) => Move::Influence(country(rng)),
        Move::Remove(_) => Move::Remove(country(rng)),
        Move::Coup(_) => Move::Coup(country(rng)),
        Move::Realign(_) => Move::Realign(country(rng)),
        Move::Target(_) => Move::Target(country(rng)),
        Move::Play { card: c, mode } => {
            if rng.random_bool(0.5) {
                Move::Play { card: c, mode: MODES[rng.random_range(0..5)] }
            } else {
                Move::Play { card: card(rng), mode }
            }
        }
        Move::Headline(_) => Move::Headline(card(rng)),
        Move::Discard(_) => Move::Discard(card(rng)),
        Move::Take(_) => Move::Take(card(rng)),
        Move::Choose(i) => Move::Choose(i.wrapping_add(rng.random_range(1..4))),
        Move::Cancel { card: c, .. } => Move::Cancel { card: c, country: Some(country(rng)) },
        // Never listed, so never mutated; a concession is not "outside" the rules.
        Move::Pass | Move::Concede(_) => Move::Influence(country(rng)),
    }
}

/// Listed moves validate (and their notation round-trips); moves outside the list are
/// rejected by validation and change nothing.
pub fn check_agreement(g: &Game, moves: &[Move], universe: &[Move], a: Agreement, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let listed: Vec<&Move> = if a.all_listed { moves.iter().collect() } else { vec![&moves[rng.random_range(0..moves.len())]] };
    for m in listed {
        g.validate(m).map_err(|e| format!("listed move {} fails validation: {e}", g.move_text(m)))?;
        if a.notation {
            let text = g.move_text(m);
            match g.parse(&text) {
                Ok(back) if back == *m => {}
                other => return Err(format!("canonical text {text:?} of {m:?} parses back as {other:?}")),
            }
        }
    }
    for k in 0..a.outside {
        let m = if k % 2 == 0 {
            mutate(&moves[rng.random_range(0..moves.len())], rng, g)
        } else {
            universe[rng.random_range(0..universe.len())]
        };
        if moves.contains(&m) {
            continue;
        }
        if g.validate(&m).is_ok() {
            return Err(format!("move {m:?} is not listed but validates, at {:?}", g.decision().map(|d| d.prompt)));
        }
        let mut copy = g.clone();
        let h = copy.hash64();
        if copy.play(&m).is_ok() || copy.hash64() != h {
            return Err(format!("illegal move {m:?} changed the game"));
        }
    }
    Ok(())
}

/// Every move of every shape, over all cards and countries.
pub fn move_universe(g: &Game) -> Vec<Move> {
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

use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::flow::Task;
use arbiter_twilight::{CardId, CountryId, Report, State};

pub fn country(name: &str) -> CountryId {
    Map::standard().id(name)
}

pub fn card(name: &str) -> CardId {
    arbiter_twilight_cards::ruleset().cards.id(name)
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
    st.effects.push(Effect::new(card(name), owner, Expiry::EndOfTurn));
}

/// An empty board (no Influence, empty hands and deck) with scripted dice, then `f`.
pub fn board(dice: &[u8], f: impl FnOnce(&mut State)) -> State {
    let rules = arbiter_twilight_cards::ruleset();
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
    st.stack = vec![Task::EndRound { side }, Task::PlayCard(arbiter_twilight::PlayTask::round(side))];
    Game::from_state(arbiter_twilight_cards::ruleset(), st).0
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
