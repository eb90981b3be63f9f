//! What a player should hear before a move: warnings that ask for confirmation, and the odds
//! of a coup or a realignment. One place for every host: the hot-seat table, the line mode and
//! the browser (through the kernel's `Game::advice`) all ask this module.
//!
//! Warnings: a coup that sets DEFCON to 1 for the phasing side (§8.1.3); any other move that
//! ends the game against the player (an event that sets DEFCON to 1, say), found by playing it
//! on copies of the game with made-up randomness; in the last action round a card play that
//! leaves the player's military ops short (§8.2); conceding.
//!
//! Odds: from the engine's own die pipelines ([`crate::odds`]).

use crate::flow::Task;
use crate::map::{CountryId, Map};
use crate::pipeline::Spend;
use crate::rng::Randomness;
use crate::state::Outcome;
use crate::{Game, Move, PlayMode, Side};

/// Copies played to judge whether a move ends the game: with several made-up seeds, a loss
/// that depends on a die or a draw shows as "can". Each copy is a sample of what `side` may
/// know (`computer::determinize`: the other hand's unshown cards, a secret headline and the
/// draw pile dealt again, fresh dice), so neither the game's randomness nor anything hidden
/// from `side` can show in the answer (the browser asks this of a seat whose opponent's hand
/// is secret).
const TRIALS: [u64; 4] = [0x5eed_0001, 0x5eed_0002, 0x5eed_0003, 0x5eed_0004];

/// How many of the trials `m` loses the game for `side` in, and how.
fn losses(g: &Game, side: Side, m: &Move) -> (usize, Option<Outcome>) {
    let mut lost = (0, None);
    for seed in TRIALS {
        let mut copy = crate::computer::determinize(g, side, &mut Randomness::seeded(seed));
        // The move as `side` makes it: its decision's move, or an interjection.
        let played = if g.to_move() == Some(side) { copy.play_quiet(m).is_ok() } else { copy.play_as(side, m).is_ok() };
        if played {
            if let Some(o) = copy.outcome().filter(|o| o.winner == Some(side.opponent())) {
                lost = (lost.0 + 1, Some(o));
            }
        }
    }
    lost
}

/// What a player should hear before `m` is played by `side`, if anything.
pub fn warnings(g: &Game, side: Side, m: &Move) -> Vec<String> {
    let st = g.state();
    let mut out = Vec::new();
    if let Move::Concede(_) = m {
        out.push(format!("{}: the game ends and the {} wins", g.move_text(m), side.opponent()));
    }
    if let (Move::Coup(c), Some(Task::Ops(o))) = (m, st.stack.last()) {
        // Nuclear Subs (§8.1.3 does not apply to the US's coups from its own Operations).
        let subs = side == Side::Us && !o.free && g.pos().cards().by_name("Nuclear Subs").is_some_and(|id| st.has_effect(id));
        if Map::standard().country(*c).battleground && st.defcon == 2 && !subs {
            let who = if st.phasing == side { "you lose".to_string() } else { format!("the {} loses", st.phasing) };
            out.push(format!(
                "a coup in {} (a battleground) drops DEFCON to 1: the game ends and {who} (§6.3.4, §8.1.3)",
                Map::standard().name(*c)
            ));
        }
    }
    if out.is_empty() {
        match losses(g, side, m) {
            (0, _) | (_, None) => {}
            (n, Some(o)) if n == TRIALS.len() => out.push(format!("this ends the game: {o}")),
            (_, Some(o)) => out.push(format!("this can end the game, depending on a die roll or a draw: {o}")),
        }
    }
    if let (Move::Play { mode: PlayMode::Event | PlayMode::Space, .. }, Some(Task::PlayCard(pt))) = (m, st.stack.last()) {
        let last = st.round >= crate::turn::action_rounds(g.pos(), side);
        let (have, need) = (st.mil_ops[side.idx()], st.defcon);
        // Only where there is a choice: a play for Operations would earn none either way if
        // none is offered (a scoring card that must be played).
        let ops_offered =
            g.legal().iter().any(|x| matches!(x, Move::Play { mode: PlayMode::Ops | PlayMode::OpsThenEvent | PlayMode::EventThenOps, .. }));
        if pt.is_round() && last && have < need && ops_offered {
            out.push(format!(
                "this is your last action round and you have {have} of the {need} military ops required: unless this card's event gives you more, the {} gains {} VP at the end of the turn (§8.2)",
                side.opponent(),
                need - have
            ));
        }
    }
    out
}

