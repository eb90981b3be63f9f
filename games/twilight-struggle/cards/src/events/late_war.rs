//! Late War events (cards 82–102, 109, 110) not covered by a shape alone.
//!
//! - Iranian Hostage Crisis (#82, USSR, lasting): all US Influence leaves Iran, the USSR adds 2
//!   there; while in effect, Terrorism played by the USSR makes the US discard 2 cards.
//! - Reagan Bombs Libya (#84, US): 1 VP per 2 USSR Influence in Libya (rounded down).
//! - Star Wars (#85, US): prerequisite, the US ahead on the space race; the US takes a
//!   non-scoring card from the discard pile and its event occurs at once.
//! - The Reformer (#87, USSR, lasting): 4 USSR Influence in Europe, at most 2 per country, 6 if
//!   the USSR leads on VP; the USSR may no longer coup in Europe (a veto); Glasnost improves.
//! - Marine Barracks Bombing (#88, USSR): all US Influence leaves Lebanon, then 2 more US
//!   Influence anywhere in the Middle East.
//! - Soviets Shoot Down KAL-007 (#89, US): DEFCON −1, US +2 VP; if the US controls South Korea,
//!   the US may place Influence or realign as if it played a 4 Ops card (granted: Ops modifiers
//!   do not change them, FAQ).
//! - Glasnost (#90, USSR): DEFCON +1, USSR +2 VP; with The Reformer in effect the USSR may place
//!   Influence or realign as if it played a 4 Ops card (granted, likewise).
//! - Ortega Elected in Nicaragua (#91, USSR): all US Influence leaves Nicaragua; the USSR may
//!   make a free coup with this card's Ops in a country adjacent to Nicaragua.
//! - Terrorism (#92, Neutral): the opponent discards a card at random (2 for the US when the
//!   USSR plays it under Iranian Hostage Crisis); never the China Card (§9.2), and the
//!   discards' events do not occur (§5.4).
//! - Chernobyl (#94, US): the US names a region; for the rest of the turn the USSR may not add
//!   Influence there with Operations (events still may; coups and realignments still may).
//! - Latin American Debt Crisis (#95, USSR): the US discards a card worth 3+ Ops (modified,
//!   §7.4.2), or the USSR doubles its Influence in 2 South American countries.
//! - Tear Down this Wall (#96, US, lasting): cancels and prevents Willy Brandt (card data); 3
//!   US Influence in East Germany; the US may make free coups or realignments in Europe with
//!   this card's Ops (DEFCON limits ignored, DEFCON still lowered, no military ops, §6.3.5).
//! - Aldrich Ames Remix (#98, USSR): the US shows its hand to the USSR for the rest of the
//!   turn; the USSR discards one card of it (its event does not occur, §5.4).
//! - Pershing II Deployed (#99, USSR): USSR +1 VP, then 1 US Influence from each of up to 3
//!   Western European countries.
//! - Yuri and Samantha (#109, USSR): for the rest of the turn the USSR gains 1 VP for each US
//!   coup attempt (free coups included).

use super::ids::*;
use crate::shapes::{Change, Count, FixedChanges, Markers, TargetEvent, VpFromCount, War, Who};
use arbiter_twilight::card::CardSet;
use arbiter_twilight::ctx::{self, Ctx};
use arbiter_twilight::effect::Memo;
use arbiter_twilight::effect::{Effect, Expiry, Remembers, Shape};
use arbiter_twilight::error::{illegal, Illegal};
use arbiter_twilight::instr::{DomainEvent, Instr};
use arbiter_twilight::map::{iter_mask, CountryId, Map, SubRegion};
use arbiter_twilight::permission::{Action, Scope, Veto};
use arbiter_twilight::pipeline::Spend;
use arbiter_twilight::state::Pile;
use arbiter_twilight::{log, steps};
use arbiter_twilight::{
    Ask, CardEvent, CardId, EventTask, Lasting, Move, NoStep, OpsKind, OpsTask, Position, Region, Ruleset, Side, Task, Words,
};

// ------------------------------------------------------------------ optional Ops after an event

