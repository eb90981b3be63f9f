//! Shapes shared by several cards. A card with one of these shapes is a value of it, not a
//! copy of its code.

use arbiter_twilight::card::CardSet;
use arbiter_twilight::ctx::Ctx;
use arbiter_twilight::effect::{Effect, Expiry};
use arbiter_twilight::instr::Instr;
use arbiter_twilight::map::{CountryId, Map, Region};
use arbiter_twilight::pipeline::{DieModifier, OpsCondition, OpsModifier, OpsStage, RollKind, Source, Spend};
use arbiter_twilight::registry::{Intent, Verdict};
use arbiter_twilight::state::Pile;
use arbiter_twilight::{log, steps};
use arbiter_twilight::{Ask, CardEvent, CardId, EventTask, Lasting, Move, NoStep, Position, Side, Task, Words};

// ---------------------------------------------------------------- scoring cards

/// A region's scoring card (§10.1): Asia, Europe, Middle East, Central and South America,
/// Africa.
pub struct RegionScoring(pub Region);

impl CardEvent for RegionScoring {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        arbiter_twilight::scoring::score_region(ctx, self.0, arbiter_twilight::ScoringTime::Card);
    }
}

/// Southeast Asia Scoring (#38): per-country VP, no tiers.
pub struct SoutheastAsiaScoring;

impl CardEvent for SoutheastAsiaScoring {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        arbiter_twilight::scoring::score_southeast_asia(ctx);
    }
}

// ---------------------------------------------------------------- turn-long modifiers

/// Relative to the effect's owner.
#[derive(Clone, Copy)]
pub enum Who {
    Owner,
    Opponent,
    Both,
}

impl Who {
    pub fn sides(self, owner: Side) -> &'static [Side] {
        match (self, owner) {
            (Who::Both, _) => &Side::BOTH,
            (Who::Owner, Side::Us) | (Who::Opponent, Side::Ussr) => &[Side::Us],
            _ => &[Side::Ussr],
        }
    }
}

pub struct OpsSpec {
    pub who: Who,
    pub stage: OpsStage,
    pub condition: OpsCondition,
    pub add: i8,
    pub cap: Option<u8>,
    pub floor: Option<u8>,
}

pub struct DieSpec {
    pub who: Who,
    pub kind: RollKind,
    pub regions: Option<&'static [Region]>,
    pub add: i8,
}

/// An event whose lasting part only modifies Ops values or die rolls for the rest of the turn
/// (Red Scare/Purge, Containment, Brezhnev Doctrine, Vietnam Revolts, Latin American Death
/// Squads, Iran-Contra Scandal, SALT Negotiations). `first` is what the event does at once.
pub struct Modifiers {
    pub card: CardId,
    pub ops: &'static [OpsSpec],
    pub dice: &'static [DieSpec],
    pub first: fn(&mut Ctx, Side),
}

pub fn nothing(_: &mut Ctx, _: Side) {}

impl Modifiers {
    pub fn start(&self, ctx: &mut Ctx, side: Side) {
        (self.first)(ctx, side);
        ctx.exec(Instr::AddEffect(Effect::new(self.card, side, Expiry::EndOfTurn)));
    }
}

impl CardEvent for Modifiers {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        self.start(ctx, side);
    }
}

impl Lasting for Modifiers {
    /// Neither intercepts nor reacts.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
    }
    fn ops_modifiers(&self, e: &Effect, out: &mut Vec<OpsModifier>) {
        for s in self.ops {
            for &b in s.who.sides(e.owner) {
                out.push(OpsModifier {
                    source: Source::Card(e.card),
                    stage: s.stage,
                    beneficiary: b,
                    condition: s.condition,
                    add: s.add,
                    cap: s.cap,
                    floor: s.floor,
                });
            }
        }
    }
    fn die_modifiers(&self, e: &Effect, out: &mut Vec<DieModifier>) {
        for s in self.dice {
            for &r in s.who.sides(e.owner) {
                out.push(DieModifier {
                    source: Source::Card(e.card),
                    roller: r,
                    kind: s.kind,
                    regions: s.regions.map(|x| x.to_vec()),
                    add: s.add,
                });
            }
        }
    }
}

// ---------------------------------------------------------------- placing / removing markers

