//! The mutation context: the only holder of `&mut State`. It applies [`Instr`]uctions, logs
//! them, draws randomness (recording each outcome), and runs reactions of lasting effects to
//! the [`DomainEvent`]s instructions emit, until quiet, in the order effects entered play.

use crate::card::{CardId, CardSet};
use crate::effect::Effect;
use crate::instr::{DomainEvent, Instr};
use crate::log;
use crate::map::{CountryId, Map};
use crate::pipeline::{self, Spend, Traced};
use crate::registry::{Cause, Intent, Position, Ruleset, Verdict};
use crate::report::{Audience, LogLine, RandomOutcome, Report};
use crate::rng::Exhausted;
use crate::side::Side;
use crate::state::{EndReason, InPlay, Outcome, Pile, State};
use crate::task::{EventTask, Task};
use arbiter_kernel::effects::Reactions;

/// The most Influence of one side in one country: more than the game's markers could ever put
/// there, well inside `u8`.
pub const MAX_INFLUENCE: u8 = 99;

pub struct Ctx<'a> {
    pub rules: &'a Ruleset,
    /// Only the kernel changes the state; card code reads it through `st()` / `pos()` and
    /// changes it through instructions.
    pub(crate) st: &'a mut State,
    pub report: &'a mut Report,
    /// Set when scripted randomness ran out: the move is then rejected and nothing kept.
    pub exhausted: Option<Exhausted>,
    /// Compose log text (off for random playouts; the state is the same either way).
    pub logging: bool,
    /// The legal moves of the decision `flow::run` stopped at, written in place into what the
    /// game keeps between moves ([`Carried`]).
    pub(crate) legal: &'a mut crate::listing::Listing,
    /// Who decides there (`flow::decider`), found with the moves: an event's question is then
    /// asked once per decision, not again each time the game is asked whose turn it is.
    pub decider: Option<Side>,
    /// The access mask the Ops listings keep (`ops::KeptAccess`), lent by `Game` from move to
    /// move ([`Carried`]).
    pub(crate) access: &'a std::cell::Cell<crate::ops::KeptAccess>,
    /// An engine fault (card code met a move or step it does not know): the move is refused.
    pub fault: Option<String>,
    /// What happened, for the effects in play to react to, one event at a time. `Game` lends
    /// it the queue of the move before (emptied), so that a move allocates none ([`Carried`]).
    pub(crate) reactions: &'a mut Reactions<DomainEvent>,
    /// Counts the changes to the effects in play (added, removed, memo set), so that `drain`
    /// re-checks an effect's presence only when a reaction changed them.
    effects_changed: u32,
    /// The cards of the effects in play (`State::effects`, which only `apply` changes), so that
    /// an instruction or a domain event no effect in play declared an interest in costs one
    /// AND (`Interest`). The interest check compares it with the effects at every use.
    pub(crate) in_play: CardSet,
}

/// What one move's context hands to the next, kept by `Game` between moves and lent to each
/// move's context in place (moving them into a context built around them and out again
/// costs a copy at every move): the legal moves listed where the move
/// stopped, the reaction queue (empty between moves: its allocation is what is kept), and the
/// access mask of the Ops listings (`ops::KeptAccess`).
#[derive(Clone, Default)]
pub struct Carried {
    pub(crate) legal: crate::listing::Listing,
    pub(crate) reactions: Reactions<DomainEvent>,
    pub(crate) access: crate::ops::KeptAccess,
}