/// "… then the player may use this card's Ops for …": the offer as a step (`choose LABEL` or
/// `pass`), then an Ops task limited to kinds and countries, free or not: Ortega, Tear Down
/// this Wall, KAL-007 and Glasnost (Junta makes the same offer after its placement step).
pub struct OpsOffer {
    pub label: &'static [&'static str],
    pub what: &'static str,
    pub kinds: &'static [OpsKind],
    pub targets: fn() -> u128,
    pub free: bool,
    /// `None`: this card's Ops, modified by the player's Ops modifiers ("using this card's
    /// Operations value": Ortega, Tear Down this Wall). `Some(n)`: n Ops granted "as if they
    /// played an n Ops card", which Ops modifiers do not change (KAL-007, Glasnost; FAQ on Red
    /// Scare/Purge, as Olympic Games' boycott).
    pub granted: Option<u8>,
}

impl OpsOffer {
    pub fn ask(&self, p: Position, t: &EventTask, words: Words) -> Ask {
        Ask::options(
            t.side,
            words.say(|| format!("{}: {}: `choose {}` {}, or `pass`", t.side, p.cards().name(t.card), self.label[0], self.what)),
            self.label,
        )
        .or_pass()
    }
    pub fn answer(&self, ctx: &mut Ctx, t: EventTask, m: &Move) {
        match m {
            Move::Choose(0) => {
                let base = match self.granted {
                    Some(n) => OpsTask::granted(t.side, n),
                    None => OpsTask::for_card(t.side, t.card),
                };
                let ops = OpsTask { targets: (self.targets)(), free: self.free, ..base };
                ctx.push(Task::Ops(ops.only(self.kinds).by(t.card)));
            }
            Move::Pass => log!(ctx, "The {} declines the Operations of {}", t.side, ctx.card_name(t.card)),
            _ => ctx.unexpected(&t, m),
        }
    }
}

fn anywhere() -> u128 {
    u128::MAX
}

fn europe() -> u128 {
    Map::standard().region_mask(Region::Europe)
}

fn next_to_nicaragua() -> u128 {
    Map::standard().adjacency_mask(country!("Nicaragua"))
}

const PLACE_OR_REALIGN: &[OpsKind] = &[OpsKind::Influence, OpsKind::Realign];

steps! {
    enum OfferStep { Offer }
}

/// An event made of fixed changes, then an Ops offer when `when` holds.
struct ChangesThenOps {
    card: CardId,
    first: fn(&mut Ctx, Side),
    when: fn(Position) -> Result<(), String>,
    offer: OpsOffer,
}

impl CardEvent for ChangesThenOps {
    type Step = OfferStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        (self.first)(ctx, side);
        if ctx.over() {
            return;
        }
        match (self.when)(ctx.pos()) {
            Ok(()) => ctx.push(Task::Event(EventTask::new(self.card, side).at(OfferStep::Offer))),
            Err(why) => log!(ctx, "{} gives no Operations: {why}", ctx.card_name(self.card)),
        }
    }
    fn ask(&self, p: Position, _step: OfferStep, t: &EventTask, words: Words) -> Ask {
        self.offer.ask(p, t, words)
    }
    fn answer(&self, ctx: &mut Ctx, _step: OfferStep, t: EventTask, m: &Move) {
        self.offer.answer(ctx, t, m)
    }
}

fn always(_p: Position) -> Result<(), String> {
    Ok(())
}

fn kal_first(ctx: &mut Ctx, side: Side) {
    ctx.exec(Instr::ChangeDefcon(-1));
    ctx.exec(Instr::Vp { side, n: 2 });
}

fn south_korea_us(p: Position) -> Result<(), String> {
    if p.st.controls(Side::Us, country!("South Korea")) {
        Ok(())
    } else {
        Err("the US does not control South Korea".into())
    }
}

fn glasnost_first(ctx: &mut Ctx, side: Side) {
    ctx.exec(Instr::ChangeDefcon(1));
    ctx.exec(Instr::Vp { side, n: 2 });
}

fn reformer_in_effect(p: Position) -> Result<(), String> {
    if p.st.has_effect(THE_REFORMER) {
        Ok(())
    } else {
        Err("The Reformer is not in effect".into())
    }
}

fn ortega_first(ctx: &mut Ctx, side: Side) {
    let nicaragua = country!("Nicaragua");
    let n = ctx.st().inf(side.opponent(), nicaragua);
    ctx.exec(Instr::RemoveInfluence { side: side.opponent(), country: nicaragua, n });
}

