//! Camp David Accords (#65): US +1 VP and 1 Influence each in Israel, Jordan and Egypt; its
//! marker prevents Arab-Israeli War (card data). Our Man in Tehran (#108): if the US controls
//! a Middle East country, it looks at the top 5 cards of the draw pile (privately), discards
//! any of them (shown to the USSR; their events do not occur, §5.4), and the rest are
//! reshuffled into the draw pile.

use super::ids::*;
use crate::shapes::{Change, FixedChanges, TargetEvent, Who};
use arbiter_twilight::card::CardSet;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::error::{illegal, Illegal};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::state::Pile;
use arbiter_twilight::{log, log_private, steps};
use arbiter_twilight::{Ask, CardEvent, EventTask, Map, Move, Position, Region, Ruleset, Side, Task, Words};

steps! {
    enum TehranStep { Discard }
}

struct OurManInTehran;

/// The cards looked at that are still on the draw pile.
fn looked_at(p: Position, t: &EventTask) -> Vec<arbiter_twilight::CardId> {
    t.picked.cards().iter().filter(|c| p.st.deck.contains(c)).collect()
}

fn names(ctx: &Ctx, cards: &[arbiter_twilight::CardId]) -> String {
    cards.iter().map(|c| ctx.card_name(*c).to_string()).collect::<Vec<_>>().join(", ")
}

impl CardEvent for OurManInTehran {
    type Step = TehranStep;
    /// A condition in the text ("if the US controls…"): unmet, the event does nothing and the
    /// card is discarded, not removed (§5.2, as for Wargames).
    fn condition(&self, p: Position, _side: Side, _words: Words) -> Result<(), Illegal> {
        let map = Map::standard();
        if p.st.masks().control[Side::Us.idx()] & map.region_mask(Region::MiddleEast) != 0 {
            Ok(())
        } else {
            illegal("the US controls no Middle East country", OUR_MAN_IN_TEHRAN.cite())
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let deck = &ctx.st().deck;
        let top: Vec<arbiter_twilight::CardId> = deck.iter().rev().take(5).copied().collect();
        if top.is_empty() {
            ctx.log("Our Man in Tehran: the draw pile is empty");
            return;
        }
        log!(ctx, "Our Man in Tehran: the {side} looks at the top {} card(s) of the draw pile", top.len());
        log_private!(ctx, side, "Our Man in Tehran: the top cards are {}", names(ctx, &top));
        ctx.reveal();
        let set: CardSet = top.into_iter().collect();
        ctx.push(Task::Event(EventTask {
            picked: arbiter_twilight::Picked::of_cards(set),
            ..EventTask::new(OUR_MAN_IN_TEHRAN, side).at(TehranStep::Discard)
        }));
    }
    fn ask(&self, p: Position, _step: TehranStep, t: &EventTask, words: Words) -> Ask {
        let cards = looked_at(p, t);
        let secret = words.say(|| format!("(the cards: {})", cards.iter().map(|c| p.cards().name(*c)).collect::<Vec<_>>().join(", ")));
        Ask::new(t.side, words.say(|| format!("{}: Our Man in Tehran: `discard CARD` for each card you discard, then `pass`", t.side)), {
            cards.into_iter().map(Move::Discard).collect()
        })
        .secret(secret)
        .or_pass()
    }
    fn answer(&self, ctx: &mut Ctx, _step: TehranStep, t: EventTask, m: &Move) {
        match m {
            Move::Discard(c) => {
                log!(
                    ctx,
                    "The {} discards {} from the draw pile (Our Man in Tehran); its event does not occur (§5.4)",
                    t.side,
                    ctx.card_name(*c)
                );
                ctx.exec(Instr::MoveCard { card: *c, to: Pile::Discard });
                ctx.push(Task::Event(t));
            }
            Move::Pass => {
                let left = looked_at(ctx.pos(), &t).len();
                log!(ctx, "Our Man in Tehran: {left} card(s) go back and the draw pile is reshuffled");
                ctx.shuffle_deck();
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

/// Muslim Revolution (#56): all US Influence leaves 2 of Sudan, Iran, Iraq, Egypt, Libya,
/// Saudi Arabia, Syria and Jordan. Only countries holding US Influence are offered; with one
/// such country only, that one (the event removes what is there). AWACS Sale to Saudis
/// prevents it (card data).
fn muslim_eligible(p: Position, _s: Side) -> u128 {
    countries!("Sudan", "Iran", "Iraq", "Egypt", "Libya", "Saudi Arabia", "Syria", "Jordan") & p.st.masks().presence[Side::Us.idx()]
}

fn muslim_revolution(ctx: &mut Ctx, _side: Side, c: arbiter_twilight::CountryId) {
    let n = ctx.st().inf(Side::Us, c);
    ctx.exec(Instr::RemoveInfluence { side: Side::Us, country: c, n });
}

pub fn register(r: &mut Ruleset) {
    r.event(
        MUSLIM_REVOLUTION,
        TargetEvent {
            card: MUSLIM_REVOLUTION,
            what: "remove all US Influence from 2 of Sudan, Iran, Iraq, Egypt, Libya, Saudi Arabia, Syria, Jordan",
            eligible: muslim_eligible,
            act: muslim_revolution,
            times: 2,
        },
    );
    r.event(
        CAMP_DAVID,
        FixedChanges::new(
            CAMP_DAVID,
            &[
                Change::Vp(Who::Owner, 1),
                Change::Add(Who::Owner, "Israel", 1),
                Change::Add(Who::Owner, "Jordan", 1),
                Change::Add(Who::Owner, "Egypt", 1),
            ],
            true,
        ),
    );
    r.event(OUR_MAN_IN_TEHRAN, OurManInTehran);
}
