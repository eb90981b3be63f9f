//! A fixture's position is one the game can reach: each check below refuses a setup that no
//! game reaches, naming the field and what is allowed, so that a case never tests a state
//! the rules exclude (and passes or fails for the wrong reason). Field ranges are checked as
//! each field is read ([`build`](crate::build)); the effects as they are built
//! ([`effects`](crate::effects)); what depends on several fields is checked here.

use crate::build::Ctx;
use crate::format::{At, Setup, Start};
use crate::FixtureError;
use arbiter_twilight::card::Era;
use arbiter_twilight::effect::Expiry;
use arbiter_twilight::space_race::ANIMAL_IN_SPACE;
use arbiter_twilight::state::Pile;
use arbiter_twilight::turn::{action_rounds, era_begins};
use arbiter_twilight::{CardId, Position, Side, State};

pub(crate) fn check(cx: &Ctx, s: &Setup, at: At, st: &State) -> Result<(), FixtureError> {
    standard_start(cx, st)?;
    game_start(cx, at, st)?;
    cards(cx, at, st)?;
    effects(cx, st)?;
    action_round(cx, at, st)?;
    space(cx, at, st)?;
    tracks_reset(cx, s, at, st)?;
    if at == At::FinalScoring && st.turn != arbiter_twilight::turn::LAST_TURN {
        return Err(cx.err("setup.turn", "final scoring follows turn 10 (§4.5I): leave \"turn\" out or write 10"));
    }
    Ok(())
}

/// The standard start keeps the Mid and Late War cards in reserve: a position of turns 1-3.
fn standard_start(cx: &Ctx, st: &State) -> Result<(), FixtureError> {
    if cx.start == Start::Standard && st.turn >= era_begins(Era::Mid) {
        return Err(cx.err(
            "setup.turn",
            format!(
                "the standard start keeps the Mid War cards in reserve, which join the deck at turn 4 (§4.4): it sets up turns 1-3, not {}; list the cards of a later turn with the empty start",
                st.turn
            ),
        ));
    }
    Ok(())
}

/// `card`, in `pile` (`Removed` for an effect's card, played), is of an era already in play
/// (§4.4): none before its era's first turn, and in that turn, before the action rounds, only
/// in the deck it was just shuffled into, or a hand it was dealt to at the headline.
pub(crate) fn era(cx: &Ctx, field: &str, card: CardId, at: At, turn: u8, pile: Pile) -> Result<(), FixtureError> {
    let info = cx.rules.cards.info(card);
    let first = era_begins(info.era);
    if turn < first {
        return Err(cx.err(
            field,
            format!("{} is a {:?} War card: it joins the deck at turn {first} (§4.4), and this is turn {turn}", info.name, info.era),
        ));
    }
    let fresh = match at {
        At::TurnStart => pile != Pile::Deck,
        At::Headline => !matches!(pile, Pile::Deck | Pile::Hand(_)),
        At::Setup | At::ActionRound | At::EndOfTurn | At::FinalScoring => false,
    };
    if turn == first && first > 1 && fresh {
        return Err(cx.err(
            field,
            format!(
                "{} is a {:?} War card, shuffled into the deck at the start of turn {first} (§4.4): {} it is in the deck{}",
                info.name,
                info.era,
                at.words(),
                if at == At::Headline { " or a hand" } else { "" }
            ),
        ));
    }
    Ok(())
}

/// Every card listed is of an era already in play ([`era`]) and removed only if starred, and
/// an optional card, listed or in effect, is only in a game with them.
fn cards(cx: &Ctx, at: At, st: &State) -> Result<(), FixtureError> {
    for (card, field) in &cx.placed {
        let info = cx.rules.cards.info(*card);
        let pile = st.locate(*card);
        era(cx, field, *card, at, st.turn, pile)?;
        if pile == Pile::Removed && !info.starred {
            return Err(cx.err(
                field,
                format!(
                    "{} is not starred: only a starred card's event removes it from the game (§4.3); list it in \"discard\"",
                    info.name
                ),
            ));
        }
    }
    let in_effect = st.effects.iter().enumerate().map(|(i, e)| (e.card, format!("setup.effects[{i}].card")));
    let listed = cx.placed.iter().map(|(c, f)| (*c, f.clone()));
    for (card, field) in listed.chain(in_effect) {
        let info = cx.rules.cards.info(card);
        if info.optional && !st.options.optional_cards {
            return Err(
                cx.err(&field, format!("{} is an optional card, and this game is without them (setup.options.optional_cards)", info.name))
            );
        }
    }
    Ok(())
}