fn wall_first(ctx: &mut Ctx, side: Side) {
    ctx.exec(Instr::AddEffect(Effect::new(TEAR_DOWN_THIS_WALL, side, Expiry::Permanent)));
    ctx.exec(Instr::AddInfluence { side, country: country!("East Germany"), n: 3 });
}

// ------------------------------------------------------------------ Terrorism (#92)

struct Terrorism;

impl CardEvent for Terrorism {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let victim = side.opponent();
        let n = if side == Side::Ussr && ctx.st().has_effect(IRANIAN_HOSTAGE_CRISIS) { 2 } else { 1 };
        if n == 2 {
            ctx.log("Terrorism: Iranian Hostage Crisis is in effect: the US discards 2 cards");
        }
        for _ in 0..n {
            let Some(card) = ctx.random_card(victim) else {
                if !ctx.over() {
                    log!(ctx, "Terrorism: the {victim} has no card to discard");
                }
                return;
            };
            log!(ctx, "Terrorism: the {victim} discards {} at random; its event does not occur (§5.4)", ctx.card_name(card));
            ctx.exec(Instr::MoveCard { card, to: Pile::Discard });
        }
    }
}

// ------------------------------------------------------------------ Star Wars (#85)

steps! {
    enum StarWarsStep { Take }
}

struct StarWars;

fn star_wars_cards(p: Position) -> CardSet {
    p.st.discard.iter().filter(|c| !p.cards().info(*c).scoring).collect()
}

impl CardEvent for StarWars {
    type Step = StarWarsStep;
    /// "If the US is ahead on the Space Race…": a condition in the text, like Wargames'
    /// (§5.2, FAQ): unmet, the card may still be played for its event, which has no effect, and
    /// it is discarded, not removed.
    fn condition(&self, p: Position, side: Side, words: Words) -> Result<(), Illegal> {
        let (mine, theirs) = (p.st.space[side.idx()], p.st.space[side.opponent().idx()]);
        if mine > theirs {
            Ok(())
        } else {
            illegal(words.say(|| format!("the {side} is not ahead on the space race (box {mine} against {theirs})")), "card #85")
        }
    }
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        if star_wars_cards(ctx.pos()).is_empty() {
            ctx.log("Star Wars: the discard pile holds no non-scoring card");
            return;
        }
        ctx.push(Task::Event(EventTask::new(STAR_WARS, side).at(StarWarsStep::Take)));
    }
    fn ask(&self, p: Position, _step: StarWarsStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words
            .say(|| format!("{}: Star Wars: `take CARD`: a non-scoring card from the discard pile, whose event occurs at once", t.side));
        Ask::new(t.side, prompt, star_wars_cards(p).iter().map(Move::Take).collect())
    }
    fn answer(&self, ctx: &mut Ctx, _step: StarWarsStep, t: EventTask, m: &Move) {
        let Move::Take(card) = *m else { return ctx.unexpected(&t, m) };
        let owner = ctx.rules.cards.info(card).side.side().unwrap_or(t.side);
        log!(ctx, "Star Wars: the {} takes {} from the discard pile; its event occurs", t.side, ctx.card_name(card));
        ctx.put_in_play(card, t.side);
        ctx.resolve_event(card, owner);
    }
}

// ------------------------------------------------------------------ The Reformer (#87)

steps! {
    enum ReformerStep { Place }
}

struct Reformer;

fn in_europe(_p: Position, _s: Side) -> u128 {
    Map::standard().region_mask(Region::Europe)
}

const REFORMER_MARKERS: Markers = Markers { influence_of: Who::Owner, add: true, total: 4, max_per_country: 2, eligible: in_europe };

impl CardEvent for Reformer {
    type Step = ReformerStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(THE_REFORMER, side, Expiry::Permanent)));
        let leads = ctx.st().vp * side.vp_sign() as i8 > 0;
        let n = if leads { 6 } else { 4 };
        if leads {
            log!(ctx, "The Reformer: the {side} leads on VP: 6 Influence");
        }
        ctx.push(Task::Event(REFORMER_MARKERS.task(THE_REFORMER, side, ReformerStep::Place).count(n)));
    }
    fn ask(&self, p: Position, _step: ReformerStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| format!("{}: The Reformer: add Influence in Europe, at most 2 per country ({} left)", t.side, t.count));
        Ask::new(t.side, prompt, REFORMER_MARKERS.options(p, t))
    }
    fn answer(&self, ctx: &mut Ctx, _step: ReformerStep, t: EventTask, m: &Move) {
        if let Some(next) = REFORMER_MARKERS.apply(ctx, t, m) {
            ctx.push(Task::Event(next));
        }
    }
}