impl<'a> Ctx<'a> {
    /// A context on `st`, lent `carried` (a game's, or a fresh one).
    pub fn new(rules: &'a Ruleset, st: &'a mut State, report: &'a mut Report, carried: &'a mut Carried) -> Ctx<'a> {
        let in_play = effect_cards(&st.effects);
        Ctx::kept(rules, st, report, in_play, carried)
    }

    /// A context on `st` whose effects in play are the cards `in_play`, as the context of the
    /// move before left them (`Game` keeps them between moves: reading every effect again at
    /// every move costs more); the interest check compares them with the state's at every use.
    pub(crate) fn kept(
        rules: &'a Ruleset,
        st: &'a mut State,
        report: &'a mut Report,
        in_play: CardSet,
        carried: &'a mut Carried,
    ) -> Ctx<'a> {
        let Carried { legal, reactions, access } = carried;
        Ctx {
            rules,
            st,
            report,
            exhausted: None,
            logging: true,
            legal,
            decider: None,
            access: std::cell::Cell::from_mut(access),
            fault: None,
            reactions,
            effects_changed: 0,
            in_play,
        }
    }

    /// The cards of the effects in play, as this context kept them (`Game` hands them to the
    /// next move's context).
    pub(crate) fn effects_in_play(&self) -> CardSet {
        self.in_play
    }

    pub fn pos(&self) -> Position<'_> {
        Position { rules: self.rules, st: self.st }
    }
    /// The state, read-only.
    pub fn st(&self) -> &State {
        self.st
    }
    /// Record an engine fault: the move being played is refused and nothing is kept
    /// (`Game::play` reports it). Card code calls it for a step or move it does not expect.
    pub fn fault(&mut self, what: impl Into<String>) {
        self.fault.get_or_insert(what.into());
    }
    pub fn unexpected(&mut self, t: &EventTask, m: &crate::moves::Move) {
        let what = format!("{}: step {} of its event did not expect {:?}", self.card_name(t.card), t.step, m);
        self.fault(what);
    }
    pub fn map(&self) -> &'static Map {
        Map::standard()
    }
    pub fn card_name(&self, c: CardId) -> &str {
        self.rules.cards.name(c)
    }
    pub fn over(&self) -> bool {
        self.st.outcome.is_some() || self.exhausted.is_some() || self.fault.is_some()
    }

    pub fn log(&mut self, text: impl Into<String>) {
        self.report.log.push(LogLine { to: Audience::Public, text: text.into() });
    }
    pub fn log_private(&mut self, side: Side, text: impl Into<String>) {
        self.report.log.push(LogLine { to: Audience::Private(side), text: text.into() });
    }
    /// Mark that hidden information became known (so undo stops here).
    pub fn reveal(&mut self) {
        self.report.revealed = true;
    }
    pub fn push(&mut self, t: Task) {
        self.st.stack.push(t);
    }

    /// One die for `side`, recorded in the report.
    pub fn die(&mut self, side: Side) -> u8 {
        match self.st.rng.die() {
            Ok(v) => {
                self.report.random.push(RandomOutcome::Die { side, value: v });
                v
            }
            Err(e) => {
                self.exhausted.get_or_insert(e);
                1
            }
        }
    }

    /// A card chosen at random from `side`'s hand (never the China Card, §9.5).
    pub fn random_card(&mut self, side: Side) -> Option<CardId> {
        let hand = self.st.hand(side);
        if hand.is_empty() {
            return None;
        }
        match self.st.rng.pick(hand.len()) {
            Ok(i) => {
                let c = hand.nth(i)?;
                self.report.random.push(RandomOutcome::RandomCard { side, card: c });
                Some(c)
            }
            Err(e) => {
                self.exhausted.get_or_insert(e);
                None
            }
        }
    }

    /// Shuffle `cards` together with the remaining draw pile into a new draw pile: the Early War
    /// deck at setup, the discards when the deck is empty (§4.3; by then the remaining cards have
    /// all been dealt, §4.3.1), and the Mid and Late War cards with the remaining deck (§4.4).
    /// The order before shuffling is fixed (new cards in number order under the remaining deck),
    /// so the result depends only on the seed; scripted randomness keeps that order.
    pub fn shuffle_into_deck(&mut self, cards: CardSet) {
        let mut v: Vec<CardId> = cards.iter().collect();
        v.extend(self.st.deck.iter().copied());
        self.st.rng.shuffle(&mut v);
        self.st.deck = v;
        self.report.random.push(RandomOutcome::Shuffle { order: self.st.deck.clone() });
    }

    /// Apply one instruction (a base rule's or bookkeeping), then let lasting effects react
    /// until quiet.
    pub fn exec(&mut self, i: Instr) {
        self.exec_because(i, Cause::Rule);
    }

    /// Apply one instruction with its cause: the effects in play may first cancel it (Nuclear
    /// Subs spares a coup's DEFCON drop) or replace it, and the log says why.
    #[inline]
    pub fn exec_because(&mut self, i: Instr, cause: Cause) {
        if self.st.outcome.is_some() {
            return;
        }
        if !self.st.effects.is_empty() {
            if let Some((card, v)) = self.intercept(&[], &Intent::Instr { instr: &i, cause }, &[]) {
                self.overruled(card, v);
                return;
            }
        }
        self.apply(i);
        self.drain();
    }

    /// Push `t` unless an effect in play cancels or replaces it (Bear Trap, Quagmire replace the
    /// trapped side's card play).
    pub fn push_offered(&mut self, t: Task) {
        // No effect in play may answer a task (what `offer` would find, asked first): pushed as
        // is (every action round offers its card play).
        if self.st.effects.is_empty() || (!self.rules.checks_interest() && self.in_play.0 & self.rules.askers(&Intent::Task(&t)).0 == 0) {
            return self.push(t);
        }
        self.offer(t, &mut Vec::new());
    }

    /// Offer `t` to the effects that have not answered yet. A replacement is offered in turn
    /// to the others: an obligation narrows a round's card play to one card (Missile Envy),
    /// then a trap replaces that play with a discard of that card (Bear Trap, Quagmire; FAQ).
    fn offer(&mut self, t: Task, answered: &mut Vec<CardId>) {
        match self.intercept(&[], &Intent::Task(&t), answered) {
            Some((card, Verdict::Replace(tasks, why))) => {
                // Named for the log only: quiet play composes nothing.
                if self.logging {
                    let line = format!("{} {why}", self.card_name(card));
                    self.log(line);
                }
                answered.push(card);
                for t in tasks {
                    self.offer(t, answered);
                }
            }
            Some((card, v)) => self.overruled(card, v),
            None => self.push(t),
        }
    }

    /// The first objection of the effects in play (and `extra`, the revealed headline cards)
    /// but `answered` to `what` (`Position::intercept_except`: only the effects that declared
    /// an interest in it are asked). Under the interest check (`Ruleset::check_interest`) the
    /// others are asked too, and one that does not allow it is an engine fault.
    #[inline]
    pub fn intercept(&mut self, extra: &[Effect], what: &Intent, answered: &[CardId]) -> Option<(CardId, Verdict)> {
        // The usual answer, inline at every call (instructions, tasks, events): no effect in
        // play declared an interest in `what`.
        if !self.rules.checks_interest() && (self.in_play.0 | effect_cards(extra).0) & self.rules.askers(what).0 == 0 {
            return None;
        }
        self.intercept_asked(extra, what, answered)
    }

    /// [`Ctx::intercept`] once an effect in play may answer (or under the interest check).
    #[inline(never)]
    fn intercept_asked(&mut self, extra: &[Effect], what: &Intent, answered: &[CardId]) -> Option<(CardId, Verdict)> {
        let checking = self.rules.checks_interest();
        let found = self.pos().intercept_except(extra, what, answered);
        if checking {
            self.check_in_play();
            if let Some(card) = self.pos().undeclared_objection(extra, what, answered) {
                let why = format!("{} objects to {what:?}, outside its declared interest (Lasting::interest)", self.card_name(card));
                self.fault(why);
            }
        }
        found
    }

    /// Carry out an interception's verdict and log it: "CARD" followed by the verdict's reason,
    /// a verb phrase ("cancels the USSR headline: …").
    pub fn overruled(&mut self, card: CardId, v: Verdict) {
        let name = self.card_name(card).to_string();
        match v {
            Verdict::Allow => {}
            Verdict::Cancel(why) => log!(self, "{name} {why}"),
            Verdict::Replace(tasks, why) => {
                log!(self, "{name} {why}");
                self.st.stack.extend(tasks);
            }
        }
    }

    /// Draw the top card of the deck into `side`'s hand (§4.5B), rebuilding an empty deck from
    /// the discards first (§4.3). `None` when no card remains.
    pub fn draw(&mut self, side: Side) -> Option<CardId> {
        if self.st.deck.is_empty() {
            self.reshuffle_discards();
        }
        let card = self.st.deck.pop()?;
        self.st.hands[side.idx()].insert(card);
        self.report.random.push(RandomOutcome::Draw { side, card });
        crate::log_private!(self, side, "{side} draws {}", self.card_name(card));
        self.emit(DomainEvent::CardToHand { side, card });
        Some(card)
    }

    /// §4.3: the discard pile becomes the new deck, shuffled.
    pub fn reshuffle_discards(&mut self) {
        let discards = std::mem::take(&mut self.st.discard);
        if discards.is_empty() {
            return;
        }
        log!(self, "The deck is empty: {} discarded cards are shuffled into a new deck (§4.3)", discards.len());
        self.shuffle_into_deck(discards);
    }

    /// Shuffle the draw pile (a random order, recorded).
    pub fn shuffle_deck(&mut self) {
        self.shuffle_into_deck(CardSet::default());
    }

    /// Announce a domain event (instructions announce their own).
    pub fn emit(&mut self, ev: DomainEvent) {
        self.raise(ev);
        self.drain();
    }

    /// Queue `ev` for the effects in play to react to, unless none of them may hear it and it
    /// would be handled at once, before any effect could enter play: outside a reaction with
    /// nothing queued, the next `drain` handles it first and finds no hearer (it skips it), so
    /// leaving it out changes nothing (most domain events concern no effect in play; queueing
    /// and dequeuing each would cost time at every move). Under the interest check every event is
    /// queued: every effect is asked.
    fn raise(&mut self, ev: DomainEvent) {
        if self.reactions.is_idle() && !self.rules.checks_interest() && self.in_play.0 & self.rules.hearers(ev.kind()).0 == 0 {
            return;
        }
        self.reactions.raise(ev);
    }

    /// The effects in play react to what happened until quiet (the kernel's protocol: an event
    /// raised by a reaction waits for its turn).
    #[inline]
    fn drain(&mut self) {
        // Nothing queued (the usual case: `raise` leaves out what no effect hears): nothing to
        // do, whether or not a reaction is running.
        if self.reactions.is_empty() {
            return;
        }
        self.drain_queued();
    }

    fn drain_queued(&mut self) {
        if !self.reactions.begin() {
            return;
        }
        let checking = self.rules.checks_interest();
        while let Some(ev) = self.reactions.next() {
            // Only the effects that declared an interest in this kind of event react
            // (`Interest`); most events concern none of the effects in play.
            let hearers = self.rules.hearers(ev.kind());
            if checking {
                self.check_in_play();
            } else if self.in_play.0 & hearers.0 == 0 {
                continue;
            }
            // The effects in play when the event happened, in order (a reaction may add or
            // remove effects); on the stack, since this runs for every domain event.
            let mut buf = arrayvec::ArrayVec::<Effect, 40>::new();
            let spill: Vec<Effect> = match buf.try_extend_from_slice(&self.st.effects) {
                Ok(()) => Vec::new(),
                Err(_) => self.st.effects.clone(),
            };
            let snapshot: &[Effect] = if spill.is_empty() { &buf } else { &spill };
            let before = self.effects_changed;
            for e in snapshot {
                if self.st.outcome.is_some() {
                    break;
                }
                let heard = hearers.contains(e.card);
                if !heard && !checking {
                    continue;
                }
                // An earlier reaction may have removed this effect.
                if self.effects_changed != before && !self.st.effects.iter().any(|x| x.card == e.card) {
                    continue;
                }
                let Some(h) = self.rules.get_lasting(e.card) else { continue };
                if heard {
                    h.react(self, e, &ev);
                } else {
                    self.react_undeclared(h, e, &ev);
                }
            }
        }
    }

    /// The interest check: the cards kept in `in_play` are those of the effects in play.
    fn check_in_play(&mut self) {
        if self.in_play != effect_cards(&self.st.effects) {
            self.fault(format!("the effects kept in play {:?} are not the state's {:?}", self.in_play, self.st.effects));
        }
    }

    /// The interest check's side of `drain`: `h` reacts to an event it did not declare an
    /// interest in, which must change nothing (no state, log, randomness, event or fault).
    fn react_undeclared(&mut self, h: &dyn crate::registry::Lasting, e: &Effect, ev: &DomainEvent) {
        let st = self.st.clone();
        let seen = (self.report.log.len(), self.report.random.len(), self.report.revealed, self.reactions.len(), self.fault.is_some());
        h.react(self, e, ev);
        let after = (self.report.log.len(), self.report.random.len(), self.report.revealed, self.reactions.len(), self.fault.is_some());
        if *self.st != st || after != seen {
            let why = format!("{} reacts to {ev:?}, outside its declared interest (Lasting::interest)", self.card_name(e.card));
            self.fault(why);
        }
    }

    fn apply(&mut self, i: Instr) {
        match i {
            Instr::AddInfluence { side, country, n } => {
                if n == 0 {
                    return;
                }
                // Read for the log line only: quiet play (random playouts) skips it.
                let before = self.logging.then(|| self.influence_text(country));
                // A physical limit far above any reachable count; saturating so that nothing wraps
                // (release builds check overflow too).
                let cell = &mut self.st.influence[country.idx()][side.idx()];
                let had = *cell;
                *cell = cell.saturating_add(n).min(MAX_INFLUENCE);
                let added = *cell - had;
                self.st.refresh_country(country);
                if let Some(before) = before {
                    self.log_influence(country, before, format!("{side} +{added}"));
                }
            }
            Instr::RemoveInfluence { side, country, n } => {
                let have = self.st.inf(side, country);
                let n = n.min(have);
                if n == 0 {
                    return;
                }
                let before = self.logging.then(|| self.influence_text(country));
                self.st.influence[country.idx()][side.idx()] -= n;
                self.st.refresh_country(country);
                if let Some(before) = before {
                    self.log_influence(country, before, format!("{side} -{n}"));
                }
            }
            Instr::ChangeDefcon(d) => {
                let to = (self.st.defcon as i8).saturating_add(d).clamp(1, 5) as u8;
                self.set_defcon(to);
            }
            Instr::SetDefcon(to) => self.set_defcon(to.clamp(1, 5)),
            Instr::Vp { side, n } => self.change_vp(side.vp_sign() * n as i32),
            Instr::VpNet(d) => self.change_vp(d),
            Instr::MilOps { side, n } => {
                let s = &mut self.st.mil_ops[side.idx()];
                let before = *s;
                *s = s.saturating_add(n).min(5); // the track runs 0–5 (§8.2)
                let after = *s;
                log!(self, "{side} military ops {before} -> {after}");
            }
            Instr::ResetMilOps => self.st.mil_ops = [0, 0],
            Instr::SpaceAttempt { side } => {
                let a = &mut self.st.space_attempts[side.idx()];
                *a = a.saturating_add(1);
            }
            Instr::SpaceAdvance { side, boxes } => {
                let from = self.st.space[side.idx()];
                let to = from.saturating_add(boxes).min(8);
                for b in from + 1..=to {
                    self.st.space[side.idx()] = b;
                    let first = self.st.space_first[(b - 1) as usize].is_none();
                    if first {
                        self.st.space_first[(b - 1) as usize] = Some(side);
                    }
                    let (name, vp1, vp2) = crate::space_race::BOXES[(b - 1) as usize].name_vp();
                    let vp = if first { vp1 } else { vp2 };
                    let paid = if b == to { vp } else { 0 };
                    let passed = if b == to || vp == 0 { String::new() } else { " (passed: no VP)".into() };
                    log!(self, "{side} space race -> box {b} ({name}){}{passed}", if first { ", first to arrive" } else { "" });
                    if paid > 0 {
                        self.change_vp(side.vp_sign() * paid as i32);
                    }
                }
            }
            Instr::MoveCard { card, to } => self.move_card(card, to),
            Instr::GiveOpenly { card, side } => {
                self.move_card(card, Pile::Hand(side));
                self.st.known[side.idx()].insert(card);
            }
            Instr::PassChina { to, face_up } => {
                let same = self.st.china.holder == to;
                self.st.china = crate::state::China { holder: to, face_up };
                if same {
                    log!(self, "The China Card ({to}) is turned face {}", if face_up { "up" } else { "down" });
                } else {
                    log!(self, "The China Card passes to {to}, face {}", if face_up { "up" } else { "down" });
                }
            }
            Instr::AddEffect(e) => {
                if self.rules.checks_interest() {
                    self.check_shape(&e);
                }
                if !self.st.has_effect(e.card) {
                    self.effects_changed = self.effects_changed.wrapping_add(1);
                    self.st.effects_version.0 = self.st.effects_version.0.wrapping_add(1);
                    self.st.effects.push(e);
                    self.in_play.insert(e.card);
                    log!(self, "{} is now in effect", self.card_name(e.card));
                }
            }
            Instr::RemoveEffect(c) => {
                let Some(i) = self.st.effects.iter().position(|e| e.card == c) else { return };
                self.effects_changed = self.effects_changed.wrapping_add(1);
                self.st.effects_version.0 = self.st.effects_version.0.wrapping_add(1);
                let e = self.st.effects.remove(i);
                self.in_play.remove(c);
                log!(self, "{} is no longer in effect", self.card_name(c));
                if e.keeps_card && self.st.table.contains(c) {
                    self.move_card(c, Pile::Discard);
                    log!(self, "{} is discarded", self.card_name(c));
                }
            }
            Instr::Reveal { whose, cards, public } => {
                if cards.is_empty() {
                    return;
                }
                // The cards named for the log only: quiet play composes nothing.
                if self.logging {
                    let names: Vec<&str> = cards.iter().map(|c| self.rules.cards.name(c)).collect();
                    let line = format!(
                        "The {whose} reveals {} to the {}: {}",
                        if public { "cards" } else { "cards privately" },
                        whose.opponent(),
                        names.join(", ")
                    );
                    if public {
                        self.log(line);
                    } else {
                        self.log(format!("The {whose} shows {} card(s) to the {}", cards.len(), whose.opponent()));
                        self.log_private(whose.opponent(), line);
                    }
                }
                let held = self.st.hands[whose.idx()];
                self.st.known[whose.idx()].0 |= cards.0 & held.0;
                self.reveal();
            }
            Instr::SetEffectMemo { card, memo } => {
                if let Some(e) = self.st.effects.iter_mut().find(|e| e.card == card) {
                    self.effects_changed = self.effects_changed.wrapping_add(1);
                    self.st.effects_version.0 = self.st.effects_version.0.wrapping_add(1);
                    e.memo = memo;
                    let e = *e;
                    if self.rules.checks_interest() {
                        self.check_shape(&e);
                    }
                }
            }
            Instr::EndGame(o) => {
                log!(self, "Game over: {o}");
                self.st.outcome = Some(o);
            }
        }
    }

    /// The declaration check (with the interest check): an effect that does not have its card's
    /// declared shape (`Lasting::shape`) is an engine fault.
    fn check_shape(&mut self, e: &crate::effect::Effect) {
        match self.rules.shape(e.card) {
            Some(shape) if shape.fits(e) => {}
            Some(shape) => {
                let why = format!("{} enters play as {e:?}, not its declared shape {shape:?} (Lasting::shape)", self.card_name(e.card));
                self.fault(why);
            }
            None => {
                let why = format!("{} enters play but declares no effect (Lasting::shape)", self.card_name(e.card));
                self.fault(why);
            }
        }
    }

    fn influence_text(&self, c: CountryId) -> (u8, u8, Option<Side>) {
        (self.st.inf(Side::Us, c), self.st.inf(Side::Ussr, c), self.st.controller(c))
    }

    fn log_influence(&mut self, c: CountryId, before: (u8, u8, Option<Side>), what: String) {
        let after = self.influence_text(c);
        let ctl = |o: Option<Side>| o.map(|s| format!("{s} control")).unwrap_or_else(|| "uncontrolled".into());
        let mut line = format!("{}: {what} (US/USSR {}/{} -> {}/{})", Map::standard().name(c), before.0, before.1, after.0, after.1);
        if before.2 != after.2 {
            line.push_str(&format!("; {} -> {}", ctl(before.2), ctl(after.2)));
        }
        self.log(line);
    }

    fn set_defcon(&mut self, to: u8) {
        let from = self.st.defcon;
        if from == to {
            return;
        }
        self.st.defcon = to;
        log!(self, "DEFCON {from} -> {to}");
        if to == 1 {
            // §8.1.3: the phasing player loses, whoever caused it.
            let loser = self.st.phasing;
            self.apply(Instr::EndGame(Outcome { winner: Some(loser.opponent()), reason: EndReason::Defcon1 }));
            return;
        }
        self.raise(DomainEvent::DefconChanged { from, to });
    }

    fn change_vp(&mut self, d: i32) {
        if d == 0 {
            return;
        }
        let before = self.st.vp as i32;
        let after = (before + d).clamp(-127, 127);
        self.st.vp = after as i8;
        let who = if d > 0 { Side::Us } else { Side::Ussr };
        log!(self, "{who} +{} VP (VP {} -> {})", d.abs(), vp_text(before), vp_text(after));
    }

    fn move_card(&mut self, card: CardId, to: Pile) {
        let st = &mut *self.st;
        match st.locate(card) {
            Pile::Deck => st.deck.retain(|c| *c != card),
            Pile::Hand(s) => {
                st.hands[s.idx()].remove(card);
                st.known[s.idx()].remove(card);
            }
            Pile::Discard => {
                st.discard.remove(card);
            }
            Pile::Table => {
                st.table.remove(card);
            }
            Pile::Removed => {
                st.removed.remove(card);
            }
            Pile::Reserve => {
                st.reserve.remove(card);
            }
            Pile::Headline(s) => st.headline[s.idx()] = None,
            Pile::InPlay => st.in_play.retain(|p| p.card != card),
            Pile::ChinaHolder | Pile::OutOfGame => {}
        }
        match to {
            Pile::Deck => st.deck.push(card),
            Pile::Hand(s) => {
                st.hands[s.idx()].insert(card);
                self.raise(DomainEvent::CardToHand { side: s, card });
            }
            Pile::Discard => st.discard.insert(card),
            Pile::Removed => st.removed.insert(card),
            Pile::Reserve => st.reserve.insert(card),
            Pile::Table => st.table.insert(card),
            Pile::Headline(s) => st.headline[s.idx()] = Some(card),
            Pile::InPlay => st.in_play.push(InPlay { card, side: st.phasing, event_fired: false }),
            Pile::ChinaHolder | Pile::OutOfGame => {}
        }
    }

    /// Put a card in play for `side` (it becomes a current card until disposed of).
    pub fn put_in_play(&mut self, card: CardId, side: Side) {
        if card == CardId::CHINA {
            self.st.in_play.push(InPlay { card, side, event_fired: false });
            return;
        }
        self.move_card(card, Pile::InPlay);
        if let Some(p) = self.st.in_play.iter_mut().find(|p| p.card == card) {
            p.side = side;
        }
    }

    /// Carry out `card`'s event for `side` (§5.2): checks prevention and prerequisites (card
    /// data and text), lets the effects in play intercept it, checks the card's condition,
    /// marks the card so a starred card is removed at disposal, and ends the effects the card
    /// cancels (card data). A card with no registered event is an engine fault, not a no-op.
    pub fn resolve_event(&mut self, card: CardId, side: Side) {
        // The rules outlive the context: the name is borrowed, not copied (this runs for
        // every event, in quiet play too).
        let rules = self.rules;
        let name = rules.cards.name(card);
        let Some(h) = rules.get_event(card) else {
            // Every card has its event (`Ruleset::missing_events` is empty for the standard
            // rules, a test keeps it so): a missing one is an engine fault, never a silent no-op.
            return self.fault(format!("no event is registered for {name}"));
        };
        // Asked only of a card that has a prerequisite or a preventing or required card: for
        // the others it is always `Ok` (`Ruleset::unconditional`).
        if !rules.unconditional().contains(card) {
            if let Err(why) = self.pos().event_allowed(card, side) {
                log!(self, "Event of {name} does not occur: {why}");
                return;
            }
        }
        let intent = Intent::Event { card, side, headline: self.st.round == 0 };
        if let Some((by, v)) = self.intercept(&[], &intent, &[]) {
            self.overruled(by, v);
            return;
        }
        if let Err(why) = h.condition(self.pos(), side, crate::registry::Words::when(self.logging)) {
            log!(self, "Event: {name} ({side}) has no effect: {why}; the card is discarded, not removed (§5.2, FAQ)");
            return;
        }
        if let Some(p) = self.st.in_play.iter_mut().find(|p| p.card == card) {
            p.event_fired = true;
        }
        log!(self, "Event: {name} ({side})");
        self.report.events.push(card);
        for c in &rules.cards.info(card).cancels {
            self.exec_because(Instr::RemoveEffect(*c), Cause::Event(card));
        }
        self.emit(DomainEvent::EventResolved { side, card });
        h.resolve(self, side);
    }

    /// Dispose of a card in play (§5 card disposal): removed if starred and its event took
    /// place, kept in front of its owner while its effect says so, the China Card passes face
    /// down (§9.3), otherwise discarded. A card an event already moved elsewhere is left alone,
    /// so disposal never acts twice.
    pub fn dispose(&mut self, card: CardId) {
        let Some(i) = self.st.in_play.iter().position(|p| p.card == card) else {
            return;
        };
        let p = self.st.in_play.remove(i);
        if card == CardId::CHINA {
            self.exec(Instr::PassChina { to: p.side.opponent(), face_up: false });
            return;
        }
        let info = self.rules.cards.info(card);
        // Only a card with an effect in play (`in_play`, the effects' cards) can be kept.
        let kept = self.in_play.contains(card) && self.st.effects.iter().any(|e| e.card == card && e.keeps_card);
        let to = if kept {
            Pile::Table
        } else if info.starred && p.event_fired {
            Pile::Removed
        } else {
            Pile::Discard
        };
        self.st.discard.remove(card);
        match to {
            Pile::Removed => self.st.removed.insert(card),
            Pile::Table => self.st.table.insert(card),
            _ => self.st.discard.insert(card),
        }
        let what = match to {
            Pile::Removed => "removed from the game",
            Pile::Table => "kept in front of its player while its effect lasts",
            _ => "discarded",
        };
        log!(self, "{} is {what}", info.name);
    }
}

