//! The work stack. The game is a stack of [`Task`]s that unfolds lazily: a turn pushes its
//! phases, an action round pushes the card play, a card play pushes its operation or event.
//! Automatic tasks run as soon as they reach the top; a decision task waits for a move, which
//! only its arbitrator (the module named after the rule) may accept.

use crate::ctx::Ctx;
use crate::error::Illegal;
use crate::log;
use crate::moves::{Move, Notation};
use crate::registry::{Ask, Position, Prompt, Words};
use crate::side::Side;
use crate::state::{EndReason, Outcome};
use crate::{action_round, headline, ops, setup, turn};

pub use crate::task::{EventTask, Modes, OpsKind, OpsTask, Pending, PlayTask, Source, Task};

/// A decision point: who decides, what is asked, and every legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub side: Side,
    pub prompt: String,
    pub moves: Vec<Move>,
}

/// The pending step of an event, as its card describes it (its prompt composed only if
/// `words` asks for it); `None` for a step the card does not know (an engine fault: no
/// decision can be made there).
fn ask(p: Position, e: &EventTask, words: Words) -> Option<Ask> {
    p.rules.get_event(e.card)?.ask(p, e, words)
}

/// Who decides the task on top of the stack.
pub fn decider(p: Position, t: &Task) -> Side {
    match t.pending() {
        Some(Pending::SetupPlace { side, .. } | Pending::HeadlineChoose { side } | Pending::SpaceDiscard { side }) => side,
        Some(Pending::PlayCard(pt)) => pt.side,
        Some(Pending::UsBonus { .. }) => Side::Us,
        Some(Pending::Ops(o)) => o.side,
        Some(Pending::Event(e)) => ask(p, e, Words::Skip).map(|a| a.decider).unwrap_or(e.side),
        None => p.st.phasing,
    }
}

/// What the decision on top asks, for each viewer.
pub fn prompt(p: Position, t: &Task) -> Prompt {
    let text = match t.pending() {
        Some(Pending::SetupPlace { .. } | Pending::UsBonus { .. }) => setup::prompt(p, t),
        Some(Pending::HeadlineChoose { side }) => format!("{side}: choose your headline card (§4.5C)"),
        Some(Pending::PlayCard(pt)) => return action_round::prompt(p, pt),
        Some(Pending::Ops(o)) => ops::prompt(p, o),
        Some(Pending::Event(e)) => return ask(p, e, Words::Compose).map(|a| a.prompt).unwrap_or_default(),
        Some(Pending::SpaceDiscard { side }) => {
            format!("{side}: you may discard one held card (space race box 6, §6.4.4), or pass")
        }
        None => String::new(),
    };
    Prompt::public(text)
}

/// The labels of `choose` options at the decision on top of the stack.
pub fn labels(p: Position) -> &'static [&'static str] {
    match p.st.stack.last().and_then(Task::pending) {
        Some(Pending::Event(e)) => ask(p, e, Words::Skip).map(|a| a.labels).unwrap_or(&[]),
        Some(
            Pending::SetupPlace { .. }
            | Pending::UsBonus { .. }
            | Pending::HeadlineChoose { .. }
            | Pending::PlayCard(_)
            | Pending::Ops(_)
            | Pending::SpaceDiscard { .. },
        )
        | None => &[],
    }
}

impl<'a> Position<'a> {
    /// The move notation of this position: card names and the labels of the pending decision.
    pub fn notation(&self) -> Notation<'a> {
        Notation { cards: self.cards(), labels: labels(*self), prefer: crate::card::CardSet::default() }
    }
    /// The canonical text of `m` here.
    pub fn move_text(&self, m: &Move) -> String {
        m.text(&self.notation())
    }
}

/// Every legal move of the decision on top of the stack: the decision's own moves, then the
/// standing moves the effects in play offer the deciding side.
pub fn legal_moves(p: Position) -> Vec<Move> {
    listing(p).0
}

pub use crate::listing::Listing;

/// The legal moves of the decision on top and the side that decides it (what [`decider`]
/// answers), found together: an event's question, asked once, tells both.
pub fn listing(p: Position) -> (Vec<Move>, Option<Side>) {
    let in_play = crate::ctx::effect_cards(&p.st.effects);
    let mut l = Listing::default();
    let (side, _) = listing_kept(p, &std::cell::Cell::default(), in_play, &mut l);
    (l.to_vec(), side)
}