impl Lasting for Reformer {
    /// Neither intercepts nor reacts.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
    }
    fn vetoes(&self, e: &Effect, out: &mut Vec<Veto>) {
        out.push(Veto {
            source: THE_REFORMER,
            actor: e.owner,
            actions: &[Action::Coup],
            scope: Scope::Region(Region::Europe),
            reason: "after The Reformer the USSR may no longer make coup attempts in Europe",
            rule: THE_REFORMER.cite(),
        });
    }
}

// ------------------------------------------------------------------ removals with a fixed part

steps! {
    enum RemoveStep { Remove }
}

/// Fixed changes first, then a [`Markers`] removal: Marine Barracks Bombing, Pershing II.
struct ThenRemove {
    card: CardId,
    first: fn(&mut Ctx, Side),
    markers: Markers,
    what: &'static str,
}

impl ThenRemove {
    fn next(&self, ctx: &mut Ctx, t: EventTask) {
        if self.markers.open(ctx.pos(), &t) == 0 {
            log!(ctx, "{}: no more Influence to remove ({})", ctx.card_name(self.card), self.what);
            return;
        }
        ctx.push(Task::Event(t));
    }
}

impl CardEvent for ThenRemove {
    type Step = RemoveStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        (self.first)(ctx, side);
        self.next(ctx, self.markers.task(self.card, side, RemoveStep::Remove));
    }
    fn ask(&self, p: Position, _step: RemoveStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| format!("{}: {}: `remove COUNTRY`: {} ({} left)", t.side, p.cards().name(self.card), self.what, t.count));
        Ask::new(t.side, prompt, self.markers.options(p, t))
    }
    fn answer(&self, ctx: &mut Ctx, _step: RemoveStep, t: EventTask, m: &Move) {
        if let Some(next) = self.markers.apply(ctx, t, m) {
            self.next(ctx, next);
        }
    }
}

fn barracks_first(ctx: &mut Ctx, side: Side) {
    let lebanon = country!("Lebanon");
    let n = ctx.st().inf(side.opponent(), lebanon);
    ctx.exec(Instr::RemoveInfluence { side: side.opponent(), country: lebanon, n });
}

fn in_middle_east(_p: Position, _s: Side) -> u128 {
    Map::standard().region_mask(Region::MiddleEast)
}

fn pershing_first(ctx: &mut Ctx, side: Side) {
    ctx.exec(Instr::Vp { side, n: 1 });
}

fn western_europe(_p: Position, _s: Side) -> u128 {
    Map::standard().sub_mask(SubRegion::WesternEurope)
}

// ------------------------------------------------------------------ Chernobyl (#94)

steps! {
    enum ChernobylStep { Region }
}

struct Chernobyl;

const REGION_LABELS: &[&str] = &["Europe", "Asia", "Middle East", "Central America", "South America", "Africa"];

impl CardEvent for Chernobyl {
    type Step = ChernobylStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.push(Task::Event(EventTask::new(CHERNOBYL, side).at(ChernobylStep::Region)));
    }
    fn ask(&self, _p: Position, _step: ChernobylStep, t: &EventTask, words: Words) -> Ask {
        let prompt = words.say(|| {
            format!(
                "{}: Chernobyl: `choose REGION`: for the rest of the turn the {} may not add Influence there with Operations",
                t.side,
                t.side.opponent()
            )
        });
        Ask::options(t.side, prompt, REGION_LABELS)
    }
    fn answer(&self, ctx: &mut Ctx, _step: ChernobylStep, t: EventTask, m: &Move) {
        let Move::Choose(i @ 0..=5) = *m else { return ctx.unexpected(&t, m) };
        log!(ctx, "Chernobyl: the {} names {}", t.side, Region::ALL[i as usize]);
        let mut e = Effect::new(CHERNOBYL, t.side, Expiry::EndOfTurn);
        e.memo = Memo::Region(Region::ALL[i as usize]);
        ctx.exec(Instr::AddEffect(e));
    }
}