/// "Add (or remove) N Influence in countries that…, at most K per country" (Decolonization,
/// Marshall Plan, Warsaw Pact Formed, NORAD). The event task counts markers left in `count`
/// and marks chosen countries in `picked`/`twice`.
pub struct Markers {
    /// Whose Influence changes.
    pub influence_of: Who,
    pub add: bool,
    pub total: u8,
    pub max_per_country: u8,
    /// The countries the card allows (for `side`, the side playing the event), as a set.
    pub eligible: fn(Position, Side) -> u128,
}

impl Markers {
    pub fn task(&self, card: CardId, side: Side, step: impl Into<u8>) -> EventTask {
        EventTask::new(card, side).at(step).count(self.total)
    }

    /// The countries that may take the next marker: eligible, below the most per country, and
    /// (removing) holding the Influence to remove.
    pub fn open(&self, p: Position, t: &EventTask) -> u128 {
        let whose = self.influence_of.sides(t.side)[0];
        let full = match self.max_per_country {
            0 => u128::MAX,
            1 => t.picked.countries().0,
            2 => t.twice.0,
            // Markers are counted at most twice per country (`picked`, `twice`).
            3.. => 0,
        };
        let holding = if self.add { u128::MAX } else { p.st.masks().presence[whose.idx()] };
        (self.eligible)(p, t.side) & !full & holding & Map::standard().all_mask()
    }

    pub fn options(&self, p: Position, t: &EventTask) -> Vec<Move> {
        let (add, open) = (self.add, self.open(p, t));
        // Sized once: collected from the mask's bits, the list grew by reallocating.
        let mut v = Vec::with_capacity(open.count_ones() as usize);
        v.extend(arbiter_twilight::map::iter_mask(open).map(|c| if add { Move::Influence(c) } else { Move::Remove(c) }));
        v
    }

    /// Apply one marker; returns the next task if markers remain.
    pub fn apply(&self, ctx: &mut Ctx, mut t: EventTask, m: &Move) -> Option<EventTask> {
        let c = match m {
            Move::Influence(c) | Move::Remove(c) => *c,
            _ => {
                ctx.unexpected(&t, m);
                return None;
            }
        };
        let side = self.influence_of.sides(t.side)[0];
        ctx.exec(if self.add { Instr::AddInfluence { side, country: c, n: 1 } } else { Instr::RemoveInfluence { side, country: c, n: 1 } });
        if t.picked.countries().contains(c) {
            t.twice.insert(c);
        }
        t.picked = t.picked.with_country(c);
        t.count = t.count.saturating_sub(1);
        (t.count > 0).then_some(t)
    }
}

pub fn in_region(c: CountryId, r: Region) -> bool {
    Map::standard().country(c).region == r
}

// ---------------------------------------------------------------- wars

/// A war event (§7.6): roll, minus 1 per enemy-controlled neighbour of the target (the enemy
/// superpower's space included, §2.1.5), and for some wars 1 more if the target itself is
/// enemy-controlled; on `min_roll`+ the attacker gains VP and replaces the enemy's Influence
/// with its own; military ops are gained win or lose.
pub struct War {
    pub min_roll: u8,
    pub vp: u8,
    pub mil_ops: u8,
    /// −1 more if the enemy controls the target itself (Arab-Israeli War, Deluxe text).
    pub target_counts: bool,
}

impl War {
    /// Resolve against `target` for `side`.
    pub fn fight(&self, ctx: &mut Ctx, side: Side, target: CountryId) {
        let map = Map::standard();
        let enemy = side.opponent();
        let country = map.country(target);
        // The enemy-controlled neighbours, as a set (named below in the order of the map).
        let controlled = country.adjacent.iter().filter(|a| ctx.st().controls(enemy, **a)).fold(0u128, |m, a| m | a.bit());
        // §2.1.5: the enemy superpower's space counts as an adjacent controlled country for
        // events (FAQ: Brush War against a country next to it).
        let next_to_enemy = country.superpower == Some(enemy);
        let neighbours = controlled.count_ones() as usize + usize::from(next_to_enemy);
        let held = self.target_counts && ctx.st().controls(enemy, target);
        let roll = ctx.die(side);
        let total = roll as i32 - neighbours as i32 - i32::from(held);
        let won = total >= self.min_roll as i32;
        // The neighbours named for the log only: quiet play composes nothing.
        if ctx.logging {
            let name = map.name(target);
            let mut names: Vec<&str> = country.adjacent.iter().filter(|a| controlled & a.bit() != 0).map(|a| map.name(*a)).collect();
            if next_to_enemy {
                names.push(if enemy == Side::Us { "USA" } else { "USSR" });
            }
            let mut mods = if names.is_empty() {
                String::new()
            } else {
                format!(" - {} {enemy}-controlled neighbour(s) ({})", names.len(), names.join(", "))
            };
            if held {
                mods.push_str(&format!(" - 1 ({name} itself is {enemy}-controlled)"));
            }
            ctx.log(format!(
                "War in {name}: {side} rolls {roll}{mods} = {total}; needs {}+: {}",
                self.min_roll,
                if won { "victory" } else { "defeat" }
            ));
        }
        ctx.exec(Instr::MilOps { side, n: self.mil_ops });
        if won {
            let n = ctx.st().inf(enemy, target);
            ctx.exec(Instr::RemoveInfluence { side: enemy, country: target, n });
            ctx.exec(Instr::AddInfluence { side, country: target, n });
            ctx.exec(Instr::Vp { side, n: self.vp });
        }
    }
}

