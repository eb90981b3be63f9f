//! The turn sequence (§4.5): improve DEFCON, deal, headline, action rounds, military ops check,
//! held-card check, China Card flip, turn advance with the Mid and Late War decks, and final
//! scoring after turn 10.

use crate::card::{CardId, CardSet, Era};
use crate::ctx::Ctx;
use crate::effect::Expiry;
use crate::error::{illegal, Illegal};
use crate::instr::Instr;
use crate::log;
use crate::moves::Move;
use crate::refuse;
use crate::registry::Position;
use crate::side::Side;
use crate::space_race::EAGLE_BEAR_HAS_LANDED;
use crate::state::{EndReason, Outcome, Pile};
use crate::task::Task;

pub const LAST_TURN: u8 = 10;

/// Hand size (§4.5B): 8 in turns 1–3, 9 afterwards.
pub fn hand_size(turn: u8) -> usize {
    if turn <= 3 {
        8
    } else {
        9
    }
}

/// The turn whose start brings `era`'s cards into the deck (§4.4): the Early War's at the
/// setup, the Mid War's at turn 4, the Late War's at turn 8. No card of an era is anywhere but
/// in reserve before.
pub fn era_begins(era: Era) -> u8 {
    match era {
        Era::Early => 1,
        Era::Mid => 4,
        Era::Late => 8,
    }
}

/// The turn's action rounds before any ability or effect (§4.5D): 6 in turns 1–3, 7 afterwards.
pub fn base_action_rounds(p: Position) -> u8 {
    if p.st.turn <= 3 {
        6
    } else {
        7
    }
}

/// Action rounds of `side` this turn (§4.5D): the base, 8 for the Space Station holder
/// (§6.4.4), plus what effects in play add (North Sea Oil), at most 8.
pub fn action_rounds(p: Position, side: Side) -> u8 {
    let space_station = u8::from(p.st.space_ability(side, crate::space_race::SPACE_STATION));
    let extra = if p.st.effects.is_empty() { 0 } else { p.extra_action_rounds(side) };
    (base_action_rounds(p) + space_station.max(extra)).min(8)
}

/// A point in the turn from which play can continue (for building positions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Headline,
    ActionRound {
        round: u8,
        side: Side,
    },
    /// The end-of-turn phases: military ops check onwards (§4.5E–H).
    EndOfTurn,
}

/// The rest of the turn from `stage` as a work stack (the last task runs first): the one list
/// of the turn's phases after the deal (§4.5C–H).
pub fn rest_of_turn(stage: Stage) -> Vec<Task> {
    // Room for the most a stage adds (the headline's two): made with six, the list grew again.
    let mut v = Vec::with_capacity(8);
    push_rest_of_turn(&mut v, stage);
    v
}

/// [`rest_of_turn`] pushed onto `stack` (the work stack itself at each turn's start: no list of
/// its own is allocated for it).
pub fn push_rest_of_turn(v: &mut Vec<Task>, stage: Stage) {
    v.extend([
        Task::EndTurn,
        Task::ChinaFlip,
        Task::HeldCards,
        Task::SpaceDiscard { side: Side::Us },
        Task::SpaceDiscard { side: Side::Ussr },
        Task::MilOpsCheck,
    ]);
    match stage {
        Stage::EndOfTurn => {}
        Stage::ActionRound { round, side } => v.push(Task::ActionRound { round, side }),
        Stage::Headline => v.extend([Task::ActionRound { round: 1, side: Side::Ussr }, Task::HeadlineStart]),
    }
}

pub fn start(ctx: &mut Ctx) {
    let turn = ctx.st.turn;
    log!(ctx, "=== Turn {turn} ===");
    ctx.st.round = 0;
    push_rest_of_turn(&mut ctx.st.stack, Stage::Headline);
    if turn > 1 {
        // Turn 1's cards were dealt at setup (§3.1).
        ctx.push(Task::Deal);
        ctx.push(Task::ImproveDefcon);
    }
}

/// §4.5A, §8.1.6.
pub fn improve_defcon(ctx: &mut Ctx) {
    if ctx.st.defcon < 5 {
        ctx.exec(Instr::ChangeDefcon(1));
    }
}

/// §4.5B, §11.1.3: fill hands, USSR first, alternating; a player who needs more may draw
/// several in a row. The China Card does not count. An empty deck is rebuilt from the discards
/// (§4.3), but only once the remaining cards are dealt.
pub fn deal(ctx: &mut Ctx) {
    let size = hand_size(ctx.st.turn);
    let mut drawn = [0usize; 2];
    loop {
        let mut any = false;
        for side in [Side::Ussr, Side::Us] {
            if ctx.st.hand(side).len() >= size {
                continue;
            }
            if ctx.st.deck.is_empty() {
                reshuffle(ctx);
                if ctx.st.deck.is_empty() {
                    ctx.log("No cards remain to deal (§4.3)");
                    return log_deal(ctx, drawn);
                }
            }
            if ctx.draw(side).is_none() {
                return log_deal(ctx, drawn);
            }
            drawn[side.idx()] += 1;
            any = true;
        }
        if !any {
            break;
        }
    }
    log_deal(ctx, drawn)
}

fn log_deal(ctx: &mut Ctx, drawn: [usize; 2]) {
    log!(ctx, "Deal: USSR draws {}, US draws {} ({} cards left in the deck)", drawn[1], drawn[0], ctx.st.deck.len());
}