/// The odds of `m` for `side` if it is a coup or a realignment (what the table shows when its
/// target is chosen); `None` for any other move.
pub fn move_odds(g: &Game, side: Side, m: &Move) -> Option<String> {
    match m {
        Move::Coup(c) => Some(coup_odds(g, side, *c)),
        Move::Realign(c) => Some(realign_odds(g, side, *c)),
        _ => None,
    }
}

/// `odds coup NAME` / `odds realign NAME` (the line mode's command), from the engine's own
/// pipelines. During an Ops decision the card being spent is used; otherwise each playable
/// card's value is shown.
pub fn odds(game: &Game, side: Side, what: &str) -> String {
    let (kind, name) = what.split_once(' ').unwrap_or((what, ""));
    let c = match crate::moves::find_country(name) {
        Ok(c) => c,
        Err(e) => return format!("{e}; use: odds coup NAME | odds realign NAME"),
    };
    match kind {
        "coup" => coup_odds(game, side, c),
        "realign" => realign_odds(game, side, c),
        _ => "use: odds coup NAME | odds realign NAME".into(),
    }
}

/// Why no coup or realignment (`kind`) is possible in `c`, if none is.
fn closed(game: &Game, side: Side, c: CountryId, kind: &str) -> Option<String> {
    let p = game.pos();
    let k = Map::standard().country(c);
    if p.st.inf(side.opponent(), c) == 0 {
        let rule = if kind == "coup" { "§6.3.1" } else { "§6.2" };
        return Some(format!("the {} has no Influence in {}: no {kind} is possible there ({rule})", side.opponent(), k.name));
    }
    if crate::defcon::closes(p.st.defcon, k.region) {
        return Some(format!(
            "DEFCON {} closes {} to coups and realignments (§8.1.5), except free coups from events",
            p.st.defcon, k.region
        ));
    }
    None
}

fn realign_odds(game: &Game, side: Side, c: CountryId) -> String {
    if let Some(why) = closed(game, side, c, "realign") {
        return why;
    }
    crate::odds::realign(game.pos(), side, c).to_string()
}

fn coup_odds(game: &Game, side: Side, c: CountryId) -> String {
    if let Some(why) = closed(game, side, c, "coup") {
        return why;
    }
    let p = game.pos();
    if let Some(Task::Ops(o)) = p.st.stack.last() {
        let ops = crate::ops::value_if_spent_in(p, o, c).value.max(0) as u8;
        return crate::odds::coup(p, side, c, ops).to_string();
    }
    let k = Map::standard().country(c);
    let spend = Spend { all_in_asia: k.in_asia(), all_in_southeast_asia: k.in_southeast_asia() };
    let mut cards: Vec<_> = p.st.hand(side).iter().filter(|x| !p.cards().info(*x).scoring).collect();
    if p.st.holds_playable_china(side) {
        cards.push(crate::CardId::CHINA);
    }
    let mut values: Vec<u8> = cards.iter().map(|x| crate::ctx::ops_value(p, *x, side, spend).value.max(0) as u8).collect();
    values.sort_unstable();
    values.dedup();
    if values.is_empty() {
        return "no card to coup with".into();
    }
    values.iter().map(|v| crate::odds::coup(p, side, c, *v).to_string()).collect::<Vec<_>>().join("\n")
}