/// Turn 1 before its action rounds is the start of the game (§3): DEFCON 5, no VP, the space
/// race not begun, no card played, The China Card with the USSR face up; the setup is turn
/// 1's; and at a later headline DEFCON has just improved (§4.5A), to 3 at least.
fn game_start(cx: &Ctx, at: At, st: &State) -> Result<(), FixtureError> {
    if at == At::Setup && st.turn != 1 {
        return Err(cx.err("setup.turn", "the setup is turn 1's (§3): leave \"turn\" out or start \"at\" later"));
    }
    if st.turn == 1 && !at.within_turn() && at != At::FinalScoring {
        let when = at.words();
        let played = [("setup.discard", st.discard.len()), ("setup.removed", st.removed.len())];
        if let Some((field, _)) = played.iter().find(|(_, n)| *n > 0) {
            return Err(cx.err(field, format!("no card has been played {when} of turn 1")));
        }
        let checks = [
            ("setup.defcon", st.defcon != 5, "DEFCON is 5"),
            ("setup.vp", st.vp != 0, "no VP have been scored"),
            ("setup.space_race", st.space != [0, 0], "the space race has not begun"),
            ("setup.china_card", st.china.holder != Side::Ussr || !st.china.face_up, "The China Card is the USSR's, face up (§3)"),
        ];
        if let Some((field, _, why)) = checks.iter().find(|(_, wrong, _)| *wrong) {
            return Err(cx.err(field, format!("{when} of turn 1 {why}")));
        }
    }
    if at == At::Headline && st.defcon < 3 {
        return Err(cx.err("setup.defcon", "DEFCON improves by 1 at the start of each turn (§4.5A): it is 3 or more at the headline"));
    }
    Ok(())
}