/// [`listing`], in the listing's own form ([`Listing`]: an Ops decision's and a card play's
/// moves kept as sets), written into `out` (where the game keeps it: the listing is not moved out
/// and in again at every decision); returns the decider and whether there is a move
/// (asked of the sets once). An Ops decision reads its
/// access mask from `access` where it holds (and keeps it there). `in_play` are the cards of
/// the effects in play (`Ctx` keeps them): the effects are asked for standing moves only when
/// one of them may offer some (`Ruleset::offers_standing`: asking them at every decision would
/// slow every decision).
pub fn listing_kept(
    p: Position,
    access: &std::cell::Cell<ops::KeptAccess>,
    in_play: crate::card::CardSet,
    out: &mut Listing,
) -> (Option<Side>, bool) {
    let none = |out: &mut Listing, side: Option<Side>| {
        *out = Listing::default();
        (side, false)
    };
    let Some(t) = p.st.stack.last() else {
        return none(out, None);
    };
    if p.st.outcome.is_some() {
        return none(out, None);
    }
    let side = match t.pending() {
        Some(Pending::Event(e)) => match ask(p, e, Words::Skip) {
            Some(a) => {
                *out = Listing::Moves(a.choices);
                a.decider
            }
            None => return none(out, Some(e.side)),
        },
        Some(Pending::Ops(o)) => {
            // The mask read and kept only for an Ops decision (copied out of its cell and back).
            let mut kept = access.get();
            *out = Listing::Ops { allowed: ops::Judge::kept(p, o, false, &mut kept).allowed(), standing: Vec::new() };
            access.set(kept);
            o.side
        }
        Some(Pending::PlayCard(pt)) => {
            let mut kept = access.get();
            *out = action_round::listing(p, pt, &mut kept);
            access.set(kept);
            pt.side
        }
        Some(Pending::HeadlineChoose { side }) => {
            *out = Listing::Moves(headline::legal(p, side));
            side
        }
        // §3: every country open to a setup marker is a legal move (`setup::open`, which the
        // check reads too): listed as they are, without judging each again (1.5 % of `arbiter
        // bench`, for the 15 setup decisions of a game).
        Some(Pending::SetupPlace { .. } | Pending::UsBonus { .. }) => {
            *out = Listing::Moves(setup::legal(p, t));
            decider(p, t)
        }
        Some(Pending::SpaceDiscard { .. }) => {
            *out = Listing::Moves(candidates(p, t).into_iter().filter(|m| judge(p, t, m, false).is_ok()).collect());
            decider(p, t)
        }
        None => return none(out, Some(p.st.phasing)),
    };
    // Standing moves join a decision that has moves of its own: they leave it as it is.
    let any = !out.is_empty();
    if any && !p.st.effects.is_empty() && p.rules.offers_standing(in_play) {
        out.add_standing(p.standing_moves(side));
    }
    (Some(side), any)
}

/// A superset of the legal moves of an engine decision; `check` filters it.
fn candidates(p: Position, t: &Task) -> Vec<Move> {
    match t.pending() {
        Some(Pending::SpaceDiscard { side }) => turn::space_discard_candidates(p, side),
        // Listed by their own modules (see `legal_moves`).
        Some(
            Pending::SetupPlace { .. }
            | Pending::UsBonus { .. }
            | Pending::HeadlineChoose { .. }
            | Pending::PlayCard(_)
            | Pending::Ops(_)
            | Pending::Event(_),
        )
        | None => Vec::new(),
    }
}

/// Validate a move against the decision on top of the stack, with the reason if it is illegal.
pub fn check(p: Position, t: &Task, m: &Move) -> Result<(), Illegal> {
    if is_standing(p, t, m) {
        return Ok(());
    }
    if let Move::Cancel { card, .. } = m {
        return Err(cancel_refused(p, decider(p, t), *card));
    }
    judge(p, t, m, true)
}

/// Why `side` cannot cancel `card`'s effect now, naming what it may cancel instead.
fn cancel_refused(p: Position, side: Side, card: crate::card::CardId) -> Illegal {
    let open: Vec<String> = p.standing_moves(side).iter().map(|m| p.move_text(m)).collect();
    let instead = if open.is_empty() { "nothing can be cancelled now".to_string() } else { format!("open now: {}", open.join(", ")) };
    Illegal::new(format!("{} cannot be cancelled this way now ({instead})", p.cards().name(card)), card.cite())
}

