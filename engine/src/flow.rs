//! The work stack. The game is a stack of [`Task`]s that unfolds lazily: a turn pushes its
//! phases, an action round pushes the card play, a card play pushes its operation or event.
//! Automatic tasks run as soon as they reach the top; a decision task waits for a move, which
//! only its arbitrator (the module named after the rule) may accept.

use crate::card::CardId;
use crate::ctx::Ctx;
use crate::error::Illegal;
use crate::log;
use crate::moves::Move;
use crate::pipeline::Spend;
use crate::registry::Position;
use crate::side::Side;
use crate::state::{EndReason, Outcome};
use crate::{action_round, headline, ops, setup, turn};
use serde::{Deserialize, Serialize};

/// A pending step of a card's event: which card, for whom, and a little card-defined data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EventTask {
    pub card: CardId,
    pub side: Side,
    pub stage: u8,
    /// A counter (markers left to place, rolls left...).
    pub count: u8,
    /// Countries already chosen, as a bitset.
    pub picked: u128,
    /// Countries chosen twice (for "at most 2 per country").
    pub twice: u128,
    pub arg: i16,
}

impl EventTask {
    pub fn new(card: CardId, side: Side) -> EventTask {
        EventTask { card, side, stage: 0, count: 0, picked: 0, twice: 0, arg: 0 }
    }
    pub fn stage(self, stage: u8) -> Self {
        EventTask { stage, ..self }
    }
    pub fn count(self, count: u8) -> Self {
        EventTask { count, ..self }
    }
}

/// What the Ops of a card play are spent on (§6: one activity per card).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OpsKind {
    Influence,
    Realign,
    Coup,
}

/// Spending the Ops of one card (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OpsTask {
    pub side: Side,
    /// The card whose (modified) Ops are spent; `None` for Ops an event grants as a number.
    pub card: Option<CardId>,
    /// The granted number when `card` is `None`.
    pub granted: u8,
    /// Fixed by the first Op spent.
    pub kind: Option<OpsKind>,
    pub spent: u8,
    pub spend: Spend,
    /// Bitmask over `Region as usize`; 0 = anywhere.
    pub regions: u8,
    /// A free coup or realignment from an event: ignores DEFCON limits and earns no military
    /// ops (§6.3.5, §8.2.5).
    pub free: bool,
    /// Bitmask of allowed kinds: 1 influence, 2 realign, 4 coup.
    pub allowed: u8,
}

