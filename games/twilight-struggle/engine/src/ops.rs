//! Spending Operations (§6): one activity per card. Influence one marker at a time (cost
//! re-checked per marker, §6.1.2), realignment one roll at a time, or one coup. The Ops value
//! follows how the Ops are actually spent (the China Card's and Vietnam Revolts' conditions).

use crate::card::{CardId, CardSet};
use crate::ctx::{self, Ctx};
use crate::defcon;
use crate::effect::Effect;
use crate::error::{illegal, Illegal};
use crate::log;
use crate::map::{CountryId, Map};
use crate::moves::Move;
use crate::permission::{Action, ScopeParts, Veto};
use crate::pipeline::{OpsCondition, OpsModifier, Spend, Traced};
use crate::refuse;
use crate::registry::Position;
use crate::side::Side;
use crate::task::{KeptValues, OpsKind, OpsTask, Task};

/// The Ops value if the rest is spent consistently with `spend`.
pub fn value(p: Position, o: &OpsTask, spend: Spend) -> Traced {
    match o.card {
        Some(card) => ctx::ops_value(p, card, o.side, spend),
        None => Traced { base: o.granted as i32, base_label: "granted by the event", steps: Vec::new(), value: o.granted as i32 },
    }
}

/// [`value`]'s number alone, without its trace's words (quiet play): the same fold of the same
/// modifiers (`pipeline::ops_number`), read from the thread's reading of the effects.
fn value_number(p: Position, o: &OpsTask, spend: Spend) -> i32 {
    match o.card {
        Some(card) => with_values(p, |v| v.of(o.side, card)[spend.all_in_asia as usize][spend.all_in_southeast_asia as usize]),
        None => o.granted as i32,
    }
}

fn spend_after(o: &OpsTask, c: CountryId) -> Spend {
    let map = Map::standard();
    Spend {
        all_in_asia: o.spend.all_in_asia && map.region_mask(crate::map::Region::Asia) & c.bit() != 0,
        all_in_southeast_asia: o.spend.all_in_southeast_asia && map.sub_mask(crate::map::SubRegion::SoutheastAsia) & c.bit() != 0,
    }
}

/// The Ops value of this play if the next Op goes to `c` (what a coup there would use).
pub fn value_if_spent_in(p: Position, o: &OpsTask, c: CountryId) -> Traced {
    value(p, o, spend_after(o, c))
}

pub fn prompt(p: Position, o: &OpsTask) -> String {
    let best = value(p, o, o.spend).value;
    let what = match o.kind {
        None => "place Influence, realign, or coup",
        Some(OpsKind::Influence) => "place Influence",
        Some(OpsKind::Realign) => "realign",
        Some(OpsKind::Coup) => "coup",
    };
    format!("{}: {} Ops spent of up to {best}: {what} (§6)", o.side, o.spent)
}

/// Influence placement cost (§6.1.2): 2 in an enemy-controlled country, else 1; re-checked for
/// every marker.
pub fn marker_cost(enemy_controlled: bool) -> u8 {
    if enemy_controlled {
        2
    } else {
        1
    }
}

/// §6.1.1, §6.1.4: the countries in or next to one holding the player's Influence at the start
/// of the round, and those next to the player's own superpower.
pub fn access_mask(p: Position, side: Side) -> u128 {
    access_of(p.st.round_start_presence[side.idx()], side)
}

/// [`access_mask`] for `side` holding Influence in `had` at the round's start.
fn access_of(had: u128, side: Side) -> u128 {
    had | Map::standard().superpower_mask(side) | next_to_every_run(had)
}

/// The countries next to any of `countries`.
fn next_to(countries: u128) -> u128 {
    let neighbours = neighbours();
    let mut m = 0;
    // One entry per run of eight countries, each half of the set in turn (128-bit shifts and
    // counts take several instructions each).
    for (half, first_run) in [(countries as u64, 0), ((countries >> 64) as u64, 8)] {
        let mut h = half;
        while h != 0 {
            let run = h.trailing_zeros() / 8;
            m |= neighbours[first_run + run as usize][(h >> (8 * run)) as usize & 0xff];
            h &= !(0xff << (8 * run));
        }
    }
    m
}

/// [`next_to`], reading every run, held or not (an empty one adds nothing), without a branch:
/// for a set of many countries (a side's Influence at a round's start, held in most runs),
/// fewer instructions than finding the runs that hold one.
fn next_to_every_run(countries: u128) -> u128 {
    let neighbours = neighbours();
    let (low, high) = (countries as u64, (countries >> 64) as u64);
    let mut m = 0;
    for run in 0..8 {
        m |= neighbours[run][(low >> (8 * run)) as usize & 0xff] | neighbours[8 + run][(high >> (8 * run)) as usize & 0xff];
    }
    m
}

