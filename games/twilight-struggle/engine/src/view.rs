//! Per-player views: what the US, the USSR or an observer may see. The other hand, the deck
//! order, a secret headline and the random source stay hidden.

use crate::card::CardId;
use crate::effect::{Effect, Memo, Remembers};
use crate::flow;
use crate::map::Map;
use crate::registry::Position;
use crate::side::Side;
use crate::state::Outcome;
use crate::task::Task;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PerSide<T> {
    pub us: T,
    pub ussr: T,
}

impl<T: Copy> PerSide<T> {
    pub fn of(a: [T; 2]) -> Self {
        PerSide { us: a[0], ussr: a[1] }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChinaView {
    pub holder: Side,
    pub face_up: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EffectView {
    pub card: String,
    pub owner: Side,
    /// How long it lasts, in words.
    pub lasts: String,
    /// What it remembers, in the game's words, where its card remembers something
    /// (`Lasting::shape`): the region named (Chernobyl), the turn played (North Sea Oil), the
    /// battleground chosen during a scoring (Shuttle Diplomacy), whether its flag is set (NORAD,
    /// "We Will Bury You").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flag: Option<bool>,
}

impl EffectView {
    fn of(p: Position, e: &Effect) -> EffectView {
        let mut v = EffectView {
            card: p.cards().name(e.card).to_string(),
            owner: e.owner,
            lasts: e.expiry.text(),
            region: None,
            turn: None,
            country: None,
            flag: None,
        };
        if let Some(Remembers::Flag { .. }) = p.rules.shape(e.card).map(|s| s.remembers) {
            v.flag = Some(e.memo == Memo::Flag);
        }
        match e.memo {
            Memo::Nothing | Memo::Flag => {}
            Memo::Region(r) => v.region = Some(r.name().to_string()),
            Memo::Turn(t) => v.turn = Some(t),
            Memo::Country(c) => v.country = Some(Map::standard().name(c).to_string()),
        }
        v
    }
}

/// One side on the space race track (§6.4): the box reached, what the next needs, and the
/// abilities it holds (§6.4.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpaceTrackView {
    /// 0 (not started) to 8.
    pub reached: u8,
    /// The box's name ("start" at 0).
    pub name: String,
    /// The next box: its name, the Ops a card needs and the highest roll that succeeds.
    pub next: Option<(String, u8, u8)>,
    pub abilities: Vec<String>,
}

/// Rules facts a client shows beside the state, computed here so that no client repeats a
/// rule: the rounds of this turn, the regions DEFCON closes, the military ops required, the
/// space track, who controls what, and the game's phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RulesView {
    /// "setup", "headline", "action round" or "over".
    pub phase: &'static str,
    /// Action rounds this turn for each side (§4.5D: 6 or 7, 8 with the Space Station or
    /// North Sea Oil).
    pub action_rounds: PerSide<u8>,
    /// Regions closed to coups and realignments by DEFCON (§8.1.5).
    pub closed_regions: Vec<&'static str>,
    /// Military ops each side needs by the end of the turn (§8.2): the DEFCON level.
    pub military_ops_required: u8,
    pub space: PerSide<SpaceTrackView>,
    /// Countries each side controls (§2.1.7), by name.
    pub control: BTreeMap<String, Side>,
    /// The outcome in words, once the game is over.
    pub outcome_text: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    pub viewer: Option<Side>,
    pub turn: u8,
    pub action_round: u8,
    pub phasing: Side,
    pub defcon: u8,
    pub vp: i8,
    pub military_ops: PerSide<u8>,
    pub space_race: PerSide<u8>,
    pub influence: BTreeMap<String, PerSide<u8>>,
    pub china_card: ChinaView,
    /// The viewer's own hand (empty for an observer).
    pub hand: Vec<String>,
    /// Cards of the opponent's hand the viewer has been shown (CIA Created) and that are
    /// still there.
    pub opponent_known: Vec<String>,
    /// Cards in front of their owners while their effects last.
    pub table: Vec<String>,
    pub hand_sizes: PerSide<usize>,
    pub deck_size: usize,
    pub discard: Vec<String>,
    pub removed: Vec<String>,
    pub effects: Vec<EffectView>,
    /// Headline cards the viewer may see (its own, or both once revealed), until each is
    /// resolved.
    pub headline: PerSide<Option<String>>,
    /// A side has chosen a headline the viewer may not see yet.
    pub headline_hidden: PerSide<bool>,
    pub to_move: Option<Side>,
    pub prompt: Option<String>,
    pub outcome: Option<Outcome>,
    pub rules: RulesView,
}

fn rules_view(p: Position) -> RulesView {
    use crate::space_race::BOXES;
    let st = p.st;
    let map = Map::standard();
    let setup = st.stack.iter().any(|t| matches!(t, Task::SetupPlace { .. } | Task::UsBonus { .. }));
    let space = |side: Side| {
        let b = st.space[side.idx()];
        let abilities = [
            (crate::space_race::ANIMAL_IN_SPACE, "2 attempts a turn"),
            (crate::space_race::MAN_IN_EARTH_ORBIT, "sees the headline first"),
            (crate::space_race::EAGLE_BEAR_HAS_LANDED, "may discard a held card"),
            (crate::space_race::SPACE_STATION, "8 action rounds"),
        ]
        .into_iter()
        .filter(|(a, _)| st.space_ability(side, *a))
        .map(|(_, t)| t.to_string())
        .collect();
        SpaceTrackView {
            reached: b,
            name: if b == 0 { "start".into() } else { BOXES[(b - 1) as usize].name.into() },
            next: BOXES.get(b as usize).map(|n| (n.name.to_string(), n.ops_needed, n.max_roll)),
            abilities,
        }
    };
    RulesView {
        phase: if st.outcome.is_some() {
            "over"
        } else if setup {
            "setup"
        } else if st.round == 0 {
            "headline"
        } else {
            "action round"
        },
        action_rounds: PerSide { us: crate::turn::action_rounds(p, Side::Us), ussr: crate::turn::action_rounds(p, Side::Ussr) },
        closed_regions: crate::map::Region::ALL.into_iter().filter(|r| crate::defcon::closes(st.defcon, *r)).map(|r| r.name()).collect(),
        military_ops_required: st.defcon,
        space: PerSide { us: space(Side::Us), ussr: space(Side::Ussr) },
        control: map.ids().filter_map(|c| st.controller(c).map(|s| (map.name(c).to_string(), s))).collect(),
        outcome_text: st.outcome.map(|o| o.to_string()),
    }
}

/// May `viewer` see the headline `side` has chosen? A chosen headline is secret from the other
/// side and observers until both are revealed (§4.5C), unless that side had to reveal it first
/// (Man in Earth Orbit).
pub fn headline_visible(p: Position, side: Side, viewer: Option<Side>) -> bool {
    let st = p.st;
    let top = st.stack.last().filter(|t| t.is_decision() && st.outcome.is_none());
    let choosing = matches!(top, Some(Task::HeadlineChoose { .. }));
    viewer == Some(side) || !choosing || crate::headline::reveals_first(p) == Some(side)
}

impl View {
    pub fn new(p: Position, viewer: Option<Side>) -> View {
        let st = p.st;
        let map = Map::standard();
        let names = |cs: Vec<CardId>| cs.into_iter().map(|c| p.cards().name(c).to_string()).collect::<Vec<_>>();
        let top = st.stack.last().filter(|t| t.is_decision() && st.outcome.is_none());
        let seen = |s: Side| {
            let c = st.headline[s.idx()]?;
            headline_visible(p, s, viewer).then(|| p.cards().name(c).to_string())
        };
        View {
            viewer,
            turn: st.turn,
            action_round: st.round,
            phasing: st.phasing,
            defcon: st.defcon,
            vp: st.vp,
            military_ops: PerSide::of(st.mil_ops),
            space_race: PerSide::of(st.space),
            influence: map.ids().map(|c| (map.name(c).to_string(), PerSide::of(st.influence[c.idx()]))).collect(),
            china_card: ChinaView { holder: st.china.holder, face_up: st.china.face_up },
            hand: viewer.map(|s| names(st.hand(s).iter().collect())).unwrap_or_default(),
            opponent_known: viewer
                .map(|s| {
                    let o = s.opponent();
                    names(crate::card::CardSet(st.known[o.idx()].0 & st.hand(o).0).iter().collect())
                })
                .unwrap_or_default(),
            table: names(st.table.iter().collect()),
            hand_sizes: PerSide::of([st.hand(Side::Us).len(), st.hand(Side::Ussr).len()]),
            deck_size: st.deck.len(),
            discard: names(st.discard.iter().collect()),
            removed: names(st.removed.iter().collect()),
            effects: st.effects.iter().map(|e| EffectView::of(p, e)).collect(),
            headline: PerSide { us: seen(Side::Us), ussr: seen(Side::Ussr) },
            headline_hidden: PerSide {
                us: st.headline[0].is_some() && seen(Side::Us).is_none(),
                ussr: st.headline[1].is_some() && seen(Side::Ussr).is_none(),
            },
            to_move: top.map(|t| flow::decider(p, t)),
            prompt: top.map(|t| flow::prompt(p, t).for_viewer(viewer, flow::decider(p, t))),
            outcome: st.outcome,
            rules: rules_view(p),
        }
    }
}

/// The cards `viewer` may not know in this position: for a side, the cards of the other hand it
/// has not been shown and the other side's headline while headlines are chosen (unless it had
/// to be revealed first, Man in Earth Orbit); for an observer, every unshown card of both hands,
/// both secret headlines and the draw pile. (A side may have looked at some of the draw pile,
/// Our Man in Tehran, so the pile counts as unknown to the observer only.) Secrecy tests search
/// every output for these.
pub fn hidden_from(p: Position, viewer: Option<Side>) -> crate::card::CardSet {
    let st = p.st;
    let others: Vec<Side> = match viewer {
        Some(s) => vec![s.opponent()],
        None => Side::BOTH.to_vec(),
    };
    let mut set = crate::card::CardSet::default();
    let choosing = matches!(st.stack.last(), Some(Task::HeadlineChoose { .. }));
    let first = crate::headline::reveals_first(p);
    for o in others {
        set.0 |= st.hand(o).0 & !st.known[o.idx()].0;
        if let (Some(c), true, false) = (st.headline[o.idx()], choosing, first == Some(o)) {
            set.insert(c);
        }
    }
    if viewer.is_none() {
        for c in &st.deck {
            set.insert(*c);
        }
    }
    set
}

/// The cards of `cards` whose whole names occur in `text` ("Asia Scoring" inside "Southeast
/// Asia Scoring" does not count); The China Card, whose place is public, never does.
pub fn cards_named_in(p: Position, text: &str, cards: crate::card::CardSet) -> Vec<String> {
    let db = p.cards();
    cards
        .iter()
        .filter(|c| *c != CardId::CHINA)
        .filter(|c| {
            let name = db.name(*c);
            let mut t = text.to_string();
            for longer in db.all().map(|x| x.name.as_str()).filter(|n| n.len() > name.len() && n.contains(name)) {
                t = t.replace(longer, "…");
            }
            t.contains(name)
        })
        .map(|c| db.name(c).to_string())
        .collect()
}

/// `text` without the phrases that name cards as rules, not as cards somewhere: a stated reason
/// ("… does not occur: Marshall Plan …"), a condition quoting card text. What is left names
/// cards only where they are; secrecy tests search it with `cards_named_in`.
pub fn without_rule_references(text: &str) -> String {
    text.lines()
        .map(|l| l.split(" does not occur: ").next().unwrap_or(l))
        .map(|l| l.split(" gives no Operations: ").next().unwrap_or(l))
        .map(|l| l.replace("not play UN Intervention as an event", "…"))
        .collect::<Vec<_>>()
        .join("\n")
}
