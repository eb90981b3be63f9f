//! Spending Operations (§6): one activity per card. Influence one marker at a time (cost
//! re-checked per marker, §6.1.2), realignment one roll at a time, or one coup. The Ops value
//! follows how the Ops are actually spent (the China Card's and Vietnam Revolts' conditions).

use crate::card::CardId;
use crate::ctx::{self, Ctx};
use crate::defcon;
use crate::error::{illegal, Illegal};
use crate::log;
use crate::map::{CountryId, Map};
use crate::moves::Move;
use crate::permission::Action;
use crate::pipeline::{OpsCondition, Spend, Traced};
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
/// modifiers (`pipeline::ops_number`).
fn value_number(p: Position, o: &OpsTask, spend: Spend) -> i32 {
    match o.card {
        Some(card) => ctx::ops_number(p, card, o.side, spend),
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
    let had = p.st.round_start_presence[side.idx()];
    had | Map::standard().superpower_mask(side) | next_to(had)
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

/// An access mask (§6.1.1) kept from one Ops decision's listing to the next (`Game` keeps it
/// between moves, as it keeps the effects in play), with its only inputs: the side and that
/// side's Influence at the start of the round (`State::round_start_presence`). It holds while
/// they are the decision's, which every use checks. Kept outside the Ops task: the task is
/// copied with every push and pop of the work stack, and 48 bytes more made those copies cost
/// more than the fold they saved.
///
/// It also carries the Ops values a listing folded for an Op whose task kept none
/// ([`KeptCardValues`]), for that Op's `apply`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptAccess(pub Option<(Side, u128, u128)>, pub KeptCardValues);

/// The Ops values ([`values_for`]) a listing folded for an Op whose task kept none (the first
/// Op of a card), kept for that Op's `apply` (`continue_or_finish`), which folded them again
/// before the task could keep them (`OpsTask::kept`). With every input of the fold: the effects'
/// version, the side, the card, and the ways of spending still open then (a closed way's value
/// is 0, not its value). It holds for a task of that side and card whose open ways are among
/// them, under that version, which every use checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptCardValues(pub Option<(u32, Side, CardId, Spend, [[i8; 2]; 2])>);

impl KeptCardValues {
    /// The values kept for `o`, if they hold.
    fn get(&self, p: Position, o: &OpsTask) -> Option<[[i32; 2]; 2]> {
        match (self.0, o.card) {
            (Some((version, side, card, open, values)), Some(c))
                if version == p.st.effects_version.0
                    && side == o.side
                    && card == c
                    && (open.all_in_asia || !o.spend.all_in_asia)
                    && (open.all_in_southeast_asia || !o.spend.all_in_southeast_asia) =>
            {
                Some(values.map(|row| row.map(i32::from)))
            }
            _ => None,
        }
    }

    /// Keep `values`, folded for `o` (none if they do not fit the kept form, or the Ops were
    /// granted by an event: those fold nothing).
    fn keep(p: Position, o: &OpsTask, values: [[i32; 2]; 2]) -> KeptCardValues {
        match (keep(p, values), o.card) {
            (KeptValues(Some((version, kept))), Some(card)) => KeptCardValues(Some((version, o.side, card, o.spend, kept))),
            _ => KeptCardValues(None),
        }
    }

    /// Do the kept values, where they hold in `p`, agree with those folded afresh? (The
    /// invariant checks, after every move.)
    pub fn agrees(&self, p: Position) -> bool {
        match self.0 {
            Some((version, side, card, open, _)) if version == p.st.effects_version.0 => {
                let o = OpsTask { spend: open, ..OpsTask::for_card(side, card) };
                self.get(p, &o) == Some(fold_values(p, &o).0)
            }
            Some(_) | None => true,
        }
    }
}

impl KeptAccess {
    /// The access mask of `side` now: the kept one if it holds, else computed and kept.
    pub fn get(&mut self, p: Position, side: Side) -> u128 {
        let had = p.st.round_start_presence[side.idx()];
        match self.0 {
            Some((s, h, access)) if s == side && h == had => access,
            _ => {
                let access = access_mask(p, side);
                self.0 = Some((side, had, access));
                access
            }
        }
    }

    /// Does the kept mask, where it holds in `p`, agree with one computed afresh? (The
    /// invariant checks, after every move.)
    pub fn agrees(&self, p: Position) -> bool {
        let access = match self.0 {
            Some((side, had, access)) if had == p.st.round_start_presence[side.idx()] => access == access_mask(p, side),
            Some(_) | None => true,
        };
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

/// [`values_for`], reading the values a listing kept (`card_values`) where the task keeps none,
/// and keeping there those it folds.
fn values_kept(p: Position, o: &OpsTask, card_values: &mut KeptCardValues) -> ([[i32; 2]; 2], bool) {
    match o.kept.0 {
        Some((version, _)) if version == p.st.effects_version.0 => values_for(p, o),
        _ => match card_values.get(p, o) {
            Some(values) => one_value(o, values),
            None => {
                let folded = fold_values(p, o);
                *card_values = KeptCardValues::keep(p, o, folded.0);
                folded
            }
        },
    }
}

/// `values`, with whether the ways still open have one value.
fn one_value(o: &OpsTask, values: [[i32; 2]; 2]) -> ([[i32; 2]; 2], bool) {
    let one = [(false, true), (true, false), (true, true)]
        .into_iter()
        .all(|(a, s)| !open_way(o, a, s) || values[a as usize][s as usize] == values[0][0]);
    (values, one)
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

thread_local! {
    /// The vetoes in play, read into one list per thread: every Ops decision reads them, and a
    /// list of its own cost an allocation each time. Scratch only: cleared at every use, never
    /// read across uses (`Position::vetoes` is the same reading, into a list of its own).
    static VETOES: std::cell::RefCell<Vec<crate::permission::Veto>> = const { std::cell::RefCell::new(Vec::new()) };
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
        let (values, one_value) = values_kept(p, o, &mut access.1);
        let map = Map::standard();
        let side = o.side;
        let masks = p.st.masks();
        // Each veto's scope judged once, for the activities it forbids that are still open (a
        // closed one is refused before its countries are judged, `check`, and lists no move).
        let mut vetoed = [0u128; 3];
        VETOES.with_borrow_mut(|vetoes| {
            vetoes.clear();
            for (e, l) in p.lasting() {
                l.vetoes(e, vetoes);
            }
            for v in vetoes.iter() {
                let open = KINDS.map(|kind| o.allows(kind) && v.applies(side, action_of(kind)));
                if open.contains(&true) {
                    let m = v.scope_mask(p.st, &masks);
                    for (k, open) in open.into_iter().enumerate() {
                        if open {
                            vetoed[k] |= m;
                        }
                    }
                }
            }
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
    // The values the listing of this Op folded, if the task keeps none (its first Op): read,
    // not kept again (the listing keeps what it folds).
    let (values, _) = match o.kept.0 {
        Some((version, _)) if version == ctx.st.effects_version.0 => values_for(ctx.pos(), &o),
        _ => match ctx.access.get().1.get(ctx.pos(), &o) {
            Some(values) => one_value(&o, values),
            None => fold_values(ctx.pos(), &o),
        },
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
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(next_to(x & all), by_fold(x & all));
        }
        assert_eq!(next_to(all), by_fold(all));
    }
}