/// The countries next to any of a set of countries (§6.1.1), by runs of eight: for each run of
/// eight country ids (`8 * r .. 8 * r + 8`) and each subset of it (its eight bits), the union
/// of their adjacency masks, built once from the map. [`next_to`] reads one entry per run
/// holding a country instead of one mask per country.
fn neighbours() -> &'static [[u128; 256]; 16] {
    static NEIGHBOURS: std::sync::OnceLock<Box<[[u128; 256]; 16]>> = std::sync::OnceLock::new();
    NEIGHBOURS.get_or_init(|| {
        let map = Map::standard();
        let mut t = Box::new([[0u128; 256]; 16]);
        for (run, row) in t.iter_mut().enumerate() {
            // Each subset: the subset without its lowest country, and that country's neighbours.
            for subset in 1..256usize {
                let id = 8 * run + subset.trailing_zeros() as usize;
                let adjacent = if map.all_mask() >> id & 1 != 0 { map.adjacency_mask(CountryId(id as u8)) } else { 0 };
                row[subset] = row[subset & (subset - 1)] | adjacent;
            }
        }
        t
    })
}

/// The access masks (§6.1.1) kept from one Ops decision's listing to the next (`Game` keeps
/// them between moves, as it keeps the effects in play), one a side (the sides alternate card by
/// card), each with its only input: that side's Influence at the start of the round
/// (`State::round_start_presence`; `NOTHING_KEPT` where none is kept). A kept mask is read while
/// its input is the decision's; a side's next round mostly starts with its Influence in the same
/// countries and a few more (its own placements), and as the mask is a union over countries the
/// new ones' neighbours are added to it rather than every country's read again. Kept outside the
/// Ops task: the task is copied with every push and pop of the work stack, and 48 bytes more made
/// those copies cost more than the fold they saved.
///
/// It also carries which reading of the effects ([`KeptReading`]) was last found to be of this
/// game's effects, so that the next decision under the same effects need not compare them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeptAccess(pub [(u128, u128); 2], pub KeptReading);

/// The round-start Influence of a side whose access mask is not kept: no set of countries of
/// the map (they have fewer than 128), and no subset of any, so it is never read or grown.
pub const NOTHING_KEPT: (u128, u128) = (u128::MAX, 0);

impl Default for KeptAccess {
    fn default() -> KeptAccess {
        KeptAccess([NOTHING_KEPT; 2], KeptReading::default())
    }
}

/// The thread's reading of the effects (its generation, `Reading::generation`) last found to
/// be of this game's effects, with their version then (`State::effects_version`): while the
/// game's effects keep that version (they are the same effects) and the thread keeps that
/// reading (no reading has the generation of another), the reading holds without comparing the
/// effects, which costs more than the reading saves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptReading(pub Option<(u64, u32)>);

impl KeptReading {
    /// Does the reading, where this says it holds for `p`, hold, and agree with one made
    /// afresh? (The invariant checks, after every move.)
    pub fn agrees(&self, p: Position) -> bool {
        match self.0 {
            Some((generation, version)) if version == p.st.effects_version.0 => {
                let current = READING.with_borrow(|r| r.generation == generation);
                !current || (READING.with_borrow(|r| r.holds(p)) && reading_agrees(p))
            }
            Some(_) | None => true,
        }
    }
}

impl KeptAccess {
    /// The access mask of `side` now: the kept one if it holds; grown by the neighbours of the
    /// countries gained if the side's round-start Influence only gained countries since (the
    /// mask is a union over them, §6.1.1); else computed again. Kept either way. Inlined into
    /// the Ops listing: a kept mask is read in a few instructions.
    #[inline]
    pub fn get(&mut self, p: Position, side: Side) -> u128 {
        let had = p.st.round_start_presence[side.idx()];
        let (kept_had, access) = &mut self.0[side.idx()];
        if *kept_had != had {
            *access = if *kept_had & !had == 0 { *access | had | next_to(had & !*kept_had) } else { access_of(had, side) };
            *kept_had = had;
        }
        *access
    }

    /// Does each kept mask agree with one computed afresh from the Influence it was kept for
    /// (it is grown from whatever the round start, so it is asked whatever the round start), and
    /// the reading it names? (The invariant checks, after every move.)
    pub fn agrees(&self, p: Position) -> bool {
        let access = Side::BOTH.into_iter().all(|side| match self.0[side.idx()] {
            NOTHING_KEPT => true,
            (had, access) => access == access_of(had, side),
        });
        access && self.1.agrees(p)
    }
}

/// Is the way of spending `[asia][sea]` still open to the rest of these Ops? `spend_after`
/// narrows a condition that holds, never revives one that failed.
fn open_way(o: &OpsTask, asia: bool, sea: bool) -> bool {
    (!asia || o.spend.all_in_asia) && (!sea || o.spend.all_in_southeast_asia)
}

/// The Ops value of each way the rest may still be spent, `[all in Asia][all in Southeast
/// Asia]` (0 for a way no longer open), and whether the open ways have one value. The values
/// the last Op kept (`OpsTask::kept`) while the effects in play are unchanged, else folded.
fn values_for(p: Position, o: &OpsTask) -> ([[i32; 2]; 2], bool) {
    match o.kept.0 {
        Some((version, kept)) if version == p.st.effects_version.0 => one_value(o, kept.map(|row| row.map(i32::from))),
        _ => fold_values(p, o),
    }
}