// ---------------------------------------------------------------- traps

steps! {
    /// The trapped side's replaced action round.
    pub enum TrapStep { Escape }
}

/// Bear Trap / Quagmire: each action round of the trapped side is replaced (an interception
/// of its card play): discard a card worth 2+ Ops (modified, §7.4.2) and roll 1–4 to escape;
/// with no such card, the round passes. Scoring cards may always be played instead, because
/// no card can force a player to hold a scoring card (§10.1.5, which card text does not
/// override, §5.5). A round's play already narrowed to one card by an obligation (Missile
/// Envy: "must play this card next round") narrows the discard to that card (FAQ): the escape
/// step keeps the allowed cards in `EventTask::picked` (empty: any card of the hand).
pub struct Trap {
    pub card: CardId,
    pub victim: Side,
}

impl Trap {
    fn discards(p: Position, t: &EventTask) -> Vec<CardId> {
        let narrowed = t.picked.cards();
        p.st.hand(t.side)
            .iter()
            .filter(|c| {
                let info = p.cards().info(*c);
                (narrowed.is_empty() || narrowed.contains(*c))
                    && !info.scoring
                    && arbiter_twilight::ctx::ops_number(p, *c, t.side, Spend::NOWHERE) >= 2
            })
            .collect()
    }
}

impl CardEvent for Trap {
    type Step = TrapStep;
    fn resolve(&self, ctx: &mut Ctx, _side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(self.card, self.victim.opponent(), Expiry::Permanent)));
    }

    fn ask(&self, p: Position, _step: TrapStep, t: &EventTask, words: Words) -> Ask {
        let mut v: Vec<Move> = if arbiter_twilight::action_round::must_play_scoring(p, t.side).is_some() {
            Vec::new()
        } else {
            Self::discards(p, t).into_iter().map(Move::Discard).collect()
        };
        v.extend(
            p.st.hand(t.side)
                .iter()
                .filter(|c| p.cards().info(*c).scoring)
                .map(|card| Move::Play { card, mode: arbiter_twilight::PlayMode::Event }),
        );
        if v.is_empty() {
            v.push(Move::Pass);
        }
        let prompt = words.say(|| {
            let trap = p.cards().name(self.card);
            let narrowed: Vec<&str> = t.picked.cards().iter().map(|c| p.cards().name(c)).collect();
            if narrowed.is_empty() {
                format!("{}: {trap} is trapped: discard a card worth 2+ Ops and roll 1-4 to escape (card text)", t.side)
            } else {
                format!(
                    "{}: {trap} is trapped: discard {} (the card you must play this round) if it is worth 2+ Ops, and roll 1-4 to escape (card text, FAQ)",
                    t.side,
                    narrowed.join(", ")
                )
            }
        });
        Ask::new(t.side, prompt, v)
    }

    fn answer(&self, ctx: &mut Ctx, _step: TrapStep, t: EventTask, m: &Move) {
        let side = t.side;
        let trap = ctx.card_name(self.card).to_string();
        match *m {
            Move::Discard(c) => {
                let name = ctx.card_name(c).to_string();
                ctx.exec(Instr::MoveCard { card: c, to: Pile::Discard });
                let roll = ctx.die(side);
                if roll <= 4 {
                    log!(ctx, "{side} discards {name} and rolls {roll}: escapes {trap}");
                    ctx.exec(Instr::RemoveEffect(self.card));
                } else {
                    log!(ctx, "{side} discards {name} and rolls {roll}: still in {trap}");
                }
            }
            Move::Play { card, .. } => {
                log!(ctx, "{side} plays a scoring card instead of trying to escape {trap} (§10.1.5)");
                ctx.put_in_play(card, side);
                ctx.resolve_event(card, side);
            }
            Move::Pass if t.picked.cards().is_empty() => log!(ctx, "{side} has no card to discard: the round passes ({trap})"),
            Move::Pass => log!(ctx, "{side} cannot discard the card it must play (worth less than 2 Ops): the round passes ({trap})"),
            _ => ctx.unexpected(&t, m),
        }
    }
}