/// Is `m` a standing move the effects in play offer the decider now?
fn is_standing(p: Position, t: &Task, m: &Move) -> bool {
    // The cheap tests first: the decider of an event step is found by asking the card.
    matches!(m, Move::Cancel { .. }) && !p.st.effects.is_empty() && is_standing_for(p, decider(p, t), m)
}

/// Is `m` a standing move the effects in play offer `side` now?
fn is_standing_for(p: Position, side: Side, m: &Move) -> bool {
    matches!(m, Move::Cancel { .. }) && !p.st.effects.is_empty() && p.standing_moves(side).contains(m)
}

/// The standing moves `side` may make now without deciding: an interjection while another
/// side decides ("at any time": cancelling the Cuban Missile Crisis in the opponent's round,
/// between its Ops, before its coup). The deciding side finds its own among its legal moves.
pub fn interjections(p: Position, side: Side) -> Vec<Move> {
    let Some(t) = p.st.stack.last() else { return Vec::new() };
    if p.st.outcome.is_some() || !t.is_decision() || p.st.effects.is_empty() || decider(p, t) == side {
        return Vec::new();
    }
    p.standing_moves(side)
}

/// The side that acts at the same time as the decider of the decision on top, if that
/// decision is a simultaneous step (both headlines, §4.5C).
pub fn at_once(p: Position) -> Option<Side> {
    let t = p.st.stack.last()?;
    match t.pending() {
        Some(Pending::HeadlineChoose { .. }) => headline::at_once(p),
        Some(
            Pending::SetupPlace { .. }
            | Pending::UsBonus { .. }
            | Pending::PlayCard(_)
            | Pending::Ops(_)
            | Pending::Event(_)
            | Pending::SpaceDiscard { .. },
        )
        | None => None,
    }
}

/// The legal moves of `side`, acting at the same time as the decider ([`at_once`]).
pub fn moves_at_once(p: Position, side: Side) -> Vec<Move> {
    match at_once(p) {
        Some(s) if s == side => headline::legal(p, side),
        Some(_) | None => Vec::new(),
    }
}

/// Validate the move of `side` at a simultaneous step, where it acts beside the decider.
pub fn check_at_once(p: Position, side: Side, m: &Move) -> Result<(), Illegal> {
    match at_once(p) {
        Some(s) if s == side && matches!(m, Move::Concede(_)) => Ok(()),
        Some(s) if s == side => headline::check(p, side, m, true),
        Some(_) | None => Err(Illegal::new(format!("the {side} does not act at the same time as the side deciding now"), "§4.5")),
    }
}

/// Apply the checked move of `side` at a simultaneous step (its headline, or a concession): its
/// choice is made and the decider's stays pending (its own choice, below on the stack, is skipped when it comes up).
pub fn apply_at_once(ctx: &mut Ctx, side: Side, m: &Move) {
    if let Move::Concede(c) = m {
        concede(ctx, side, *c);
    } else {
        headline::apply_choice(ctx, side, m);
    }
}

/// Validate an interjection by `side` (see [`interjections`]), with the reason if it is refused.
pub fn check_interjection(p: Position, side: Side, m: &Move) -> Result<(), Illegal> {
    let Some(t) = p.st.stack.last().filter(|t| t.is_decision()) else {
        return Err(Illegal::new("no decision is pending", "§4.5"));
    };
    let decider = decider(p, t);
    if decider == side {
        return Err(Illegal::new(format!("the {side} is deciding: play this as a move of its decision, not as an interjection"), "§4.5"));
    }
    if is_standing_for(p, side, m) {
        return Ok(());
    }
    if let (Move::Headline(_), Some(Pending::HeadlineChoose { .. })) = (m, t.pending()) {
        return Err(headline::not_now(p, side));
    }
    let allowed: Vec<String> = interjections(p, side).iter().map(|m| p.move_text(m)).collect();
    let instead = if allowed.is_empty() {
        "none is open now: wait for your own decision".to_string()
    } else {
        format!("open now: {}", allowed.join(", "))
    };
    Err(Illegal::new(
        format!(
            "it is the {decider}'s decision: while the other side decides, the {side} may make only a move an effect in play allows \"at any time\" ({instead})"
        ),
        "§4.5, card text",
    ))
}

