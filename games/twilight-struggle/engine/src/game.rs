//! [`Game`]: a position plus the ruleset, offering `decision()`, `legal_moves()` and
//! `play(m) -> Result<Report, PlayError>`. A rejected move changes nothing.

use crate::card::{CardId, CardSet, Era};
use crate::ctx::{Carried, Ctx};
use crate::error::{ParseError, PlayError};
use crate::flow::{self, Decision, Listing, Task};
use crate::map::Map;
use crate::moves::{Move, Notation};
use crate::registry::{Position, Ruleset};
use crate::report::Report;
use crate::rng::Randomness;
use crate::side::Side;
use crate::state::{China, Options, Outcome, State};
use crate::view::View;
use std::sync::{Arc, OnceLock};

#[derive(Clone)]
pub struct Game {
    rules: Arc<Ruleset>,
    state: State,
    /// What the context of the last move left for the next, lent to it in place
    /// ([`Carried`]): the legal moves of the pending decision, as its arbitrator listed them
    /// when the game reached it (derived from `state`; not part of it), in the listing's own
    /// form (`check` asks it, a random playout picks from it by index); the reaction queue,
    /// empty between moves (each move would otherwise allocate its own at its first domain
    /// event); the access mask the last Ops listing kept
    /// (`ops::KeptAccess`: each Op of a card would otherwise fold it again).
    carried: Carried,
    /// The listing written out, the first time a caller asks for the list as a slice
    /// ([`Game::legal`]): most decisions of a random playout never are.
    written: OnceLock<Vec<Move>>,
    /// Who decides there, found with the legal moves (`flow::listing`); `None` when the game
    /// stopped without listing (over, or a move refused), and then asked afresh.
    decider: Option<Side>,
    /// The cards of the state's effects in play, as the context of the last move kept them
    /// (`Ctx::kept`): the next move's context starts from them instead of reading every effect.
    in_play: CardSet,
    /// The report a move played through the kernel's contract without words fills
    /// (`Match::play_quiet`: the computer's search, the Python batch), kept empty between
    /// moves so that each does not allocate its own (as [`Game::play_quiet_into`]'s caller).
    pub(crate) quiet: Report,
}

impl Game {
    /// A new game: fixed setup Influence (§3.2, §3.3), the Early War deck shuffled and dealt,
    /// then the first decision (the USSR's 6 Influence in Eastern Europe).
    pub fn new(rules: Arc<Ruleset>, options: Options, rng: Randomness) -> (Game, Report) {
        Game::start(rules, options, rng, true)
    }

    /// The same new game as [`Game::new`] (the same state, the same first decision), without
    /// composing its log (random playouts and benchmarks: the opening deal's lines were 1 % of
    /// `arbiter bench`, composed to be dropped).
    pub fn new_quiet(rules: Arc<Ruleset>, options: Options, rng: Randomness) -> Game {
        Game::start(rules, options, rng, false).0
    }

    fn start(rules: Arc<Ruleset>, options: Options, rng: Randomness, logging: bool) -> (Game, Report) {
        let state = State::initial(&rules, options, rng);
        Game::run_from(rules, state, logging, |ctx| {
            let early = ctx.rules.era_cards(Era::Early, options.optional_cards);
            ctx.shuffle_into_deck(early);
        })
    }

    /// A game from any state (fixtures, saved games). Runs automatic tasks up to a decision.
    pub fn from_state(rules: Arc<Ruleset>, mut state: State) -> (Game, Report) {
        state.refresh_masks();
        // The effects may have been edited by hand: no value kept from them holds.
        state.effects_version.0 = state.effects_version.0.wrapping_add(1);
        Game::run_from(rules, state, true, |_| {})
    }

