//! A fixture's effects in play (`setup.effects`): each as its card makes it (`Lasting::shape`),
//! with what it remembers named in the game's words, its card where that shape puts it, and
//! nothing the game could never reach: a field its card does not remember, a memory left out
//! that the card always has, another side's effect, another duration, a card still to be played.

use crate::build::Ctx;
use crate::format::{At, EffectSpec, Start};
use crate::FixtureError;
use arbiter_twilight::effect::{CardPlace, Effect, Expiry, Memo, Remembers, Shape};
use arbiter_twilight::state::Pile;
use arbiter_twilight::turn::era_begins;
use arbiter_twilight::{CardId, Region, Side, State};

/// The fields of what each kind of memory is written as, for the messages.
const MEMORY_FIELDS: &str = "\"region\" (Chernobyl), \"turn\" (North Sea Oil), \"flag\" (NORAD, \"We Will Bury You\")";

/// Add the effects of `specs` to `st`, in order, each checked against its card's shape.
pub(crate) fn add(cx: &mut Ctx, specs: &[EffectSpec], at: At, st: &mut State) -> Result<(), FixtureError> {
    for (i, e) in specs.iter().enumerate() {
        let field = format!("setup.effects[{i}]");
        let effect = one(cx, &field, e, at, st)?;
        if st.effects.iter().any(|x| x.card == effect.card) {
            return Err(cx.err(&format!("{field}.card"), format!("{} is in effect already: a card is in play once", e.card)));
        }
        place_card(cx, &field, &effect, at, st)?;
        st.effects.push(effect);
    }
    Ok(())
}

fn one(cx: &mut Ctx, field: &str, e: &EffectSpec, at: At, st: &State) -> Result<Effect, FixtureError> {
    let card = cx.card(&format!("{field}.card"), &e.card, false)?;
    let Some(shape) = cx.rules.shape(card) else {
        return Err(cx.err(&format!("{field}.card"), format!("{} leaves no effect in play", e.card)));
    };
    crate::reachable::era(cx, &format!("{field}.card"), card, at, st.turn, Pile::Removed)?;
    let owner = cx.side(&format!("{field}.owner"), &e.owner)?;
    // An effect is its event's: a US or USSR card's event is that side's (§5.2), a neutral
    // card's either side's.
    if let Some(side) = cx.rules.cards.info(card).side.side() {
        if side != owner {
            return Err(cx.err(&format!("{field}.owner"), format!("{} is a {side} event: its effect is the {side}'s", e.card)));
        }
    }
    let expiry = until(cx, field, e, shape)?;
    if expiry == Expiry::EndOfTurn && !at.within_turn() {
        return Err(cx.err(
            &format!("{field}.card"),
            format!("{}'s effect ends with the turn (§4.5H): it cannot be in play {}", e.card, at.words()),
        ));
    }
    let memo = memo(cx, field, e, shape, card, at, st)?;
    Ok(Effect { card, owner, expiry, memo, keeps_card: shape.card == CardPlace::InFront })
}

/// The effect's duration: its card's, which `until` may repeat but not change.
fn until(cx: &Ctx, field: &str, e: &EffectSpec, shape: Shape) -> Result<Expiry, FixtureError> {
    let word = |x: Expiry| match x {
        Expiry::EndOfTurn => "turn",
        Expiry::Permanent => "permanent",
        Expiry::UntilUsed => "used",
        Expiry::UntilRoundOf(Side::Us) => "us round",
        Expiry::UntilRoundOf(Side::Ussr) => "ussr round",
    };
    let Some(given) = e.until.as_deref() else { return Ok(shape.expiry) };
    let all = [Expiry::EndOfTurn, Expiry::Permanent, Expiry::UntilUsed, Expiry::UntilRoundOf(Side::Us), Expiry::UntilRoundOf(Side::Ussr)];
    match all.into_iter().find(|x| word(*x) == given) {
        Some(x) if x == shape.expiry => Ok(x),
        Some(_) | None => Err(cx.err(
            &format!("{field}.until"),
            format!("{} lasts {}: write {:?} or leave \"until\" out", e.card, shape.expiry.text(), word(shape.expiry)),
        )),
    }
}