/// The China Card's own +1 when all its Ops are spent in Asia (§9.6): a base rule.
fn china_modifier(card: CardId, side: Side) -> Option<pipeline::OpsModifier> {
    (card == CardId::CHINA).then(|| pipeline::OpsModifier {
        source: pipeline::Source::Card(CardId::CHINA),
        stage: pipeline::OpsStage::ChinaCard,
        beneficiary: side,
        condition: pipeline::OpsCondition::AllInAsia,
        add: 1,
        cap: None,
        floor: None,
    })
}

fn card_ops_modifiers(p: Position, card: CardId, side: Side) -> Vec<pipeline::OpsModifier> {
    let mut mods: Vec<pipeline::OpsModifier> = china_modifier(card, side).into_iter().collect();
    mods.extend(p.ops_modifiers());
    mods
}

/// Ops value of `card` played by `side`, with its trace: the China Card's own +1 (§9.6), then
/// the modifiers of effects in play (§7.4).
pub fn ops_value(p: Position, card: CardId, side: Side, spend: Spend) -> Traced {
    pipeline::ops_value(p.cards().info(card).ops, side, &card_ops_modifiers(p, card, side), spend, p.cards())
}

/// The same value without the trace (legality checks).
pub fn ops_number(p: Position, card: CardId, side: Side, spend: Spend) -> i32 {
    ops_number_with(p, &p.ops_modifiers(), card, side, spend)
}