/// Apply a checked interjection by `side`: the effect carries it out and the pending decision
/// stays (its legal moves are listed anew, since the position changed).
pub fn apply_interjection(ctx: &mut Ctx, side: Side, m: &Move) {
    let Some(top) = ctx.st.stack.last() else { return };
    let decider = decider(ctx.pos(), top);
    if ctx.logging {
        ctx.log(format!("The {side} interjects while the {decider} decides (an \"at any time\" move)"));
    }
    apply_standing(ctx, side, m);
}

/// A standing move of `side`, carried out by the effect that offers it.
fn apply_standing(ctx: &mut Ctx, side: Side, m: &Move) {
    if let Move::Cancel { card, .. } = m {
        let effect = ctx.st.effect(*card).copied();
        if let (Some(e), Some(h)) = (effect, ctx.rules.get_lasting(*card)) {
            h.apply_standing(ctx, &e, side, m);
        }
    }
}

/// The one validation path; `explain` only decides whether rejection messages are composed.
fn judge(p: Position, t: &Task, m: &Move, explain: bool) -> Result<(), Illegal> {
    match t.pending() {
        Some(Pending::SetupPlace { .. } | Pending::UsBonus { .. }) => setup::check(p, t, m, explain),
        Some(Pending::HeadlineChoose { side }) => headline::check(p, side, m, explain),
        Some(Pending::PlayCard(pt)) => action_round::Judge::new(p, pt, explain).check(m),
        Some(Pending::Ops(o)) => ops::Judge::new(p, o, explain).check(m),
        Some(Pending::SpaceDiscard { side }) => turn::space_discard_check(p, side, m, explain),
        Some(Pending::Event(e)) => {
            let Some(a) = ask(p, e, Words::when(explain)) else {
                return Err(Illegal::new("no such decision", "engine"));
            };
            if a.choices.contains(m) {
                Ok(())
            } else {
                // Name the card and what it allows instead (the first few of its choices).
                let name = p.cards().name(e.card);
                let shown: Vec<String> = a.choices.iter().take(8).map(|m| p.move_text(m)).collect();
                let more = match a.choices.len().saturating_sub(shown.len()) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                Err(Illegal::new(
                    format!("not a legal choice for {name} now: {}; allowed: {}{more}", a.prompt.text, shown.join(", ")),
                    e.card.cite(),
                ))
            }
        }
        None => Err(Illegal::new("no decision is pending", "§4.5")),
    }
}

/// Apply a checked move: a standing move leaves the decision pending; any other move pops the
/// decision and lets its arbitrator emit instructions.
pub fn apply(ctx: &mut Ctx, m: &Move) {
    let Some(top) = ctx.st.stack.last() else { return };
    if let Move::Concede(c) = m {
        // The deciding side concedes: the other side wins, whatever was pending.
        concede(ctx, decider(ctx.pos(), top), *c);
        return;
    }
    if is_standing(ctx.pos(), top, m) {
        let side = decider(ctx.pos(), top);
        apply_standing(ctx, side, m);
        return;
    }
    let Some(t) = ctx.st.stack.pop() else { return };
    match t {
        Task::SetupPlace { .. } | Task::UsBonus { .. } => setup::apply(ctx, t, m),
        Task::HeadlineChoose { side } => headline::apply_choice(ctx, side, m),
        Task::PlayCard(pt) => action_round::apply(ctx, pt, m),
        Task::Ops(o) => ops::apply(ctx, o, m),
        Task::SpaceDiscard { side } => turn::space_discard_apply(ctx, side, m),
        Task::Event(e) => match ctx.rules.get_event(e.card) {
            Some(h) => h.answer(ctx, e, m),
            None => ctx.fault(format!("no event registered for card {}", e.card)),
        },
        other => ctx.push(other),
    }
}

/// `loser` concedes (resigns, or its clock ran out): the other side wins, whatever was pending.
fn concede(ctx: &mut Ctx, loser: Side, c: crate::moves::Concession) {
    let reason = match c {
        crate::moves::Concession::Resign => crate::state::EndReason::Resigned,
        crate::moves::Concession::Time => crate::state::EndReason::Time,
    };
    if ctx.logging {
        let why = match c {
            crate::moves::Concession::Resign => "resigns",
            crate::moves::Concession::Time => "runs out of time on the chess clock",
        };
        ctx.log(format!("The {loser} {why}"));
    }
    ctx.exec(crate::instr::Instr::EndGame(crate::state::Outcome { winner: Some(loser.opponent()), reason }));
}