impl Lasting for Chernobyl {
    /// Neither intercepts nor reacts.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE
    }
    /// The region named.
    fn shape(&self, usual: Shape) -> Shape {
        Shape { remembers: Remembers::Region, ..usual }
    }
    fn vetoes(&self, e: &Effect, out: &mut Vec<Veto>) {
        let Memo::Region(region) = e.memo else { return };
        out.push(Veto {
            source: CHERNOBYL,
            actor: e.owner.opponent(),
            actions: &[Action::Influence],
            scope: Scope::Region(region),
            reason: "Chernobyl forbids adding Influence there with Operations this turn",
            rule: CHERNOBYL.cite(),
        });
    }
}

// ------------------------------------------------------------------ Latin American Debt Crisis (#95)

steps! {
    enum DebtStep { Answer, Double }
}

struct DebtCrisis;

fn debt_cards(p: Position) -> Vec<CardId> {
    p.st.hand(Side::Us).iter().filter(|c| !p.cards().info(*c).scoring && ctx::ops_number(p, *c, Side::Us, Spend::NOWHERE) >= 3).collect()
}

fn south_america_doubling(p: Position, t: &EventTask) -> Vec<Move> {
    iter_mask(Map::standard().region_mask(Region::SouthAmerica) & !t.picked.countries().0)
        .filter(|c| p.st.inf(t.side, *c) > 0)
        .map(Move::Target)
        .collect()
}

impl DebtCrisis {
    fn double(ctx: &mut Ctx, t: EventTask) {
        if t.count == 0 {
            return;
        }
        if south_america_doubling(ctx.pos(), &t).is_empty() {
            log!(ctx, "Latin American Debt Crisis: no more South American country holds {} Influence", t.side);
            return;
        }
        ctx.push(Task::Event(t.at(DebtStep::Double)));
    }
}

impl CardEvent for DebtCrisis {
    type Step = DebtStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let t = EventTask::new(LATIN_AMERICAN_DEBT_CRISIS, side).count(2);
        if debt_cards(ctx.pos()).is_empty() {
            ctx.log("Latin American Debt Crisis: the US holds no card worth 3 or more Ops");
            return Self::double(ctx, t);
        }
        ctx.push(Task::Event(t.at(DebtStep::Answer)));
    }
    fn ask(&self, p: Position, step: DebtStep, t: &EventTask, words: Words) -> Ask {
        match step {
            DebtStep::Answer => {
                let mut choices: Vec<Move> = debt_cards(p).into_iter().map(Move::Discard).collect();
                choices.push(Move::Choose(0));
                Ask {
                    choices,
                    ..Ask::options(
                        Side::Us,
                        words.say(|| "US: Latin American Debt Crisis: `discard CARD` (a card worth 3 or more Ops) or `choose let the USSR double` (its Influence in 2 South American countries)".into()),
                        &["let the USSR double"],
                    )
                }
            }
            DebtStep::Double => Ask::new(
                t.side,
                words.say(|| {
                    format!(
                        "{}: Latin American Debt Crisis: `target COUNTRY` in South America to double your Influence ({} left)",
                        t.side, t.count
                    )
                }),
                south_america_doubling(p, t),
            ),
        }
    }
    fn answer(&self, ctx: &mut Ctx, step: DebtStep, t: EventTask, m: &Move) {
        match (step, m) {
            (DebtStep::Answer, Move::Discard(c)) => {
                log!(ctx, "Latin American Debt Crisis: the US discards {}; its event does not occur (§5.4)", ctx.card_name(*c));
                ctx.exec(Instr::MoveCard { card: *c, to: Pile::Discard });
            }
            (DebtStep::Answer, Move::Choose(0)) => Self::double(ctx, t),
            (DebtStep::Double, Move::Target(c)) => {
                let n = ctx.st().inf(t.side, *c);
                ctx.exec(Instr::AddInfluence { side: t.side, country: *c, n });
                Self::double(ctx, EventTask { count: t.count - 1, picked: t.picked.with_country(*c), ..t });
            }
            _ => ctx.unexpected(&t, m),
        }
    }
}