/// `cards` in the groups whose cards `ops_number_with` cannot tell apart: it reads of a card
/// only its printed Ops and whether it is The China Card, so a judgement of the Ops value made
/// on one card of a group holds for the whole group (the space race's, listing a card play).
pub fn ops_groups<'a>(p: Position<'a>, cards: CardSet) -> impl Iterator<Item = CardSet> + 'a {
    let mut china = CardSet::default();
    if cards.contains(CardId::CHINA) {
        china.insert(CardId::CHINA);
    }
    let others = CardSet(cards.0 & !china.0);
    p.cards().by_ops().iter().map(move |g| CardSet(others.0 & g.0)).chain(std::iter::once(china)).filter(|g| !g.is_empty())
}

/// `ops_number` with the effects' modifiers already collected (one decision judges many cards).
pub fn ops_number_with(p: Position, effect_mods: &[pipeline::OpsModifier], card: CardId, side: Side, spend: Spend) -> i32 {
    let base = p.cards().info(card).ops;
    match china_modifier(card, side) {
        Some(china) => pipeline::ops_number(base, side, std::slice::from_ref(&china).iter().chain(effect_mods), spend),
        None => pipeline::ops_number(base, side, effect_mods.iter(), spend),
    }
}

pub fn vp_text(v: i32) -> String {
    match v.cmp(&0) {
        std::cmp::Ordering::Greater => format!("US {v}"),
        std::cmp::Ordering::Less => format!("USSR {}", -v),
        std::cmp::Ordering::Equal => "0".into(),
    }
}

/// `log!(ctx, "format", args…)`: a public log line, composed only when logging is on.
#[macro_export]
macro_rules! log {
    ($ctx:expr, $($fmt:tt)+) => {
        if $ctx.logging {
            $ctx.log(format!($($fmt)+))
        }
    };
}

/// `log_private!(ctx, side, "format", args…)`: a line only `side` may read.
#[macro_export]
macro_rules! log_private {
    ($ctx:expr, $side:expr, $($fmt:tt)+) => {
        if $ctx.logging {
            $ctx.log_private($side, format!($($fmt)+))
        }
    };
}

/// The cards of `effects`, as a set.
pub(crate) fn effect_cards(effects: &[Effect]) -> CardSet {
    CardSet(effects.iter().fold(0, |m, e| m | 1u128 << e.card.0))
}