    /// A game on `state`: `first` runs in its context, then the automatic tasks up to a
    /// decision, and the game keeps what that run listed (the moves, their decider, the effects
    /// in play), as after every move.
    fn run_from(rules: Arc<Ruleset>, state: State, logging: bool, first: impl FnOnce(&mut Ctx)) -> (Game, Report) {
        let mut g = Game {
            rules,
            state,
            carried: Carried::default(),
            written: OnceLock::new(),
            decider: None,
            in_play: CardSet::default(),
            quiet: Report::default(),
        };
        let mut report = Report::default();
        {
            let mut ctx = Ctx::new(&g.rules, &mut g.state, &mut report, &mut g.carried);
            ctx.logging = logging;
            first(&mut ctx);
            flow::run(&mut ctx);
            g.decider = ctx.decider.take();
            g.in_play = ctx.effects_in_play();
        }
        // Nothing pending carries over to the first move.
        g.carried.reactions.clear();
        (g, report)
    }

    pub fn rules(&self) -> &Arc<Ruleset> {
        &self.rules
    }
    pub fn state(&self) -> &State {
        &self.state
    }
    pub fn pos(&self) -> Position<'_> {
        Position { rules: &self.rules, st: &self.state }
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.state.outcome
    }
    pub fn hash64(&self) -> u64 {
        self.state.hash64()
    }

    /// The pending decision: who decides, the prompt, and the complete list of legal moves.
    pub fn decision(&self) -> Option<Decision> {
        let t = self.state.stack.last()?;
        if self.state.outcome.is_some() || !t.is_decision() {
            return None;
        }
        let p = self.pos();
        let side = self.decider.unwrap_or_else(|| flow::decider(p, t));
        Some(Decision { side, prompt: flow::prompt(p, t).for_viewer(Some(side), side), moves: self.legal().to_vec() })
    }

    pub fn to_move(&self) -> Option<Side> {
        let t = self.state.stack.last()?;
        (self.state.outcome.is_none() && t.is_decision()).then(|| self.decider.unwrap_or_else(|| flow::decider(self.pos(), t)))
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        self.legal().to_vec()
    }

    /// The legal moves as a list (written out at the first call at this decision).
    pub fn legal(&self) -> &[Move] {
        match &self.carried.legal {
            Listing::Moves(v) => v,
            Listing::Ops { .. } | Listing::Cards { .. } => self.written.get_or_init(|| self.carried.legal.to_vec()),
        }
    }

    /// The legal moves in the listing's own form: counted, taken by index or visited without
    /// writing the list (random playouts, the Python batch's action ids).
    pub fn listing(&self) -> &Listing {
        &self.carried.legal
    }

    /// The access mask the Ops listings keep from move to move (the invariant checks ask
    /// `ops::KeptAccess::agrees`).
    pub fn kept_access(&self) -> crate::ops::KeptAccess {
        self.carried.access
    }

    /// Is `m` legal? A listed move is (its arbitrator listed it); any other move is judged by
    /// the arbitrator again, for the reason it is refused.
    pub fn check(&self, m: &Move) -> Result<(), PlayError> {
        if self.state.outcome.is_none() && self.carried.legal.contains(m) {
            return Ok(());
        }
        if matches!(m, Move::Concede(_)) {
            // Not listed (no playout resigns), yet always open to the side deciding.
            return self.validate(m);
        }
        self.validate(m)?;
        // The arbitrator accepts what it did not list: an engine inconsistency, refused.
        Err(PlayError::Illegal {
            action: self.pos().move_text(m),
            why: crate::error::Illegal::new("not among the listed legal moves", "engine"),
        })
    }

    /// Ask the decision's arbitrator about `m`, ignoring the listed moves (tests compare the two).
    pub fn validate(&self, m: &Move) -> Result<(), PlayError> {
        if let Some(o) = self.state.outcome {
            return Err(PlayError::GameOver(o));
        }
        let p = self.pos();
        if !m.well_formed(p.cards()) {
            return Err(PlayError::Illegal { action: p.move_text(m), why: crate::error::Illegal::new("no such card or country", "§2") });
        }
        let t = match self.state.stack.last() {
            Some(t) if t.is_decision() => t,
            _ => {
                return Err(PlayError::Illegal {
                    action: p.move_text(m),
                    why: crate::error::Illegal::new("no decision is pending", "§4.5"),
                })
            }
        };
        if matches!(m, Move::Concede(_)) {
            return Ok(());
        }
        flow::check(p, t, m).map_err(|why| PlayError::Illegal { action: p.move_text(m), why })
    }

    /// Play a move: validate, apply on a copy, run to the next decision, then keep the result.
    pub fn play(&mut self, m: &Move) -> Result<Report, PlayError> {
        self.play_with(m, true)
    }

    /// The same as `play`, with the same validation, but without composing log text (random
    /// playouts and benchmarks). The resulting state is identical.
    pub fn play_quiet(&mut self, m: &Move) -> Result<Report, PlayError> {
        self.play_with(m, false)
    }

    /// `play_quiet` into `report`, which is emptied first: a caller playing many moves (a
    /// random playout) reuses one report's vectors instead of allocating a report per move.
    pub fn play_quiet_into(&mut self, m: &Move, report: &mut Report) -> Result<(), PlayError> {
        report.clear();
        self.check(m)?;
        self.apply_checked_into(m, false, report, |ctx, m| flow::apply(ctx, m))
    }

    fn play_with(&mut self, m: &Move, logging: bool) -> Result<Report, PlayError> {
        self.check(m)?;
        self.apply_checked(m, logging, |ctx, m| flow::apply(ctx, m))
    }

    /// The standing moves `side` may make now while another side decides: interjections
    /// ("at any time": cancelling the Cuban Missile Crisis during the opponent's round). Empty
    /// for the deciding side, whose standing moves are among its legal moves.
    pub fn interjections(&self, side: Side) -> Vec<Move> {
        flow::interjections(self.pos(), side)
    }

    /// Every side that must act now: the side deciding, then a side acting at the same time
    /// (a simultaneous step: both headlines, §4.5C). Empty when nobody decides.
    pub fn acting(&self) -> arrayvec::ArrayVec<Side, 2> {
        let mut v = arrayvec::ArrayVec::new();
        if let Some(d) = self.to_move() {
            v.push(d);
            v.extend(flow::at_once(self.pos()).filter(|s| *s != d));
        }
        v
    }

    /// The legal moves of `side` now: the decision's if it decides, its part of a simultaneous
    /// step if it acts beside the decider, otherwise none (its interjections aside).
    pub fn moves_for(&self, side: Side) -> Vec<Move> {
        match self.to_move() {
            Some(d) if d == side => self.legal_moves(),
            Some(_) => flow::moves_at_once(self.pos(), side),
            None => Vec::new(),
        }
    }

    /// The move of `side` at a simultaneous step, beside the side deciding (see
    /// [`Game::acting`]): validated like any move, a refused one changes nothing; the
    /// decider's decision stays pending.
    fn play_at_once(&mut self, side: Side, m: &Move) -> Result<Report, PlayError> {
        let p = self.pos();
        if !m.well_formed(p.cards()) {
            return Err(PlayError::Illegal { action: p.move_text(m), why: crate::error::Illegal::new("no such card or country", "§2") });
        }
        flow::check_at_once(p, side, m).map_err(|why| PlayError::Illegal { action: p.move_text(m), why })?;
        self.apply_checked(m, true, |ctx, m| flow::apply_at_once(ctx, side, m))
    }

    /// Make an interjection as `side` (see [`Game::interjections`]): validated like any move, a
    /// refused one changes nothing; the pending decision stays with the side deciding.
    pub fn interject(&mut self, side: Side, m: &Move) -> Result<Report, PlayError> {
        if let Some(o) = self.state.outcome {
            return Err(PlayError::GameOver(o));
        }
        let p = self.pos();
        if !m.well_formed(p.cards()) {
            return Err(PlayError::Illegal { action: p.move_text(m), why: crate::error::Illegal::new("no such card or country", "§2") });
        }
        flow::check_interjection(p, side, m).map_err(|why| PlayError::Illegal { action: p.move_text(m), why })?;
        self.apply_checked(m, true, |ctx, m| flow::apply_interjection(ctx, side, m))
    }

    /// A move by `side`: its decision's move if it is deciding, its part of a simultaneous step
    /// if it acts beside the decider, otherwise an interjection. The one entry point for a seat
    /// that may act out of turn (the store, the server, fixtures).
    pub fn play_as(&mut self, side: Side, m: &Move) -> Result<Report, PlayError> {
        if self.to_move() == Some(side) || self.state.outcome.is_some() {
            self.play(m)
        } else if flow::at_once(self.pos()) == Some(side) && !matches!(m, Move::Cancel { .. }) {
            self.play_at_once(side, m)
        } else {
            self.interject(side, m)
        }
    }

    /// Apply a validated move (by `apply`) and run to the next decision.
    fn apply_checked(&mut self, m: &Move, logging: bool, apply: impl FnOnce(&mut Ctx, &Move)) -> Result<Report, PlayError> {
        let mut report = Report::default();
        self.apply_checked_into(m, logging, &mut report, apply)?;
        Ok(report)
    }

    /// [`Game::apply_checked`], recording into `report` (empty).
    fn apply_checked_into(
        &mut self,
        m: &Move,
        logging: bool,
        report: &mut Report,
        apply: impl FnOnce(&mut Ctx, &Move),
    ) -> Result<(), PlayError> {
        // Nothing pending carries over from the move before (a game that ended mid-reaction,
        // a refused move).
        self.carried.reactions.clear();
        // A validated move can fail only if scripted randomness runs out: then it is applied
        // to copies of the state and of what the game carries between moves, kept only on
        // success. Seeded randomness never runs out: applied in place.
        let scripted = self.state.rng.is_scripted();
        let mut copy = scripted.then(|| (self.state.clone(), self.carried.clone()));
        let (st, carried) = match copy.as_mut() {
            Some((st, carried)) => (st, carried),
            None => (&mut self.state, &mut self.carried),
        };
        let (in_play, decider, exhausted, fault) = {
            let mut ctx = Ctx::kept(&self.rules, st, report, self.in_play, carried);
            ctx.logging = logging;
            apply(&mut ctx, m);
            flow::run(&mut ctx);
            (ctx.effects_in_play(), ctx.decider, ctx.exhausted.take(), ctx.fault.take())
        };
        // The effects of the state kept: changed in place, or the copy's if it is kept (as the
        // access mask, changed in place or kept with the copy: checked against the state at
        // every use, but keyed in part by the effects' version, `ops::KeptReading`, which a
        // discarded copy's other effects may have reached).
        if !scripted || (exhausted.is_none() && fault.is_none()) {
            self.in_play = in_play;
            // The listing changed with them (in place, or in the copy about to be kept): the
            // list written from the one before is stale, even on a refusal after a change in
            // place.
            self.written = OnceLock::new();
        }
        if let Some(why) = exhausted {
            return Err(PlayError::Randomness { action: self.pos().move_text(m), why });
        }
        if let Some(what) = fault {
            return Err(PlayError::Fault { action: self.pos().move_text(m), what });
        }
        // The run stopped at a decision (`Agenda::list` listed its moves in place) or at the
        // end of the game.
        self.decider = decider;
        if let Some((next, carried)) = copy {
            self.state = next;
            self.carried = carried;
        }
        if decider.is_none() {
            // The run stopped at no decision (the game is over): nothing is listed.
            self.carried.legal = Listing::default();
        }
        Ok(())
    }

    /// Parse a move in this position (see [`crate::moves`] for the notation).
    pub fn parse(&self, text: &str) -> Result<Move, ParseError> {
        // Names resolve by context: an ambiguous prefix means a card this decision can use.
        let prefer = self
            .legal()
            .iter()
            .filter_map(|m| match m {
                Move::Play { card, .. } | Move::Headline(card) | Move::Discard(card) | Move::Take(card) | Move::Cancel { card, .. } => {
                    Some(*card)
                }
                _ => None,
            })
            .collect();
        Move::parse(text, &Notation { prefer, ..self.pos().notation() })
    }
    pub fn move_text(&self, m: &Move) -> String {
        self.pos().move_text(m)
    }

    /// Asked after the last move, about that move (`text`, made by `by`): if `viewer` may not
    /// read it yet, what it reads instead. A headline choice is secret from the other side and
    /// observers until the headlines are revealed (§4.5C; at once under Man in Earth Orbit).
    pub fn hidden_move(&self, text: &str, by: Side, viewer: Option<Side>) -> Option<String> {
        let Ok(Move::Headline(card)) = self.parse(text) else { return None };
        let p = self.pos();
        let chosen = self.state.headline[by.idx()] == Some(card);
        (chosen && !crate::view::headline_visible(p, by, viewer))
            .then(|| "headline (a secret choice until both headlines are revealed)".to_string())
    }

    /// What `viewer` may see (`None` = an observer).
    pub fn view(&self, viewer: Option<Side>) -> View {
        View::new(self.pos(), viewer)
    }
}