// ------------------------------------------------------------------ Aldrich Ames Remix (#98)

steps! {
    enum AmesStep { Discard }
}

/// Aldrich Ames Remix: the US hand is shown to the USSR alone for the rest of the turn (an
/// effect until the end of the turn: the hand now, and each card that enters it later, drawn or
/// taken, is revealed privately as it arrives), then the USSR discards one card of it.
struct AldrichAmes;

impl CardEvent for AldrichAmes {
    type Step = AmesStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        let victim = side.opponent();
        ctx.exec(Instr::AddEffect(Effect::new(ALDRICH_AMES, side, Expiry::EndOfTurn)));
        let hand = ctx.st().hand(victim);
        if hand.is_empty() {
            log!(ctx, "Aldrich Ames Remix: the {victim} has no card");
            return;
        }
        ctx.exec(Instr::Reveal { whose: victim, cards: hand, public: false });
        ctx.push(Task::Event(EventTask::new(ALDRICH_AMES, side).at(AmesStep::Discard)));
    }
    fn ask(&self, p: Position, _step: AmesStep, t: &EventTask, words: Words) -> Ask {
        let victim = t.side.opponent();
        let prompt = words.say(|| format!("{}: Aldrich Ames Remix: `discard CARD`: the card of the {victim} hand to discard", t.side));
        Ask::new(t.side, prompt, p.st.hand(victim).iter().map(Move::Discard).collect())
    }
    fn answer(&self, ctx: &mut Ctx, _step: AmesStep, t: EventTask, m: &Move) {
        let Move::Discard(c) = *m else { return ctx.unexpected(&t, m) };
        log!(
            ctx,
            "Aldrich Ames Remix: the {} discards {} from the {} hand; its event does not occur (§5.4)",
            t.side,
            ctx.card_name(c),
            t.side.opponent()
        );
        ctx.exec(Instr::MoveCard { card: c, to: Pile::Discard });
    }
}

impl Lasting for AldrichAmes {
    /// Asked about the cards entering the shown hand only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.event(arbiter_twilight::instr::EventKind::CardToHand)
    }
    /// A card entering the shown hand is revealed to the owner alone, unless it already knows
    /// it (a card given openly: SALT's pick, Missile Envy).
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        let victim = e.owner.opponent();
        if let DomainEvent::CardToHand { side, card } = *ev {
            if side == victim && !ctx.st().known[victim.idx()].contains(card) && ctx.st().hand(victim).contains(card) {
                ctx.exec(Instr::Reveal { whose: victim, cards: [card].into_iter().collect(), public: false });
            }
        }
    }
}

// ------------------------------------------------------------------ Yuri and Samantha (#109)

struct YuriAndSamantha;

impl CardEvent for YuriAndSamantha {
    type Step = NoStep;
    fn resolve(&self, ctx: &mut Ctx, side: Side) {
        ctx.exec(Instr::AddEffect(Effect::new(YURI_AND_SAMANTHA, side, Expiry::EndOfTurn)));
    }
}

impl Lasting for YuriAndSamantha {
    /// Asked about the opponent's coups only.
    fn interest(&self) -> arbiter_twilight::Interest {
        arbiter_twilight::Interest::NONE.event(arbiter_twilight::instr::EventKind::CoupAttempted)
    }
    fn react(&self, ctx: &mut Ctx, e: &Effect, ev: &DomainEvent) {
        if let DomainEvent::CoupAttempted { side, .. } = *ev {
            if side == e.owner.opponent() {
                log!(ctx, "Yuri and Samantha: the {side} attempts a coup: the {} gains 1 VP", e.owner);
                ctx.exec(Instr::Vp { side: e.owner, n: 1 });
            }
        }
    }
}

// ------------------------------------------------------------------ counts

pub fn reagan_bombs_libya(p: Position, side: Side, words: Words) -> Count {
    let n = p.st.inf(side.opponent(), country!("Libya"));
    Count { vp: n / 2, why: words.say(|| format!("{} Influence in Libya: {n}", side.opponent())) }
}