/// [`values_for`], reading the values from the thread's reading of the effects where the task
/// keeps none (its first Op).
fn values_kept(p: Position, o: &OpsTask, reading: &mut Reading) -> ([[i32; 2]; 2], bool) {
    match o.kept.0 {
        Some((version, _)) if version == p.st.effects_version.0 => values_for(p, o),
        _ => read_values(&mut Values { p, reading }, o),
    }
}

/// `values`, with whether the ways still open have one value.
fn one_value(o: &OpsTask, values: [[i32; 2]; 2]) -> ([[i32; 2]; 2], bool) {
    let one = [(false, true), (true, false), (true, true)]
        .into_iter()
        .all(|(a, s)| !open_way(o, a, s) || values[a as usize][s as usize] == values[0][0]);
    (values, one)
}

/// [`fold_values`]' values read from the thread's reading of the effects (`Values`): the same
/// values, 0 for a way no longer open.
fn read_values(values: &mut Values, o: &OpsTask) -> ([[i32; 2]; 2], bool) {
    let Some(card) = o.card else {
        let v = o.granted as i32;
        return ([[v; 2]; 2], true);
    };
    let mut v = values.of(o.side, card);
    for asia in [false, true] {
        for sea in [false, true] {
            if !open_way(o, asia, sea) {
                v[asia as usize][sea as usize] = 0;
            }
        }
    }
    one_value(o, v)
}

/// [`values_for`] folded afresh from the Ops modifiers in play.
fn fold_values(p: Position, o: &OpsTask) -> ([[i32; 2]; 2], bool) {
    let Some(card) = o.card else {
        let v = o.granted as i32;
        return ([[v; 2]; 2], true);
    };
    let mods = p.ops_modifiers();
    // The fold reads how the Ops are spent only through its modifiers' conditions (§7.4; The
    // China Card's own +1 is one, §9.6): with none of them conditional, every way of spending
    // has one value, folded once.
    let one_value = card != CardId::CHINA && mods.iter().all(|m| m.condition == OpsCondition::Always);
    let mut values = [[0; 2]; 2];
    for asia in [false, true] {
        for sea in [false, true] {
            if !open_way(o, asia, sea) {
                continue;
            }
            values[asia as usize][sea as usize] = if one_value && (asia || sea) {
                values[0][0]
            } else {
                ctx::ops_number_with(p, &mods, card, o.side, Spend { all_in_asia: asia, all_in_southeast_asia: sea })
            };
        }
    }
    (values, one_value)
}

/// The values to keep in the task for its next Op, under the effects' version now (none if one
/// does not fit the kept form: then the next Op folds them again).
fn keep(p: Position, values: [[i32; 2]; 2]) -> KeptValues {
    let mut kept = [[0i8; 2]; 2];
    for (k, v) in kept.iter_mut().flatten().zip(values.iter().flatten()) {
        match i8::try_from(*v) {
            Ok(x) => *k = x,
            Err(_) => return KeptValues(None),
        }
    }
    KeptValues(Some((p.st.effects_version.0, kept)))
}

/// Do the values `o` keeps, if they still hold, agree with those folded afresh, for every way
/// the rest may still be spent? (The invariant checks, after every move.)
pub fn kept_values_agree(p: Position, o: &OpsTask) -> bool {
    let (kept, _) = values_for(p, o);
    let (fresh, _) = fold_values(p, o);
    [false, true]
        .into_iter()
        .all(|a| [false, true].into_iter().all(|s| !open_way(o, a, s) || kept[a as usize][s as usize] == fresh[a as usize][s as usize]))
}

/// A condition a country must meet to receive an Op, in the order a refusal names the first
/// one it fails. Each is a set of countries ([`Judge::passing`]): listing takes the countries
/// that pass every condition of the activity, validation explains the first condition failed.
/// One set of masks decides both, so the list and the checks cannot disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Condition {
    /// Inside the countries the event allows (Junta, Che…).
    InTargets,
    /// §6.1.1: in or next to the player's Influence at the start of the round, or next to its
    /// superpower.
    Access,
    /// §6.2, §6.3.1: the target holds opponent Influence.
    OpponentInfluence,
    /// §8.1.5: the region is not closed by DEFCON.
    OpenAtDefcon,
    /// No effect in play forbids it (permission vetoes).
    NotVetoed,
    /// §6.1.2: the Ops left, if spent there, pay for it (a marker costs 2 in an
    /// enemy-controlled country; a roll or a coup needs one Op).
    Affordable,
}

impl Condition {
    /// The conditions of each activity, in the order they are judged.
    fn of(kind: OpsKind) -> &'static [Condition] {
        use Condition::*;
        match kind {
            OpsKind::Influence => &[InTargets, Access, NotVetoed, Affordable],
            OpsKind::Realign | OpsKind::Coup => &[InTargets, OpponentInfluence, OpenAtDefcon, NotVetoed, Affordable],
        }
    }
}