/// What the effect remembers, from the fields its card takes; every other field is refused.
fn memo(cx: &Ctx, field: &str, e: &EffectSpec, shape: Shape, card: CardId, at: At, st: &State) -> Result<Memo, FixtureError> {
    if e.param.is_some() {
        return Err(
            cx.err(&format!("{field}.param"), format!("\"param\" is not read: name what the effect remembers in words: {MEMORY_FIELDS}"))
        );
    }
    let given = [("region", e.region.is_some()), ("turn", e.turn.is_some()), ("flag", e.flag.is_some()), ("country", e.country.is_some())];
    let takes = match shape.remembers {
        Remembers::Nothing => None,
        Remembers::Flag { .. } => Some("flag"),
        Remembers::Region => Some("region"),
        Remembers::Turn => Some("turn"),
        Remembers::Country => Some("country"),
    };
    if let Some((name, _)) = given.iter().find(|(name, set)| *set && Some(*name) != takes) {
        let what = match takes {
            Some(t) => format!("remembers only its {t}"),
            None => "remembers nothing".into(),
        };
        return Err(cx.err(&format!("{field}.{name}"), format!("{} {what}: leave \"{name}\" out", e.card)));
    }
    match shape.remembers {
        Remembers::Nothing => Ok(Memo::Nothing),
        Remembers::Flag { what, from_headline } => match e.flag {
            None | Some(false) => Ok(Memo::Nothing),
            // DEFCON moved to 2 in the headline: not in turn 1's (from DEFCON 5), and at most
            // 4 since (Nuclear Test Ban).
            Some(true)
                if from_headline
                    && at == At::ActionRound
                    && st.round == 1
                    && st.phasing == Side::Ussr
                    && st.turn >= 2
                    && st.defcon <= 4 =>
            {
                Ok(Memo::Flag)
            }
            Some(true) => {
                let when = if from_headline {
                    "a position that begins with an action round holds it only at the USSR's first of a turn after the first, DEFCON 2-4, after the headline"
                } else {
                    "a position that begins with an action round never holds it"
                };
                Err(cx
                    .err(&format!("{field}.flag"), format!("{}'s flag ({what}) is set and cleared within an action round: {when}", e.card)))
            }
        },
        Remembers::Region => {
            let Some(name) = e.region.as_deref() else {
                return Err(cx.err(&format!("{field}.region"), format!("{} always names a region: give \"region\"", e.card)));
            };
            Region::from_name(name).map(Memo::Region).ok_or_else(|| {
                let all: Vec<&str> = Region::ALL.iter().map(|r| r.name()).collect();
                cx.err(&format!("{field}.region"), format!("{name:?} is not a region ({})", all.join(", ")))
            })
        }
        Remembers::Turn => {
            let f = format!("{field}.turn");
            let Some(n) = &e.turn else {
                return Err(cx.err(&f, format!("{} always remembers the turn it was played: give \"turn\"", e.card)));
            };
            // Played once its era's cards are in the deck, and not after this turn.
            let first = era_begins(cx.rules.cards.info(card).era);
            let why = format!("{} is played from turn {first}, and this is turn {}", e.card, st.turn);
            let range = (i64::from(first), i64::from(st.turn), why.as_str());
            Ok(Memo::Turn(cx.num(&f, n, range, "a turn it can have been played in")?))
        }
        Remembers::Country if e.country.is_none() => Ok(Memo::Nothing),
        Remembers::Country => Err(cx.err(
            &format!("{field}.country"),
            format!(
                "{}'s battleground is chosen during a scoring and used by it at once: no position between two decisions holds one",
                e.card
            ),
        )),
    }
}

/// The effect's card where its shape says (`CardPlace::allows`): a starred card played for
/// its event is removed (§4.3), an unstarred one discarded (or dealt again after a reshuffle);
/// a card kept in front goes to the table; a card given to the opponent is not the owner's.
/// Listed nowhere in the empty start, it is out of the position; in the standard start, where
/// every card is somewhere, it is put there.
fn place_card(cx: &mut Ctx, field: &str, e: &Effect, at: At, st: &mut State) -> Result<(), FixtureError> {
    let name = cx.rules.cards.name(e.card).to_string();
    let listed = cx.placed.get(&e.card).cloned();
    if at == At::Setup || (st.turn == 1 && !at.within_turn()) {
        return Err(cx.err(&format!("{field}.card"), format!("no card has been played {}: no effect is in play", at.words())));
    }
    let starred = cx.rules.cards.info(e.card).starred;
    let Some(place) = cx.rules.shape(e.card).map(|s| s.card) else { return Ok(()) };
    if place == CardPlace::InFront {
        if let Some(f) = listed {
            return Err(
                cx.err(&f, format!("{name} is in effect, so it is in front of its owner while its effect lasts: list it nowhere else"))
            );
        }
        st.deck.retain(|c| *c != e.card);
        st.reserve.remove(e.card);
        st.table.insert(e.card);
        return Ok(());
    }
    match listed {
        Some(f) => {
            let pile = st.locate(e.card);
            if !place.allows(pile, starred, e.owner) {
                let why = match place {
                    CardPlace::Played if starred => {
                        "it was played for its event, which removed it from the game (a starred card, §4.3): list it in \"removed\" or nowhere"
                    }
                    CardPlace::Played | CardPlace::InFront => "it was played for its event: an unstarred card is discarded, never removed (§4.3)",
                    CardPlace::OpponentsHand if pile == Pile::Removed => {
                        "it was played for its event: an unstarred card is discarded, never removed (§4.3)"
                    }
                    CardPlace::OpponentsHand => "it was given to the other side, who must play it: it is not in its owner's hand",
                };
                return Err(cx.err(&f, format!("{name} is in effect, so {why}")));
            }
        }
        None if cx.start == Start::Standard => {
            st.deck.retain(|c| *c != e.card);
            st.reserve.remove(e.card);
            match place {
                CardPlace::Played if starred => st.removed.insert(e.card),
                CardPlace::OpponentsHand => st.hands[e.owner.opponent().idx()].insert(e.card),
                CardPlace::Played | CardPlace::InFront => st.discard.insert(e.card),
            }
            cx.placed.insert(e.card, field.to_string());
        }
        None => {}
    }
    Ok(())
}