pub fn register(r: &mut Ruleset) {
    r.event(
        SOVIETS_SHOOT_DOWN_KAL,
        ChangesThenOps {
            card: SOVIETS_SHOOT_DOWN_KAL,
            first: kal_first,
            when: south_korea_us,
            offer: OpsOffer {
                label: &["ops"],
                what: "to place Influence or realign with 4 Ops (as if a 4 Ops card)",
                kinds: PLACE_OR_REALIGN,
                targets: anywhere,
                free: false,
                granted: Some(4),
            },
        },
    );
    r.event(
        GLASNOST,
        ChangesThenOps {
            card: GLASNOST,
            first: glasnost_first,
            when: reformer_in_effect,
            offer: OpsOffer {
                label: &["ops"],
                what: "to place Influence or realign with 4 Ops (The Reformer; as if a 4 Ops card)",
                kinds: PLACE_OR_REALIGN,
                targets: anywhere,
                free: false,
                granted: Some(4),
            },
        },
    );
    r.event(
        ORTEGA,
        ChangesThenOps {
            card: ORTEGA,
            first: ortega_first,
            when: always,
            offer: OpsOffer {
                label: &["coup"],
                what: "to make a free coup with this card's Ops in a country adjacent to Nicaragua",
                kinds: &[OpsKind::Coup],
                targets: next_to_nicaragua,
                free: true,
                granted: None,
            },
        },
    );
    r.event(
        TEAR_DOWN_THIS_WALL,
        ChangesThenOps {
            card: TEAR_DOWN_THIS_WALL,
            first: wall_first,
            when: always,
            offer: OpsOffer {
                label: &["coup or realign"],
                what: "to make free coups or realignments in Europe with this card's Ops",
                kinds: &[OpsKind::Coup, OpsKind::Realign],
                targets: europe,
                free: true,
                granted: None,
            },
        },
    );
    r.event(TERRORISM, Terrorism);
    r.event(STAR_WARS, StarWars);
    r.both(THE_REFORMER, Reformer);
    r.event(
        MARINE_BARRACKS,
        ThenRemove {
            card: MARINE_BARRACKS,
            first: barracks_first,
            markers: Markers { influence_of: Who::Opponent, add: false, total: 2, max_per_country: 2, eligible: in_middle_east },
            what: "2 more US Influence anywhere in the Middle East",
        },
    );
    r.event(
        PERSHING_II,
        ThenRemove {
            card: PERSHING_II,
            first: pershing_first,
            markers: Markers { influence_of: Who::Opponent, add: false, total: 3, max_per_country: 1, eligible: western_europe },
            what: "1 US Influence from each of 3 Western European countries",
        },
    );
    r.both(CHERNOBYL, Chernobyl);
    r.event(LATIN_AMERICAN_DEBT_CRISIS, DebtCrisis);
    r.both(ALDRICH_AMES, AldrichAmes);
    r.both(YURI_AND_SAMANTHA, YuriAndSamantha);
    let fixed: [(CardId, &'static [Change], bool); 4] = [
        (IRANIAN_HOSTAGE_CRISIS, &[Change::RemoveAll(Who::Opponent, "Iran"), Change::Add(Who::Owner, "Iran", 2)], true),
        (AN_EVIL_EMPIRE, &[Change::Vp(Who::Owner, 1)], true),
        (AWACS, &[Change::Add(Who::Owner, "Saudi Arabia", 2)], true),
        (SOLIDARITY, &[Change::Add(Who::Owner, "Poland", 3)], false),
    ];
    for (card, changes, lasting) in fixed {
        r.event(card, FixedChanges::new(card, changes, lasting));
    }
    r.event(REAGAN_BOMBS_LIBYA, VpFromCount { card: REAGAN_BOMBS_LIBYA, count: reagan_bombs_libya, conditional: false });
    r.event(
        IRAN_IRAQ_WAR,
        TargetEvent {
            card: IRAN_IRAQ_WAR,
            what: "Iran or Iraq is invaded (war: 4-6 wins 2 VP, 2 military ops)",
            eligible: iran_or_iraq,
            act: iran_iraq_war,
            times: 1,
        },
    );
}

fn iran_or_iraq(_p: Position, _s: Side) -> u128 {
    countries!("Iran", "Iraq")
}

fn iran_iraq_war(ctx: &mut Ctx, side: Side, c: CountryId) {
    War { min_roll: 4, vp: 2, mil_ops: 2, target_counts: false }.fight(ctx, side, c);
}