/// The arbitrator of one Ops decision. What is the same for every candidate move (the Ops value
/// for each way of spending, the vetoes in force, the country sets of each [`Condition`]) is
/// computed once; `check` then judges a move and `legal` lists the moves.
pub struct Judge<'a> {
    p: Position<'a>,
    o: &'a OpsTask,
    /// Ops value indexed by (all in Asia, all in Southeast Asia).
    values: [[i32; 2]; 2],
    /// Country bitmasks for this decision: open to Influence (§6.1.1), controlled by the
    /// opponent (§6.1.2), holding opponent Influence, closed by DEFCON (§8.1.5), inside the
    /// event's targets; and per activity (influence, realign, coup): vetoed, affordable, and
    /// allowed (passing every condition).
    access: u128,
    enemy_controlled: u128,
    opp_presence: u128,
    closed: u128,
    in_regions: u128,
    vetoed: [u128; 3],
    affordable: [u128; 3],
    allowed: [u128; 3],
    /// Compose rejection messages (validating a player's move), or not (listing legal moves).
    explain: bool,
}

fn kind_index(kind: OpsKind) -> usize {
    match kind {
        OpsKind::Influence => 0,
        OpsKind::Realign => 1,
        OpsKind::Coup => 2,
    }
}

/// A veto in play as the Ops judge reads it: who may not do what, and its scope
/// (`Veto::scope_parts`), read from the effects once for as long as they stay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KeptVeto {
    actor: Side,
    actions: &'static [Action],
    scope: ScopeParts,
}

impl KeptVeto {
    fn of(v: &Veto, st: &crate::state::State) -> KeptVeto {
        KeptVeto { actor: v.actor, actions: v.actions, scope: v.scope_parts(st) }
    }
    /// `Veto::applies`.
    fn applies(&self, actor: Side, action: Action) -> bool {
        actor == self.actor && self.actions.contains(&action)
    }
}

/// The rows of the Ops values: a card's printed Ops, 0 to 4, then The China Card. The fold
/// (`ctx::ops_number_with`) reads of a card only these (`ctx::ops_groups`).
const ROWS: usize = 6;
const CHINA_ROW: usize = ROWS - 1;

/// What the Ops judges read of the effects in play, read once for as long as they stay instead
/// of at every decision: the vetoes (§6: NATO, US/Japan Mutual Defense Pact…), the Ops
/// modifiers (§7.4), and the Ops values folded from them, by row, side and way of spending.
struct Reading {
    /// What it was read from: the ruleset's lasting effects (`Ruleset::lasting_id`) and the
    /// effects in play, in order. A lasting effect's vetoes and modifiers are a function of its
    /// effect alone (`Lasting::vetoes`, `Lasting::ops_modifiers`), and a veto's scope reads of
    /// the effects only which are in play (`Veto::scope_parts`), so equal keys give an equal
    /// reading. `None`: nothing read yet.
    key: Option<u64>,
    effects: Vec<Effect>,
    /// This reading's number, new at every reading and unique across threads (0: none yet),
    /// which a game keeps to find it again ([`KeptReading`]).
    generation: u64,
    vetoes: Vec<KeptVeto>,
    mods: Vec<OpsModifier>,
    /// None of `mods` is conditional: every way of spending a card other than The China Card
    /// (whose own +1 is conditional, §9.6) has one value.
    unconditional: bool,
    /// Per side, the values folded (bit `4 * row + way`).
    folded: [u32; 2],
    /// Per side and row, the value of each way, `2 * all in Asia + all in Southeast Asia`.
    values: [[[i32; 4]; ROWS]; 2],
    /// Scratch for the vetoes read (cleared at every reading).
    scratch: Vec<Veto>,
    /// The modifiers of the reading before, which `values` were folded under: a new reading
    /// keeps them where it reads the same modifiers of the same ruleset.
    previous_mods: Vec<OpsModifier>,
}

thread_local! {
    /// The reading of this thread. Keyed by what it was read from (not by a game's effects'
    /// version), it holds for any game on the thread with the same ruleset and effects.
    static READING: std::cell::RefCell<Reading> = const {
        std::cell::RefCell::new(Reading {
            key: None,
            effects: Vec::new(),
            generation: 0,
            vetoes: Vec::new(),
            mods: Vec::new(),
            unconditional: true,
            folded: [0; 2],
            values: [[[0; 4]; ROWS]; 2],
            scratch: Vec::new(),
            previous_mods: Vec::new(),
        })
    };
}

impl Reading {
    /// Read the effects of `p` again.
    fn read(&mut self, p: Position) {
        static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        self.generation = GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let key = Some(p.rules.lasting_id());
        let same_ruleset = self.key == key;
        self.key = key;
        self.effects.clone_from(&p.st.effects);
        self.scratch.clear();
        std::mem::swap(&mut self.mods, &mut self.previous_mods);
        self.mods.clear();
        for (e, l) in p.lasting() {
            l.vetoes(e, &mut self.scratch);
            l.ops_modifiers(e, &mut self.mods);
        }
        self.vetoes.clear();
        self.vetoes.extend(self.scratch.iter().map(|v| KeptVeto::of(v, p.st)));
        self.unconditional = self.mods.iter().all(|m| m.condition == OpsCondition::Always);
        // The values folded stay where the modifiers do: the fold reads of the effects only
        // their Ops modifiers (§7.4), and of the ruleset a row's printed Ops (`Values::row`);
        // most changes of the effects (an event's lasting effect, one ended) modify no Ops.
        if !same_ruleset || self.mods != self.previous_mods {
            self.folded = [0; 2];
        }
    }