impl State {
    /// The position before any decision: fixed setup Influence, the China Card face up with the
    /// USSR, later-era cards in reserve, and the setup task on the stack.
    pub fn initial(rules: &Ruleset, options: Options, rng: Randomness) -> State {
        let map = Map::standard();
        let mut influence = vec![[0u8; 2]; map.countries.len()];
        for s in Side::BOTH {
            for (c, n) in &map.setup_fixed[s.idx()] {
                influence[c.idx()][s.idx()] += n;
            }
        }
        let reserve = CardSet(rules.era_cards(Era::Mid, options.optional_cards).0 | rules.era_cards(Era::Late, options.optional_cards).0);
        let mut st = State {
            options,
            turn: 1,
            round: 0,
            phasing: Side::Ussr,
            defcon: 5,
            vp: 0,
            influence,
            masks_cache: Default::default(),
            mil_ops: [0; 2],
            space: [0; 2],
            space_attempts: [0; 2],
            space_first: [None; 8],
            china: China { holder: Side::Ussr, face_up: true },
            hands: Default::default(),
            deck: Vec::new(),
            discard: CardSet::default(),
            removed: CardSet::default(),
            reserve,
            headline: [None; 2],
            in_play: Vec::new(),
            effects: Vec::new(),
            effects_version: Default::default(),
            table: CardSet::default(),
            known: [CardSet::default(); 2],
            round_start_presence: [0; 2],
            stack: vec![Task::Setup],
            rng,
            outcome: None,
        };
        st.refresh_masks();
        st
    }