/// §4.3: the discard pile becomes the new deck, shuffled.
pub fn reshuffle(ctx: &mut Ctx) {
    ctx.reshuffle_discards();
}

/// §8.2.3: each player short of the DEFCON level gives the opponent 1 VP per missing op;
/// only the net moves the marker. Then both tracks reset.
pub fn military_ops_check(ctx: &mut Ctx) {
    let need = ctx.st.defcon;
    let mut net = 0i32;
    for side in Side::BOTH {
        let have = ctx.st.mil_ops[side.idx()];
        let short = need.saturating_sub(have);
        log!(
            ctx,
            "Military ops check: {side} has {have} of {need} required (§8.2){}",
            if short > 0 { format!(", {} VP to {}", short, side.opponent()) } else { String::new() }
        );
        net += side.opponent().vp_sign() * short as i32;
    }
    ctx.exec(Instr::VpNet(net));
    ctx.exec(Instr::ResetMilOps);
}

/// §11.1.2: a scoring card still held at the end of the turn loses the game.
pub fn held_cards(ctx: &mut Ctx) {
    // §11.1.1: held cards are revealed at the end of the turn.
    for side in Side::BOTH {
        let hand = ctx.st.hand(side);
        if !hand.is_empty() {
            // The cards named for the log only: quiet play composes nothing.
            if ctx.logging {
                let held: Vec<&str> = hand.iter().map(|c| ctx.card_name(c)).collect();
                let line = format!("End of turn: the {side} reveals its held card(s): {} (§11.1.1)", held.join(", "));
                ctx.log(line);
            }
            // Shown to the opponent: known to it while they stay in that hand.
            ctx.st.known[side.idx()].0 |= hand.0;
            ctx.reveal();
        }
    }
    let holds = |ctx: &Ctx, s: Side| ctx.st.hand(s).iter().any(|c| ctx.rules.cards.info(c).scoring);
    let (us, ussr) = (holds(ctx, Side::Us), holds(ctx, Side::Ussr));
    let winner = match (us, ussr) {
        (false, false) => return,
        (true, true) => None,
        (true, false) => Some(Side::Ussr),
        (false, true) => Some(Side::Us),
    };
    ctx.exec(Instr::EndGame(Outcome { winner, reason: EndReason::HeldScoringCard }));
}

/// §4.5G, §9.3.
pub fn china_flip(ctx: &mut Ctx) {
    if !ctx.st.china.face_up {
        let holder = ctx.st.china.holder;
        ctx.exec(Instr::PassChina { to: holder, face_up: true });
    }
}

/// §4.5H: turn-long effects end, the turn advances, the Mid War deck enters at turn 4 and the
/// Late War deck at turn 8 (shuffled into the remaining deck only, §4.4).
pub fn end(ctx: &mut Ctx) {
    let ending: Vec<CardId> = ctx.st.effects.iter().filter(|e| e.expiry == Expiry::EndOfTurn).map(|e| e.card).collect();
    for c in ending {
        ctx.exec(Instr::RemoveEffect(c));
    }
    ctx.st.space_attempts = [0, 0];
    if ctx.st.turn >= LAST_TURN {
        ctx.push(Task::FinalScoring);
        return;
    }
    ctx.st.turn += 1;
    let turn = ctx.st.turn;
    let era = [Era::Mid, Era::Late].into_iter().find(|e| era_begins(*e) == turn);
    if let Some(era) = era {
        let cards: CardSet = ctx.st.reserve.iter().filter(|c| ctx.rules.cards.info(*c).era == era).collect();
        for c in cards.iter() {
            ctx.st.reserve.remove(c);
        }
        log!(ctx, "The {:?} War cards ({}) are shuffled into the deck (§4.4)", era, cards.len());
        ctx.shuffle_into_deck(cards);
    }
    ctx.push(Task::StartTurn);
}

/// Eagle/Bear Has Landed (§6.4.4): the first arriver may discard one held card at the end of
/// the turn (one card only, FAQ). Discarded cards' events never happen (§5.4).
pub fn space_discard_candidates(p: Position, side: Side) -> Vec<Move> {
    if !p.st.space_ability(side, EAGLE_BEAR_HAS_LANDED) || p.st.hand(side).is_empty() {
        return Vec::new();
    }
    p.st.hand(side).iter().map(Move::Discard).chain([Move::Pass]).collect()
}

pub fn space_discard_check(p: Position, side: Side, m: &Move, explain: bool) -> Result<(), Illegal> {
    if !p.st.space_ability(side, EAGLE_BEAR_HAS_LANDED) {
        return refuse!(explain, "§6.4.4", "{side} does not hold the Eagle/Bear Has Landed ability");
    }
    match m {
        Move::Pass => Ok(()),
        Move::Discard(c) if p.st.hand(side).contains(*c) => Ok(()),
        Move::Discard(c) => refuse!(explain, "§6.4.4", "{} is not in {side}'s hand", p.cards().name(*c)),
        _ => illegal("discard a held card or pass", "§6.4.4"),
    }
}

pub fn space_discard_apply(ctx: &mut Ctx, side: Side, m: &Move) {
    if let Move::Discard(c) = m {
        let name = ctx.card_name(*c).to_string();
        log!(ctx, "{side} discards {name} (Eagle/Bear Has Landed, §6.4.4)");
        ctx.exec(Instr::MoveCard { card: *c, to: Pile::Discard });
    } else {
        log!(ctx, "{side} keeps its held card");
    }
}