    /// Was this reading read from the effects of `p`?
    fn holds(&self, p: Position) -> bool {
        self.key == Some(p.rules.lasting_id()) && self.effects == p.st.effects
    }
}

/// `f`, with the thread's reading of the effects of `p` (read again if it was read from other
/// effects).
fn with_reading<R>(p: Position, f: impl FnOnce(&mut Reading) -> R) -> R {
    with_reading_kept(p, &mut KeptReading::default(), f)
}

/// [`with_reading`], the reading found without comparing the effects where `kept` names it
/// under the effects' version now, and named there otherwise.
fn with_reading_kept<R>(p: Position, kept: &mut KeptReading, f: impl FnOnce(&mut Reading) -> R) -> R {
    READING.with_borrow_mut(|r| {
        let version = p.st.effects_version.0;
        if kept.0 != Some((r.generation, version)) || r.generation == 0 {
            if !r.holds(p) {
                r.read(p);
            }
            *kept = KeptReading(Some((r.generation, version)));
        }
        f(r)
    })
}

/// The Ops values of cards under the modifiers in play (§7.4), from the thread's reading of the
/// effects, folded there when first asked (`ctx::ops_number_with`, the one fold).
pub struct Values<'t> {
    p: Position<'t>,
    reading: &'t mut Reading,
}

impl Values<'_> {
    /// The row of `card` (`None` for a card of more Ops than any row: none in the game).
    #[inline]
    fn row(&self, card: CardId) -> Option<usize> {
        if card == CardId::CHINA {
            return Some(CHINA_ROW);
        }
        let ops = self.p.cards().info(card).ops as usize;
        (ops < CHINA_ROW).then_some(ops)
    }

    /// The value of way `way` (`2 * all in Asia + all in Southeast Asia`) of `card`, in `row`.
    #[inline]
    fn way(&mut self, side: Side, card: CardId, row: usize, way: usize) -> i32 {
        let r = &mut *self.reading;
        let bit = 1u32 << (4 * row + way);
        if r.folded[side.idx()] & bit == 0 {
            let spend = Spend { all_in_asia: way & 2 != 0, all_in_southeast_asia: way & 1 != 0 };
            let v = ctx::ops_number_with(self.p, &r.mods, card, side, spend);
            if r.unconditional && row != CHINA_ROW {
                // The fold reads how the Ops are spent only through its modifiers' conditions:
                // with none, one value for every way.
                r.values[side.idx()][row] = [v; 4];
                r.folded[side.idx()] |= 0xf << (4 * row);
            } else {
                r.values[side.idx()][row][way] = v;
                r.folded[side.idx()] |= bit;
            }
        }
        r.values[side.idx()][row][way]
    }

    /// The Ops value of `card` played by `side`, for each way of spending, `[all in
    /// Asia][all in Southeast Asia]`.
    pub fn of(&mut self, side: Side, card: CardId) -> [[i32; 2]; 2] {
        let Some(row) = self.row(card) else {
            return fold_ways(self.p, &self.reading.mods, side, card);
        };
        if self.reading.folded[side.idx()] >> (4 * row) & 0xf != 0xf {
            for way in 0..4 {
                self.way(side, card, row, way);
            }
        }
        let v = self.reading.values[side.idx()][row];
        [[v[0], v[1]], [v[2], v[3]]]
    }

    /// The Ops value of `card` played by `side` spent in no region (the space race, §6.4.1).
    pub fn nowhere(&mut self, side: Side, card: CardId) -> i32 {
        match self.row(card) {
            Some(row) => self.way(side, card, row, 0),
            None => ctx::ops_number_with(self.p, &self.reading.mods, card, side, Spend::NOWHERE),
        }
    }
}

/// `f`, reading the Ops values of the modifiers in play from the thread's reading of the
/// effects.
pub fn with_values<R>(p: Position, f: impl FnOnce(&mut Values) -> R) -> R {
    with_reading(p, |reading| f(&mut Values { p, reading }))
}

/// [`with_values`], the reading found as [`with_reading_kept`] finds it.
pub fn with_values_kept<R>(p: Position, kept: &mut KeptReading, f: impl FnOnce(&mut Values) -> R) -> R {
    with_reading_kept(p, kept, |reading| f(&mut Values { p, reading }))
}

/// The Ops value of `card` played by `side` for each way of spending, folded afresh under
/// `mods`.
fn fold_ways(p: Position, mods: &[OpsModifier], side: Side, card: CardId) -> [[i32; 2]; 2] {
    let mut values = [[0; 2]; 2];
    for asia in [false, true] {
        for sea in [false, true] {
            values[asia as usize][sea as usize] =
                ctx::ops_number_with(p, mods, card, side, Spend { all_in_asia: asia, all_in_southeast_asia: sea });
        }
    }
    values
}