    /// Every card of the game, once: used by the invariant checks.
    pub fn card_census(&self, rules: &Ruleset) -> Result<(), String> {
        let mut seen = CardSet::default();
        let mut add = |c: CardId, w: &str| -> Result<(), String> {
            if seen.contains(c) {
                return Err(format!("{} is in two places (again in {w})", rules.cards.name(c)));
            }
            seen.insert(c);
            Ok(())
        };
        for c in &self.deck {
            add(*c, "deck")?;
        }
        for (set, w) in [
            (self.hands[0], "US hand"),
            (self.hands[1], "USSR hand"),
            (self.discard, "discard"),
            (self.removed, "removed"),
            (self.reserve, "reserve"),
            (self.table, "in front of its owner"),
        ] {
            for c in set.iter() {
                add(c, w)?;
            }
        }
        for c in self.headline.iter().flatten() {
            add(*c, "headline")?;
        }
        for p in &self.in_play {
            if p.card != CardId::CHINA {
                add(p.card, "in play")?;
            }
        }
        if seen.contains(CardId::CHINA) {
            return Err("The China Card is in a pile".into());
        }
        for info in rules.cards.all() {
            let expected = info.id != CardId::CHINA && (self.options.optional_cards || !info.optional);
            if expected != seen.contains(info.id) {
                return Err(format!("{} is {}", info.name, if expected { "missing" } else { "present but should not be" }));
            }
        }
        Ok(())
    }
}