impl OpsTask {
    pub const ALL: u8 = 7;
    pub fn for_card(side: Side, card: CardId) -> OpsTask {
        OpsTask {
            side,
            card: Some(card),
            granted: 0,
            kind: None,
            spent: 0,
            spend: Spend::OPEN,
            regions: 0,
            free: false,
            allowed: Self::ALL,
        }
    }
    pub fn granted(side: Side, ops: u8) -> OpsTask {
        OpsTask { card: None, granted: ops, ..Self::for_card(side, CardId::CHINA) }
    }
    pub fn allows(&self, k: OpsKind) -> bool {
        let bit = match k {
            OpsKind::Influence => 1,
            OpsKind::Realign => 2,
            OpsKind::Coup => 4,
        };
        self.allowed & bit != 0 && self.kind.is_none_or(|x| x == k)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Task {
    // ---- setup (§3) ----
    Setup,
    SetupPlace { side: Side, left: u8 },
    UsBonus { left: u8 },
    // ---- turn (§4.5) ----
    StartTurn,
    ImproveDefcon,
    Deal,
    HeadlineStart,
    HeadlineChoose { side: Side },
    HeadlineResolve,
    HeadlineEvent { side: Side },
    HeadlineEnd,
    ActionRound { round: u8, side: Side },
    ChooseCard { side: Side },
    ResolveEvent { card: CardId, side: Side },
    Ops(OpsTask),
    Event(EventTask),
    EndRound { side: Side },
    MilOpsCheck,
    SpaceDiscard { side: Side },
    HeldCards,
    ChinaFlip,
    EndTurn,
    FinalScoring,
}

impl Task {
    pub fn is_decision(&self) -> bool {
        matches!(
            self,
            Task::SetupPlace { .. }
                | Task::UsBonus { .. }
                | Task::HeadlineChoose { .. }
                | Task::ChooseCard { .. }
                | Task::Ops(_)
                | Task::Event(_)
                | Task::SpaceDiscard { .. }
        )
    }
}

/// A decision point: who decides, what is asked, and every legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub side: Side,
    pub prompt: String,
    pub moves: Vec<Move>,
}

/// Who decides the task on top of the stack.
pub fn decider(p: Position, t: &Task) -> Side {
    match t {
        Task::SetupPlace { side, .. } | Task::HeadlineChoose { side } | Task::ChooseCard { side } | Task::SpaceDiscard { side } => *side,
        Task::UsBonus { .. } => Side::Us,
        Task::Ops(o) => o.side,
        Task::Event(e) => p.rules.event(e.card).map(|h| h.decider(e)).unwrap_or(e.side),
        _ => p.st.phasing,
    }
}

pub fn prompt(p: Position, t: &Task) -> String {
    match t {
        Task::SetupPlace { .. } | Task::UsBonus { .. } => setup::prompt(p, t),
        Task::HeadlineChoose { side } => format!("{side}: choose your headline card (§4.5C)"),
        Task::ChooseCard { side } => format!("{side}: action round {} of turn {}: play a card (§5)", p.st.round, p.st.turn),
        Task::Ops(o) => ops::prompt(p, o),
        Task::Event(e) => p.rules.event(e.card).map(|h| h.prompt(p, e)).unwrap_or_default(),
        Task::SpaceDiscard { side } => {
            format!("{side}: you may discard one held card (space race box 6, §6.4.4), or pass")
        }
        _ => String::new(),
    }
}

/// Every legal move of the decision on top of the stack.
pub fn legal_moves(p: Position) -> Vec<Move> {
    let Some(t) = p.st.stack.last() else {
        return Vec::new();
    };
    if p.st.outcome.is_some() {
        return Vec::new();
    }
    match t {
        Task::Event(e) => p.rules.event(e.card).map(|h| h.options(p, e)).unwrap_or_default(),
        Task::Ops(o) => ops::legal(p, o),
        Task::ChooseCard { side } => action_round::legal(p, *side),
        Task::HeadlineChoose { side } => headline::legal(p, *side),
        _ => candidates(p, t).into_iter().filter(|m| judge(p, t, m, false).is_ok()).collect(),
    }
}

/// A superset of the legal moves of an engine decision; `check` filters it.
fn candidates(p: Position, t: &Task) -> Vec<Move> {
    match t {
        Task::SetupPlace { .. } | Task::UsBonus { .. } => setup::candidates(p),
        Task::SpaceDiscard { side } => turn::space_discard_candidates(p, *side),
        _ => Vec::new(),
    }
}

/// Validate a move against the decision on top of the stack, with the reason if it is illegal.
pub fn check(p: Position, t: &Task, m: &Move) -> Result<(), Illegal> {
    judge(p, t, m, true)
}

/// The one validation path; `explain` only decides whether rejection messages are composed.
fn judge(p: Position, t: &Task, m: &Move, explain: bool) -> Result<(), Illegal> {
    match t {
        Task::SetupPlace { .. } | Task::UsBonus { .. } => setup::check(p, t, m, explain),
        Task::HeadlineChoose { side } => headline::check(p, *side, m, explain),
        Task::ChooseCard { side } => action_round::check(p, *side, m, explain),
        Task::Ops(o) => ops::Judge::new(p, o, explain).check(m),
        Task::SpaceDiscard { side } => turn::space_discard_check(p, *side, m, explain),
        Task::Event(e) => {
            let Some(h) = p.rules.event(e.card) else {
                return Err(Illegal::new("no such decision", "§5"));
            };
            if h.options(p, e).contains(m) {
                Ok(())
            } else {
                Err(Illegal::new(format!("not a legal choice for {}: {}", p.cards().name(e.card), h.prompt(p, e)), "card text"))
            }
        }
        _ => Err(Illegal::new("no decision is pending", "§4.5")),
    }
}

/// Apply a checked move: pop the decision and let its arbitrator emit instructions.
pub fn apply(ctx: &mut Ctx, m: &Move) {
    let Some(t) = ctx.st.stack.pop() else { return };
    match t {
        Task::SetupPlace { .. } | Task::UsBonus { .. } => setup::apply(ctx, t, m),
        Task::HeadlineChoose { side } => headline::apply_choice(ctx, side, m),
        Task::ChooseCard { side } => action_round::apply(ctx, side, m),
        Task::Ops(o) => ops::apply(ctx, o, m),
        Task::SpaceDiscard { side } => turn::space_discard_apply(ctx, side, m),
        Task::Event(e) => {
            if let Some(h) = ctx.rules.event(e.card) {
                h.apply(ctx, e, m);
            }
        }
        other => ctx.push(other),
    }
}

/// Run automatic tasks until a decision with at least one legal move is on top, or the game
/// ends. A decision with no legal move is resolved as the rules say (unusable Ops are lost,
/// a player with no card sits out).
pub fn run(ctx: &mut Ctx) {
    loop {
        if ctx.exhausted.is_some() {
            return;
        }
        if ctx.st.outcome.is_none() && ctx.st.vp.unsigned_abs() >= 20 && !matches!(ctx.st.stack.last(), Some(Task::FinalScoring)) {
            // §10.3.1: 20 VP wins at once, once the event being resolved has been applied.
            let winner = if ctx.st.vp > 0 { Side::Us } else { Side::Ussr };
            ctx.exec(crate::instr::Instr::EndGame(Outcome { winner: Some(winner), reason: EndReason::VictoryPoints }));
        }
        if ctx.st.outcome.is_some() {
            ctx.st.stack.clear();
            return;
        }
        let Some(top) = ctx.st.stack.last() else {
            return;
        };
        if top.is_decision() {
            let moves = legal_moves(ctx.pos());
            if !moves.is_empty() {
                ctx.legal = moves;
                return;
            }
            let t = ctx.st.stack.pop().expect("top exists");
            no_moves(ctx, t);
            continue;
        }
        let t = ctx.st.stack.pop().expect("top exists");
        run_auto(ctx, t);
    }
}

fn no_moves(ctx: &mut Ctx, t: Task) {
    match t {
        Task::Ops(o) => ops::finish(ctx, &o, "no legal use remains"),
        Task::ChooseCard { side } => log!(ctx, "{side} has no card to play and sits out this action round (§4.5D)"),
        Task::Event(e) => log!(ctx, "{}: no legal choice remains", ctx.card_name(e.card)),
        Task::HeadlineChoose { side } => log!(ctx, "{side} has no card to headline"),
        _ => {}
    }
}

fn run_auto(ctx: &mut Ctx, t: Task) {
    match t {
        Task::Setup => setup::begin(ctx),
        Task::StartTurn => turn::start(ctx),
        Task::ImproveDefcon => turn::improve_defcon(ctx),
        Task::Deal => turn::deal(ctx),
        Task::HeadlineStart => headline::start(ctx),
        Task::HeadlineResolve => headline::resolve(ctx),
        Task::HeadlineEvent { side } => headline::event(ctx, side),
        Task::HeadlineEnd => headline::end(ctx),
        Task::ActionRound { round, side } => action_round::begin(ctx, round, side),
        Task::ResolveEvent { card, side } => ctx.resolve_event(card, side),
        Task::EndRound { side } => action_round::end(ctx, side),
        Task::MilOpsCheck => turn::military_ops_check(ctx),
        Task::HeldCards => turn::held_cards(ctx),
        Task::ChinaFlip => turn::china_flip(ctx),
        Task::EndTurn => turn::end(ctx),
        Task::FinalScoring => crate::scoring::final_scoring(ctx),
        decision => ctx.push(decision),
    }
}