/// Does the thread's reading of the effects, where it holds for `p`, agree with one made
/// afresh: the vetoes, the modifiers, and every Ops value folded (each row's, by side and way,
/// folded again on one card of the row)? (The invariant checks, after every move.)
pub fn reading_agrees(p: Position) -> bool {
    let mods = p.ops_modifiers();
    let vetoes: Vec<KeptVeto> = p.vetoes().iter().map(|v| KeptVeto::of(v, p.st)).collect();
    // One card of each row (a row's cards have one value, `ctx::ops_groups`).
    let by_ops = p.cards().by_ops();
    let rows = (0..ROWS).filter_map(|row| match row {
        CHINA_ROW => Some((row, CardId::CHINA)),
        _ => CardSet(by_ops[row].0 & !(1u128 << CardId::CHINA.0)).iter().next().map(|c| (row, c)),
    });
    let kept = READING.with_borrow(|r| {
        r.holds(p).then(|| {
            // Every way folded, with its value.
            let values = rows.flat_map(|(row, card)| {
                Side::BOTH.into_iter().flat_map(move |side| {
                    (0..4)
                        .filter(move |way| r.folded[side.idx()] >> (4 * row + way) & 1 != 0)
                        .map(move |way| (side, card, way, r.values[side.idx()][row][way]))
                })
            });
            (r.vetoes == vetoes && r.mods == mods, values.collect::<Vec<_>>())
        })
    });
    match kept {
        Some((same, values)) => {
            same && values.into_iter().all(|(side, card, way, v)| v == fold_ways(p, &mods, side, card)[way / 2][way % 2])
        }
        None => true,
    }
}

/// The action a permission veto names for an Op of `kind`.
fn action_of(kind: OpsKind) -> Action {
    match kind {
        OpsKind::Influence => Action::Influence,
        OpsKind::Realign => Action::Realign,
        OpsKind::Coup => Action::Coup,
    }
}

const KINDS: [OpsKind; 3] = [OpsKind::Influence, OpsKind::Realign, OpsKind::Coup];