/// The effects in play together: an event that needs another's effect has it (NATO), and no
/// two effects of which the second could not have entered play.
fn effects(cx: &Ctx, st: &State) -> Result<(), FixtureError> {
    let in_play = |c: CardId| st.effects.iter().any(|e| e.card == c);
    for (i, e) in st.effects.iter().enumerate() {
        let field = format!("setup.effects[{i}].card");
        let info = cx.rules.cards.info(e.card);
        // The event took place only with one of the required effects in play (§5.2); if none
        // of them can end, one is still there.
        let lasting = |r: &CardId| {
            let permanent = cx.rules.shape(*r).is_some_and(|s| s.expiry == Expiry::Permanent);
            permanent && !cx.rules.cards.all().any(|c| c.cancels.contains(r))
        };
        if !info.requires_any.is_empty() && info.requires_any.iter().all(lasting) && !info.requires_any.iter().any(|r| in_play(*r)) {
            let names: Vec<&str> = info.requires_any.iter().map(|r| cx.rules.cards.name(*r)).collect();
            return Err(cx.err(
                &field,
                format!(
                    "{}'s event needs {} in effect (card text), whose effect lasts for the rest of the game: add it to \"effects\"",
                    info.name,
                    names.join(" or ")
                ),
            ));
        }
        // A card whose event ends this effect and then prevents it: the effect ended when that
        // card was played, and cannot have entered play since (Tear Down this Wall and Willy
        // Brandt).
        for other in &st.effects {
            let o = cx.rules.cards.info(other.card);
            if o.cancels.contains(&e.card) && info.prevented_by.contains(&other.card) {
                return Err(cx.err(
                    &field,
                    format!(
                        "{} ends {}'s effect and prevents its event (card text): the two are never in effect together",
                        o.name, info.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The round is one of the phasing side's rounds this turn (§4.5D: 6 or 7, 8 with the Space
/// Station or North Sea Oil).
fn action_round(cx: &Ctx, at: At, st: &State) -> Result<(), FixtureError> {
    let p = Position { rules: cx.rules, st };
    let rounds = action_rounds(p, st.phasing);
    if at == At::ActionRound && st.round > rounds {
        return Err(cx.err(
            "setup.action_round",
            format!(
                "the {} has {rounds} action rounds in turn {} (§4.5D: 6 in turns 1-3, 7 from turn 4, one more with the Space Station or North Sea Oil)",
                st.phasing, st.turn
            ),
        ));
    }
    Ok(())
}

/// The action rounds `side` has finished this turn, where play begins.
fn rounds_done(p: Position, at: At, side: Side) -> u8 {
    let st = p.st;
    match at {
        // The USSR goes first (§4.5D).
        At::ActionRound => {
            let done = if side == Side::Ussr && st.phasing == Side::Us { st.round } else { st.round - 1 };
            done.min(action_rounds(p, side))
        }
        At::EndOfTurn => action_rounds(p, side),
        At::Setup | At::TurnStart | At::Headline | At::FinalScoring => 0,
    }
}

/// The space race: who reached each box first is a side that reached it (§6.4.4), and the
/// attempts this turn were made in the rounds played, at most one a round and two a turn with
/// Animal in Space (§6.4.2), whose first arriver made the second.
fn space(cx: &Ctx, at: At, st: &State) -> Result<(), FixtureError> {
    for (i, first) in st.space_first.iter().enumerate() {
        let b = i as u8 + 1;
        let reached = |side: Side| st.space[side.idx()] >= b;
        let field = format!("setup.space_first[{i}]");
        match (*first, reached(Side::Us), reached(Side::Ussr)) {
            (None, false, false) | (Some(_), true, true) => {}
            (Some(side), _, _) if reached(side) && !reached(side.opponent()) => {}
            (None, _, _) => return Err(cx.err(&field, format!("box {b} was reached: name who reached it first (\"us\" or \"ussr\")"))),
            (Some(side), _, _) => {
                return Err(
                    cx.err(&field, format!("the {side} has not reached box {b} (setup.space_race): it cannot have been first there"))
                );
            }
        }
    }
    let p = Position { rules: cx.rules, st };
    for side in Side::BOTH {
        let field = format!("setup.space_attempts.{}", if side == Side::Us { "us" } else { "ussr" });
        let made = st.space_attempts[side.idx()];
        let done = rounds_done(p, at, side);
        if made > done {
            let when = if done == 0 {
                format!("it has played no action round {}", at.words())
            } else {
                format!("it has played {done} action round{}", if done == 1 { "" } else { "s" })
            };
            return Err(cx.err(
                &field,
                format!(
                    "the {side} has made {made} space race attempt{} this turn, but {when} (a card a round, §4.5D; two attempts a turn at most, §6.4.2)",
                    if made == 1 { "" } else { "s" }
                ),
            ));
        }
        if made == 2 && st.space_first[usize::from(ANIMAL_IN_SPACE - 1)] != Some(side) {
            return Err(
                cx.err(&field, format!("a second attempt in a turn needs Animal in Space, reached first by the {side} (§6.4.2, §6.4.4)"))
            );
        }
    }
    Ok(())
}

/// What the end of a turn resets (§4.5E, §4.5G): no military ops, and The China Card face up,
/// from the start of a turn to its action rounds and at final scoring.
fn tracks_reset(cx: &Ctx, s: &Setup, at: At, st: &State) -> Result<(), FixtureError> {
    if at.within_turn() {
        return Ok(());
    }
    if st.mil_ops != [0, 0] {
        return Err(
            cx.err("setup.military_ops", format!("military ops are reset at the end of each turn (§4.5E, §8.2): none {}", at.words()))
        );
    }
    if s.china_card.as_ref().is_some_and(|c| !c.face_up) {
        return Err(cx.err(
            "setup.china_card.face_up",
            format!("The China Card is turned face up at the end of the turn it was passed in (§4.5G, §9.3): it is face up {}", at.words()),
        ));
    }
    Ok(())
}