impl Lasting for Trap {
    /// Asked about the trapped side's card play only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.intent(arbiter_twilight::IntentKind::Task)
    }
    /// The trapped side's card play becomes the escape attempt; a play an obligation narrowed
    /// to given cards (Missile Envy) becomes an escape by discarding one of them.
    fn intercept(&self, _p: Position, _e: &Effect, what: &Intent) -> Verdict {
        match what {
            Intent::Task(Task::PlayCard(pt)) if pt.in_round && pt.side == self.victim => {
                let narrowed = match pt.source {
                    arbiter_twilight::Source::Cards(set) => set,
                    arbiter_twilight::Source::Hand | arbiter_twilight::Source::HandAndChina => CardSet::default(),
                };
                let mut escape = EventTask::new(self.card, self.victim).at(TrapStep::Escape);
                escape.picked = arbiter_twilight::Picked::of_cards(narrowed);
                Verdict::Replace(
                    vec![Task::Event(escape)],
                    format!("replaces the {} card play with an attempt to escape (card text)", self.victim),
                )
            }
            _ => Verdict::Allow,
        }
    }
}

// ---------------------------------------------------------------- fixed changes

/// One printed change of an event with no decision.
#[derive(Clone, Copy)]
pub enum Change {
    /// VP to a side, relative to the event's side.
    Vp(Who, u8),
    /// Add Influence of a side (relative to the event's side) in a named country.
    Add(Who, &'static str, u8),
    /// Remove up to N Influence of a side in a named country.
    Remove(Who, &'static str, u8),
    /// Remove all Influence of a side in a named country.
    RemoveAll(Who, &'static str),
    /// Remove half of a side's Influence in a named country, rounded up (Nasser).
    RemoveHalf(Who, &'static str),
    /// Add just enough Influence of a side to control a named country (Fidel).
    Control(Who, &'static str),
    /// VP equal to DEFCON plus an offset, when positive (Nuclear Test Ban: DEFCON − 2).
    VpFromDefcon(Who, i8),
    /// Move DEFCON (kept within 1–5).
    Defcon(i8),
    /// One box up the space race, not an attempt (Captured Nazi Scientist).
    Space(Who),
}

/// An event that makes a fixed list of changes in the printed order and may stay in play as a
/// marker for other cards and effects (The Iron Lady, Camp David Accords, De Gaulle Leads
/// France, Willy Brandt). What its marker prevents or frees is card data and veto data.
pub struct FixedChanges {
    pub card: CardId,
    pub changes: &'static [Change],
    /// Stays in play for the rest of the game (underlined, §7.3).
    pub lasting: bool,
    /// The country each change names, looked up once, when the event is made (looking each
    /// name up on the map at every resolution was most of the event's cost).
    countries: Vec<Option<CountryId>>,
}

impl Change {
    /// The country this change names, if any.
    fn country(&self) -> Option<&'static str> {
        match *self {
            Change::Add(_, c, _) | Change::Remove(_, c, _) | Change::RemoveAll(_, c) | Change::RemoveHalf(_, c) | Change::Control(_, c) => {
                Some(c)
            }
            Change::Vp(..) | Change::VpFromDefcon(..) | Change::Defcon(_) | Change::Space(_) => None,
        }
    }
}

impl FixedChanges {
    /// `card`'s event: `changes` in the printed order; `lasting` keeps it in play. A country
    /// name not on the map panics here, at registration.
    pub fn new(card: CardId, changes: &'static [Change], lasting: bool) -> FixedChanges {
        let map = Map::standard();
        let countries = changes.iter().map(|c| c.country().map(|name| map.id(name))).collect();
        FixedChanges { card, changes, lasting, countries }
    }
}

impl CardEvent for FixedChanges {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let map = Map::standard();
        for (change, country) in self.changes.iter().zip(&self.countries) {
            // Looked up by `new`; by name only if a change were made without it.
            let id = |name: &str| country.unwrap_or_else(|| map.id(name));
            let instr = match *change {
                Change::Vp(who, n) => Instr::Vp { side: who.sides(side)[0], n },
                Change::Add(who, c, n) => Instr::AddInfluence { side: who.sides(side)[0], country: id(c), n },
                Change::Remove(who, c, n) => Instr::RemoveInfluence { side: who.sides(side)[0], country: id(c), n },
                Change::RemoveAll(who, c) => {
                    let (s, c) = (who.sides(side)[0], id(c));
                    Instr::RemoveInfluence { side: s, country: c, n: ctx.st().inf(s, c) }
                }
                Change::RemoveHalf(who, c) => {
                    let (s, c) = (who.sides(side)[0], id(c));
                    Instr::RemoveInfluence { side: s, country: c, n: ctx.st().inf(s, c).div_ceil(2) }
                }
                Change::Control(who, c) => {
                    // §2.1.7: own ≥ stability and own − opponent ≥ stability.
                    let (s, c) = (who.sides(side)[0], id(c));
                    let need = map.country(c).stability as i32 + ctx.st().inf(s.opponent(), c) as i32;
                    let n = (need - ctx.st().inf(s, c) as i32).max(0);
                    Instr::AddInfluence { side: s, country: c, n: u8::try_from(n).unwrap_or(u8::MAX) }
                }
                Change::VpFromDefcon(who, offset) => {
                    let n = (ctx.st().defcon as i8).saturating_add(offset).max(0) as u8;
                    Instr::Vp { side: who.sides(side)[0], n }
                }
                Change::Defcon(d) => Instr::ChangeDefcon(d),
                Change::Space(who) => Instr::SpaceAdvance { side: who.sides(side)[0], boxes: 1 },
            };
            ctx.exec(instr);
        }
        if self.lasting {
            ctx.exec(Instr::AddEffect(Effect::new(self.card, side, Expiry::Permanent)));
        }
    }
}

// ---------------------------------------------------------------- chosen target countries

steps! {
    pub enum TargetStep { Target }
}

/// An event that acts on `times` different countries the player chooses (`target COUNTRY`)
/// among those `eligible` allows: Truman Doctrine, Independent Reds, Indo-Pakistani War,
/// Brush War (one each), Muslim Revolution (two).
pub struct TargetEvent {
    pub card: CardId,
    pub what: &'static str,
    /// The countries the card allows (for `side`, the side playing the event), as a set.
    pub eligible: fn(Position, Side) -> u128,
    pub act: fn(&mut Ctx, Side, CountryId),
    pub times: u8,
}

impl TargetEvent {
    /// The countries that may still be targeted: eligible and not chosen before.
    fn targets(&self, p: Position, t: &EventTask) -> u128 {
        (self.eligible)(p, t.side) & !t.picked.countries().0 & Map::standard().all_mask()
    }

    fn next(&self, ctx: &mut Ctx, t: EventTask) {
        if t.count == 0 {
            return;
        }
        if self.targets(ctx.pos(), &t) == 0 {
            let more = if t.picked.is_empty() { "" } else { " more" };
            log!(ctx, "{}: no{more} country qualifies ({})", ctx.card_name(self.card), self.what);
            return;
        }
        ctx.push(Task::Event(t));
    }
}

impl CardEvent for TargetEvent {
    type Step = TargetStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        self.next(ctx, EventTask::new(self.card, side).at(TargetStep::Target).count(self.times));
    }
    fn ask(&self, p: Position, _step: TargetStep, t: &EventTask, words: Words) -> Ask {
        let choices = arbiter_twilight::map::iter_mask(self.targets(p, t)).map(Move::Target).collect();
        let prompt = words.say(|| {
            let left = if self.times > 1 { format!(" ({} left)", t.count) } else { String::new() };
            format!("{}: {}: `target COUNTRY`: {}{left}", t.side, p.cards().name(self.card), self.what)
        });
        Ask::new(t.side, prompt, choices)
    }
    fn answer(&self, ctx: &mut Ctx, _step: TargetStep, t: EventTask, m: &Move) {
        match m {
            Move::Target(c) => {
                (self.act)(ctx, t.side, *c);
                self.next(ctx, EventTask { count: t.count - 1, picked: t.picked.with_country(*c), ..t });
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

// ---------------------------------------------------------------- VP from a count

/// What a counting event found: the VP it gives and the count that decided, in words (composed
/// only if asked for: quiet play reads the VP alone).
pub struct Count {
    pub vp: u8,
    pub why: String,
}

/// An event whose VP depend on the position when it resolves (Kitchen Debates, Alliance for
/// Progress, OPEC, Arms Race). The log shows the count that decided.
///
/// `conditional`: the card's text makes the VP a condition ("*If* the US controls more
/// battlegrounds…": Kitchen Debates, Arms Race): with no VP due, the event has no effect and
/// the card is discarded, not removed (§5.2, the one ruling for conditions in the text,
/// ARCHITECTURE.md). Otherwise a count of zero is an event with nothing to do, which still
/// counts (Alliance for Progress with no battleground, §5.2 example; OPEC).
pub struct VpFromCount {
    pub card: CardId,
    pub count: fn(Position, Side, Words) -> Count,
    pub conditional: bool,
}

impl CardEvent for VpFromCount {
    type Step = NoStep;
    fn condition(&self, p: Position, side: Side, words: Words) -> Result<(), arbiter_twilight::error::Illegal> {
        match (self.conditional, (self.count)(p, side, words)) {
            (true, Count { vp: 0, why }) => {
                Err(arbiter_twilight::error::Illegal::new(words.say(|| format!("the condition is not met ({why})")), self.card.cite()))
            }
            _ => Ok(()),
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let Count { vp, why } = (self.count)(ctx.pos(), side, Words::when(ctx.logging));
        log!(ctx, "{}: {why}: {side} +{vp} VP", ctx.card_name(self.card));
        ctx.exec(Instr::Vp { side, n: vp });
    }
}

/// The names of the countries in `mask`, for a log line ("none" if empty).
pub fn names(mask: u128) -> String {
    let map = Map::standard();
    let v: Vec<&str> = arbiter_twilight::map::iter_mask(mask).map(|c| map.name(c)).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

// ---------------------------------------------------------------- The China Card claimed

/// What a China Card event does when its side already holds the card.
pub enum Otherwise {
    Vp(u8),
    /// Place markers (a `Markers` step of the same card).
    Place(Markers, &'static str),
}

steps! {
    pub enum ClaimStep { Place }
}

/// "If the opponent holds The China Card, it passes to you (face up or down); if you already
/// hold it, …" (Cultural Revolution, Nixon Plays the China Card, Ussuri River Skirmish). An
/// event passing the card makes it face up unless the card says otherwise (§9.4).
pub struct ClaimChinaCard {
    pub card: CardId,
    pub face_up: bool,
    pub otherwise: Otherwise,
}

impl CardEvent for ClaimChinaCard {
    type Step = ClaimStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let name = ctx.card_name(self.card).to_string();
        if ctx.st().china.holder != side {
            let how = if self.face_up { "face up, playable this turn (§9.4)" } else { "face down, not playable this turn (card text)" };
            log!(ctx, "{name}: the {} holds The China Card: it passes to the {side}, {how}", side.opponent());
            ctx.exec(Instr::PassChina { to: side, face_up: self.face_up });
            return;
        }
        match &self.otherwise {
            Otherwise::Vp(n) => {
                log!(ctx, "{name}: the {side} already holds The China Card");
                ctx.exec(Instr::Vp { side, n: *n });
            }
            Otherwise::Place(m, what) => {
                log!(ctx, "{name}: the {side} already holds The China Card: {what}");
                let t = m.task(self.card, side, ClaimStep::Place);
                if m.open(ctx.pos(), &t) != 0 {
                    ctx.push(Task::Event(t));
                }
            }
        }
    }
    fn ask(&self, p: Position, _step: ClaimStep, t: &EventTask, words: Words) -> Ask {
        let (choices, what) = match &self.otherwise {
            Otherwise::Place(m, what) => (m.options(p, t), *what),
            Otherwise::Vp(_) => (Vec::new(), ""),
        };
        Ask::new(t.side, words.say(|| format!("{}: {}: {what} ({} left)", t.side, p.cards().name(self.card), t.count)), choices)
    }
    fn answer(&self, ctx: &mut Ctx, _step: ClaimStep, t: EventTask, m: &Move) {
        let Otherwise::Place(markers, _) = &self.otherwise else { return ctx.unexpected(&t, m) };
        if let Some(next) = markers.apply(ctx, t, m) {
            if markers.open(ctx.pos(), &next) != 0 {
                ctx.push(Task::Event(next));
            }
        }
    }
}