impl<'a> Judge<'a> {
    pub fn new(p: Position<'a>, o: &'a OpsTask, explain: bool) -> Judge<'a> {
        Judge::kept(p, o, explain, &mut KeptAccess::default())
    }

    /// [`Judge::new`], reading the access mask from `access` where it holds (and keeping it
    /// there otherwise): the listing, from one Op of a card to the next. Inlined into the
    /// listing, which reads only `allowed`: the judge is not copied out to it.
    #[inline]
    pub fn kept(p: Position<'a>, o: &'a OpsTask, explain: bool, access: &mut KeptAccess) -> Judge<'a> {
        let map = Map::standard();
        let side = o.side;
        let masks = p.st.masks();
        // Each veto's scope judged once, for the activities it forbids that are still open (a
        // closed one is refused before its countries are judged, `check`, and lists no move);
        // the vetoes and the Ops values read from the thread's reading of the effects.
        let mut vetoed = [0u128; 3];
        let (values, one_value) = with_reading_kept(p, &mut access.1, |reading| {
            for v in reading.vetoes.iter() {
                let open = KINDS.map(|kind| o.allows(kind) && v.applies(side, action_of(kind)));
                if open.contains(&true) {
                    let m = v.scope.mask(&masks);
                    for (k, open) in open.into_iter().enumerate() {
                        if open {
                            vetoed[k] |= m;
                        }
                    }
                }
            }
            values_kept(p, o, reading)
        });
        let closed =
            crate::map::Region::ALL.into_iter().filter(|r| defcon::closes(p.st.defcon, *r)).fold(0u128, |m, r| m | map.region_mask(r));
        let enemy_controlled = masks.control[side.opponent().idx()];
        // The Ops left if the next Op goes to a country, by the four ways `spend_after` can
        // judge it (in Asia or not, in Southeast Asia or not, where the condition still holds).
        let asia = if o.spend.all_in_asia { map.region_mask(crate::map::Region::Asia) } else { 0 };
        let sea = if o.spend.all_in_southeast_asia { map.sub_mask(crate::map::SubRegion::SoutheastAsia) } else { 0 };
        let mut affordable = [0u128; 3];
        for a in [false, true] {
            for s in [false, true] {
                // A way the rest can no longer be spent has no country (its value was not read);
                // with one value for every way, the first way's judgement covers every country.
                if !open_way(o, a, s) || (one_value && (a || s)) {
                    continue;
                }
                let group = if one_value { u128::MAX } else { (if a { asia } else { !asia }) & (if s { sea } else { !sea }) };
                let left = values[a as usize][s as usize] - o.spent as i32;
                let influence = match left {
                    i32::MIN..=0 => 0,
                    1 => !enemy_controlled,
                    2.. => u128::MAX,
                };
                let roll = if left >= 1 { u128::MAX } else { 0 };
                affordable[0] |= group & influence;
                affordable[1] |= group & roll;
                affordable[2] |= group & roll;
            }
        }
        let mut j = Judge {
            p,
            o,
            values,
            // Read only for placements (`Condition::of`), and only while they are open.
            access: if o.allows(OpsKind::Influence) { access.get(p, side) } else { 0 },
            enemy_controlled,
            opp_presence: masks.presence[side.opponent().idx()],
            closed: if o.free { 0 } else { closed },
            in_regions: o.targets,
            vetoed,
            affordable,
            allowed: [0; 3],
            explain,
        };
        for kind in KINDS {
            j.allowed[kind_index(kind)] =
                if o.allows(kind) { Condition::of(kind).iter().fold(map.all_mask(), |m, c| m & j.passing(kind, *c)) } else { 0 };
        }
        j
    }

    /// The countries open to each activity (influence, realign, coup): the sets `legal` lists.
    pub fn allowed(&self) -> [u128; 3] {
        self.allowed
    }

    /// The countries that pass `cond` for an Op of `kind`.
    fn passing(&self, kind: OpsKind, cond: Condition) -> u128 {
        match cond {
            Condition::InTargets => self.in_regions,
            Condition::Access => self.access,
            Condition::OpponentInfluence => self.opp_presence,
            Condition::OpenAtDefcon => !self.closed,
            Condition::NotVetoed => !self.vetoed[kind_index(kind)],
            Condition::Affordable => self.affordable[kind_index(kind)],
        }
    }

    fn avail(&self, s: Spend) -> i32 {
        self.values[s.all_in_asia as usize][s.all_in_southeast_asia as usize]
    }

    /// Every legal move, in country order, and for each country influence, realignment, coup
    /// (`Listing::Ops`, which a decision keeps instead of the list).
    pub fn legal(&self) -> Vec<Move> {
        crate::listing::Listing::Ops { allowed: self.allowed, standing: Vec::new() }.to_vec()
    }

    pub fn check(&self, m: &Move) -> Result<(), Illegal> {
        let (o, explain) = (self.o, self.explain);
        let (kind, c) = match m {
            Move::Influence(c) => (OpsKind::Influence, *c),
            Move::Realign(c) => (OpsKind::Realign, *c),
            Move::Coup(c) => (OpsKind::Coup, *c),
            _ => return illegal("Operations are spent with `influence`, `realign` or `coup`", "§6"),
        };
        if !o.allows(kind) {
            return match o.kind {
                Some(k) if k != kind => {
                    refuse!(
                        explain,
                        "§6",
                        "these Ops are already spent on {}: all Ops go to one activity, so continue with it",
                        kind_words(k)
                    )
                }
                _ => {
                    let allowed: Vec<&str> = KINDS.into_iter().filter(|k| o.allows(*k)).map(kind_words).collect();
                    let (by, rule) = self.limited_by();
                    refuse!(explain, rule, "{by} allows these Ops only for {}, not for {}", allowed.join(" or "), kind_words(kind))
                }
            };
        }
        if self.allowed[kind_index(kind)] & c.bit() != 0 {
            return Ok(());
        }
        match Condition::of(kind).iter().find(|cond| self.passing(kind, **cond) & c.bit() == 0) {
            Some(cond) => self.refusal(kind, *cond, c),
            // Outside the map's countries (not a well-formed move).
            None => illegal("no such country", "§2"),
        }
    }

    /// The event limiting these Ops, by name, and its rule.
    fn limited_by(&self) -> (&'a str, &'static str) {
        match self.o.by {
            Some(card) => (self.p.cards().name(card), card.cite()),
            None => ("the event", "card text"),
        }
    }

    /// Why an Op of `kind` may not go to `c`, which fails `cond`.
    fn refusal(&self, kind: OpsKind, cond: Condition, c: CountryId) -> Result<(), Illegal> {
        let (p, o, explain) = (self.p, self.o, self.explain);
        let side = o.side;
        let country = Map::standard().country(c);
        let name = &country.name;
        let rule = if kind == OpsKind::Coup { "§6.3.1" } else { "§6.2" };
        match cond {
            Condition::InTargets => {
                let (by, rule) = self.limited_by();
                refuse!(explain, rule, "{name} is not among the countries the event allows: {by} limits where these Ops go")
            }
            Condition::Access => {
                refuse!(explain, "§6.1.1", "{side} had no Influence in or next to {name} at the start of the action round")
            }
            Condition::OpponentInfluence => refuse!(explain, rule, "the target has no {} Influence in {name}", side.opponent()),
            Condition::OpenAtDefcon => {
                let what = if kind == OpsKind::Coup { "coups" } else { "realignments" };
                refuse!(explain, "§8.1.5", "DEFCON {} closes {} to {what}", p.st.defcon, country.region)
            }
            Condition::NotVetoed => {
                // The vetoes read again (a refusal explained, not the hot path): the first that
                // forbids it names it, by the rule the mask was made with.
                let masks = p.st.masks();
                match p.vetoes().iter().find(|v| v.mask(p.st, &masks, side, action_of(kind)) & c.bit() != 0) {
                    Some(v) => refuse!(explain, v.rule, "{} ({})", v.reason, p.cards().name(v.source)),
                    None => illegal("forbidden by an effect in play", "card text"),
                }
            }
            Condition::Affordable if kind == OpsKind::Influence => {
                let avail = self.avail(spend_after(o, c));
                let cost = marker_cost(self.enemy_controlled & c.bit() != 0);
                let rule = if cost == 2 { "§6.1.2" } else { "§6.1" };
                refuse!(explain, rule, "{name} costs {cost} Op(s) and only {} remain if spent there", (avail - o.spent as i32).max(0))
            }
            Condition::Affordable => illegal("no Ops remain", "§6.2"),
        }
    }
}