/// Run automatic tasks until a decision with at least one legal move is on top, or the game
/// ends. A decision with no legal move is resolved as the rules say (unusable Ops are lost,
/// a player with no card sits out).
pub fn run(ctx: &mut Ctx) {
    arbiter_kernel::agenda::unfold(ctx);
}

/// Twilight Struggle's flow as the kernel's work stack: the tasks on `State::stack`; a
/// decision's moves are the legal moves; the game stops at an outcome (the stack is cleared)
/// or a fault.
impl arbiter_kernel::agenda::Agenda for Ctx<'_> {
    type Task = Task;
    #[inline]
    fn stack(&mut self) -> &mut Vec<Task> {
        &mut self.st.stack
    }
    #[inline]
    fn top(&self) -> Option<&Task> {
        self.st.stack.last()
    }
    fn stopped(&mut self) -> bool {
        if self.exhausted.is_some() || self.fault.is_some() {
            return true;
        }
        if self.st.outcome.is_none() && self.st.vp.unsigned_abs() >= 20 && !matches!(self.st.stack.last(), Some(Task::FinalScoring)) {
            // §10.3.1: 20 VP wins at once, once the event being resolved has been applied.
            let winner = if self.st.vp > 0 { Side::Us } else { Side::Ussr };
            self.exec(crate::instr::Instr::EndGame(Outcome { winner: Some(winner), reason: EndReason::VictoryPoints }));
        }
        if self.st.outcome.is_some() {
            self.st.stack.clear();
            return true;
        }
        false
    }
    #[inline]
    fn is_decision(&self, t: &Task) -> bool {
        t.is_decision()
    }
    fn list(&mut self) -> bool {
        // Fields borrowed one by one: the state read, the listing written in place.
        let p = Position { rules: self.rules, st: &*self.st };
        let (side, any) = listing_kept(p, self.access, self.in_play, &mut *self.legal);
        if any {
            self.decider = side;
        }
        any
    }
    fn no_moves(&mut self, t: Task) {
        no_moves(self, t)
    }
    fn run(&mut self, t: Task) {
        run_auto(self, t)
    }
}

fn no_moves(ctx: &mut Ctx, t: Task) {
    match t.pending() {
        Some(Pending::Ops(o)) => ops::finish(ctx, o, "no legal use remains"),
        Some(Pending::PlayCard(pt)) if pt.is_round() => log!(ctx, "{} has no card to play and sits out this action round (§4.5D)", pt.side),
        Some(Pending::PlayCard(pt)) => {
            log!(ctx, "{}: {} has no card it may play", pt.by.map(|c| ctx.card_name(c).to_string()).unwrap_or_default(), pt.side);
            if let Some(next) = pt.or_else {
                ctx.push(Task::Continue(next));
            }
        }
        Some(Pending::Event(e)) if ask(ctx.pos(), e, Words::Skip).is_none() => {
            ctx.fault(format!("{}: unknown event step {}", ctx.card_name(e.card), e.step))
        }
        Some(Pending::Event(e)) => log!(ctx, "{}: no legal choice remains", ctx.card_name(e.card)),
        // Chosen already, while the other side chose (§4.5C): nothing more to ask.
        Some(Pending::HeadlineChoose { side }) if ctx.st.headline[side.idx()].is_some() => {}
        Some(Pending::HeadlineChoose { side }) => log!(ctx, "{side} has no card to headline"),
        // Setup always has a country to place in, and the space race discard may pass: these
        // decisions never lack a move; an automatic task is not a decision.
        Some(Pending::SetupPlace { .. } | Pending::UsBonus { .. } | Pending::SpaceDiscard { .. }) | None => {}
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
        Task::Continue(e) => match ctx.rules.get_event(e.card) {
            Some(h) => h.resume(ctx, e),
            None => ctx.fault(format!("no event registered for card {}", e.card)),
        },
        Task::EndRound { side } => action_round::end(ctx, side),
        Task::MilOpsCheck => turn::military_ops_check(ctx),
        Task::HeldCards => turn::held_cards(ctx),
        Task::ChinaFlip => turn::china_flip(ctx),
        Task::EndTurn => turn::end(ctx),
        Task::FinalScoring => crate::scoring::final_scoring(ctx),
        decision => ctx.push(decision),
    }
}