/// An activity in a player's words.
fn kind_words(k: OpsKind) -> &'static str {
    match k {
        OpsKind::Influence => "placing Influence",
        OpsKind::Realign => "realignment rolls",
        OpsKind::Coup => "a coup",
    }
}

pub fn check(p: Position, o: &OpsTask, m: &Move) -> Result<(), Illegal> {
    Judge::new(p, o, true).check(m)
}

pub fn apply(ctx: &mut Ctx, mut o: OpsTask, m: &Move) {
    let side = o.side;
    match *m {
        Move::Influence(c) => {
            let cost = marker_cost(ctx.st.controls(side.opponent(), c));
            o.kind = Some(OpsKind::Influence);
            o.spent += cost;
            o.spend = spend_after(&o, c);
            if cost == 2 {
                log!(ctx, "{} is {}-controlled: this marker costs 2 Ops (§6.1.2)", Map::standard().name(c), side.opponent());
            }
            ctx.exec(crate::instr::Instr::AddInfluence { side, country: c, n: 1 });
            continue_or_finish(ctx, o);
        }
        Move::Realign(c) => {
            o.kind = Some(OpsKind::Realign);
            o.spent += 1;
            o.spend = spend_after(&o, c);
            crate::realign::resolve(ctx, side, c);
            continue_or_finish(ctx, o);
        }
        Move::Coup(c) => {
            o.kind = Some(OpsKind::Coup);
            o.spend = spend_after(&o, c);
            o.spent = if ctx.logging {
                let ops = value(ctx.pos(), &o, o.spend);
                ctx.log(format!("{side} Ops value: {ops}"));
                ops.value as u8
            } else {
                value_number(ctx.pos(), &o, o.spend) as u8
            };
            let removed = crate::coup::resolve(ctx, side, c, o.spent, o.free);
            if let Some(mut then) = o.then {
                then.picked = then.picked.with_country(c);
                then.count = removed;
                ctx.push(Task::Continue(then));
            }
        }
        _ => {}
    }
}

fn continue_or_finish(ctx: &mut Ctx, mut o: OpsTask) {
    // The values from the thread's reading of the effects if the task keeps none (its first
    // Op), found as the listing of this Op left it (`KeptAccess`).
    let (values, _) = match o.kept.0 {
        Some((version, _)) if version == ctx.st.effects_version.0 => values_for(ctx.pos(), &o),
        _ => {
            let mut access = ctx.access.get();
            let values = with_values_kept(ctx.pos(), &mut access.1, |values| read_values(values, &o));
            ctx.access.set(access);
            values
        }
    };
    let total = values[o.spend.all_in_asia as usize][o.spend.all_in_southeast_asia as usize];
    if (o.spent as i32) < total {
        // More to spend: `flow::run` finishes the task if no legal use remains. The next Op
        // reads these values while the effects in play stay as they are.
        o.kept = keep(ctx.pos(), values);
        ctx.push(Task::Ops(o));
    } else {
        finish(ctx, &o, "all spent");
    }
}

/// Log the final Ops value, following how they were actually spent; an event waiting on these
/// Ops continues.
pub fn finish(ctx: &mut Ctx, o: &OpsTask, why: &str) {
    if let Some(then) = o.then {
        ctx.push(Task::Continue(then));
    }
    // Only the log reads the value here: its trace is composed only for it.
    if !ctx.logging {
        return;
    }
    let v = value(ctx.pos(), o, o.spend);
    let unused = v.value - o.spent as i32;
    if unused > 0 {
        ctx.log(format!("{} Ops value: {v}; {} spent, {unused} lost: {why}", o.side, o.spent));
    } else {
        ctx.log(format!("{} Ops value: {v}; all spent", o.side));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The countries next to a set, read by runs of eight, are those of its countries'
    /// adjacency masks: for every country alone, every pair of countries, and sets of many.
    #[test]
    fn next_to_by_runs_is_the_union_of_adjacency() {
        let map = Map::standard();
        let by_fold = |s: u128| crate::map::iter_mask(s).fold(0, |m, c| m | map.adjacency_mask(c));
        let all = map.all_mask();
        let ids: Vec<u32> = (0..128).filter(|i| all >> i & 1 != 0).collect();
        for &a in &ids {
            for &b in &ids {
                let s = 1u128 << a | 1u128 << b;
                assert_eq!(next_to(s), by_fold(s), "countries {a} and {b}");
                assert_eq!(next_to_every_run(s), by_fold(s), "countries {a} and {b}");
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(next_to(x & all), by_fold(x & all));
            assert_eq!(next_to_every_run(x & all), by_fold(x & all));
        }
        assert_eq!(next_to(all), by_fold(all));
        assert_eq!(next_to_every_run(all), by_fold(all));
    }
}
