//! Moves and their canonical notation.
//!
//! | move | meaning |
//! |---|---|
//! | `play "Duck and Cover" event` | play a card for its event (own, neutral or scoring card) |
//! | `play "Duck and Cover" ops` | play a card for Operations |
//! | `play "Fidel" ops then event` / `play "Fidel" event then ops` | opponent's card for Ops, choosing when its event happens (§5.2) |
//! | `play "Fidel" space` | play a card to the space race (§6.4) |
//! | `headline "Fidel"` | choose a headline (§4.5C) |
//! | `influence Poland` | place one Influence (setup, Operations or an event) |
//! | `remove Poland` | remove one Influence (events) |
//! | `coup Iran`, `realign Iran` | a coup or one realignment roll |
//! | `target Israel` | choose an event's target country |
//! | `discard "Fidel"`, `take "Fidel"` | discard a card from hand; take a card (events) |
//! | `choose boycott` | one of an event's named options |
//! | `cancel "Cuban Missile Crisis" Turkey` | cancel an effect as its card allows |
//! | `pass` | decline (only where the rules allow it) |
//!
//! Card and country names match case-insensitively; an unambiguous prefix is accepted, and
//! quotes are optional. The canonical text quotes names that contain a space.
//!
//! Event decisions use the same words for every card: `target COUNTRY` for the event's
//! country; `influence COUNTRY` / `remove COUNTRY` per marker; `discard CARD` / `take CARD` /
//! `play CARD MODE` for cards (UN Intervention's paired card, Grain Sales' taken card);
//! `choose LABEL` for a named option, the label being what a player would say (`choose
//! boycott`, `choose remove`, `choose coup`; the labels come with the decision, see
//! [`Notation`]); `pass` to decline where the card allows it; `cancel CARD [COUNTRY]` for a move
//! an effect allows at any time.

use crate::card::{CardDb, CardId, CardSet};
use crate::map::{CountryId, Map};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlayMode {
    Event,
    Ops,
    OpsThenEvent,
    EventThenOps,
    Space,
}

impl PlayMode {
    /// Every mode, in the order of [`PlayMode::index`]: the card-play judge's sets per mode
    /// and the learning action space number the modes so.
    pub const ALL: [PlayMode; 5] = [PlayMode::Event, PlayMode::Ops, PlayMode::OpsThenEvent, PlayMode::EventThenOps, PlayMode::Space];

    /// This mode's place in [`PlayMode::ALL`] (a match, not a search: asked for every listed
    /// card play).
    pub fn index(self) -> usize {
        match self {
            PlayMode::Event => 0,
            PlayMode::Ops => 1,
            PlayMode::OpsThenEvent => 2,
            PlayMode::EventThenOps => 3,
            PlayMode::Space => 4,
        }
    }

    const WORDS: [(PlayMode, &'static str); 5] = [
        (PlayMode::OpsThenEvent, "ops then event"),
        (PlayMode::EventThenOps, "event then ops"),
        (PlayMode::Event, "event"),
        (PlayMode::Ops, "ops"),
        (PlayMode::Space, "space"),
    ];
    pub fn text(self) -> &'static str {
        Self::WORDS.iter().find(|(m, _)| *m == self).map(|x| x.1).unwrap_or("ops")
    }
    /// In words, for the log and messages.
    pub fn describe(self) -> &'static str {
        match self {
            PlayMode::Event => "for its event",
            PlayMode::Ops => "for Operations",
            PlayMode::OpsThenEvent => "for Operations, then its event",
            PlayMode::EventThenOps => "for its event first, then Operations",
            PlayMode::Space => "to the space race",
        }
    }
}

/// Ending the game by conceding it, outside the rules' decisions: never among the listed legal
/// moves (a random playout never resigns), accepted from the deciding side at any decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Concession {
    /// `resign`: the deciding side gives up.
    Resign,
    /// `lose on time`: the deciding side's chess clock ran out (played by the referee's
    /// clock, e.g. `arbiter serve`, and stored like any move, so replay agrees).
    Time,
}

/// `repr(u8)`: the variant is a plain byte, not a niche in a field, so comparing moves (a listed
/// move is checked by a scan of the listed ones, `Game::check`) reads it without decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Move {
    Play { card: CardId, mode: PlayMode },
    Headline(CardId),
    Influence(CountryId),
    Remove(CountryId),
    Coup(CountryId),
    Realign(CountryId),
    Target(CountryId),
    Discard(CardId),
    Take(CardId),
    Choose(u8),
    Cancel { card: CardId, country: Option<CountryId> },
    Pass,
    Concede(Concession),
}

/// What reading and writing moves needs to know: the card names and the labels of the pending
/// decision's `choose` options. Notation depends on nothing else (not on the rules or the work
/// stack); `Position::notation` builds one for a position.
#[derive(Clone, Copy)]
pub struct Notation<'a> {
    pub cards: &'a CardDb,
    pub labels: &'a [&'a str],
    /// Cards to prefer when a name prefix is ambiguous: those the decision can use (the
    /// deciding side's hand when playing), so `play Nuclear ops` means the one held.
    pub prefer: CardSet,
}

fn quote(s: &str) -> String {
    if s.contains(' ') {
        format!("\"{s}\"")
    } else {
        s.to_string()
    }
}

impl Move {
    /// Do the card and country numbers in this move exist? (A move read from JSON may name any
    /// number; one read from text always names a real card or country.)
    pub fn well_formed(&self, cards: &CardDb) -> bool {
        let card = |c: &CardId| cards.get(*c).is_some();
        let country = |c: &CountryId| c.idx() < Map::standard().countries.len();
        match self {
            Move::Play { card: c, .. } | Move::Headline(c) | Move::Discard(c) | Move::Take(c) => card(c),
            Move::Influence(c) | Move::Remove(c) | Move::Coup(c) | Move::Realign(c) | Move::Target(c) => country(c),
            Move::Cancel { card: c, country: k } => card(c) && k.as_ref().is_none_or(country),
            Move::Choose(_) | Move::Pass | Move::Concede(_) => true,
        }
    }

    /// The canonical text of this move (labels of `choose` come from the decision it answers).
    pub fn text(&self, n: &Notation) -> String {
        let map = Map::standard();
        let card = |c: &CardId| n.cards.get(*c).map(|i| quote(&i.name)).unwrap_or_else(|| format!("#{}", c.0));
        let country = |c: &CountryId| map.countries.get(c.idx()).map(|k| quote(&k.name)).unwrap_or_else(|| format!("country#{}", c.0));
        match self {
            Move::Play { card: c, mode } => format!("play {} {}", card(c), mode.text()),
            Move::Headline(c) => format!("headline {}", card(c)),
            Move::Influence(c) => format!("influence {}", country(c)),
            Move::Remove(c) => format!("remove {}", country(c)),
            Move::Coup(c) => format!("coup {}", country(c)),
            Move::Realign(c) => format!("realign {}", country(c)),
            Move::Target(c) => format!("target {}", country(c)),
            Move::Discard(c) => format!("discard {}", card(c)),
            Move::Take(c) => format!("take {}", card(c)),
            Move::Choose(i) => {
                let label = n.labels.get(*i as usize).copied().unwrap_or("?");
                format!("choose {label}")
            }
            Move::Cancel { card: c, country: None } => format!("cancel {}", card(c)),
            Move::Cancel { card: c, country: Some(k) } => format!("cancel {} {}", card(c), country(k)),
            Move::Pass => "pass".to_string(),
            Move::Concede(Concession::Resign) => "resign".to_string(),
            Move::Concede(Concession::Time) => "lose on time".to_string(),
        }
    }

    /// Read a move.
    /// The longest move text accepted (the longest real move is under 70 characters): parsing
    /// stays cheap on any input.
    pub const MAX_LEN: usize = 200;

    pub fn parse(text: &str, n: &Notation) -> Result<Move, ParseError> {
        let len = text.chars().count();
        if len > Self::MAX_LEN {
            return Err(ParseError::TooLong { len, max: Self::MAX_LEN });
        }
        let t = text.trim();
        let (verb, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        let rest = rest.trim();
        let verb = verb.to_ascii_lowercase();
        let country = |s: &str| find_country(s);
        let card = |s: &str| find_card_preferring(s, n.cards, n.prefer);
        Ok(match verb.as_str() {
            "" => return Err(ParseError::Empty),
            "pass" if rest.is_empty() => Move::Pass,
            "resign" if rest.is_empty() => Move::Concede(Concession::Resign),
            "lose" if rest.eq_ignore_ascii_case("on time") => Move::Concede(Concession::Time),
            "play" => {
                let lower = rest.to_ascii_lowercase();
                let (mode, name) = PlayMode::WORDS
                    .iter()
                    .find_map(|(m, w)| {
                        lower.strip_suffix(w).filter(|n| n.ends_with([' ', '"'])).map(|_| (*m, &rest[..rest.len() - w.len()]))
                    })
                    .ok_or_else(|| {
                        ParseError::Malformed(format!(
                            "play needs a card and a way to play it: event, ops, ops then event, event then ops or space (got {rest:?})"
                        ))
                    })?;
                Move::Play { card: card(name)?, mode }
            }
            "headline" => Move::Headline(card(rest)?),
            "influence" => Move::Influence(country(rest)?),
            "remove" => Move::Remove(country(rest)?),
            "coup" => Move::Coup(country(rest)?),
            "realign" => Move::Realign(country(rest)?),
            "target" => Move::Target(country(rest)?),
            "discard" => Move::Discard(card(rest)?),
            "take" => Move::Take(card(rest)?),
            "choose" => {
                let ls = n.labels;
                let want = unquote(rest).to_ascii_lowercase();
                let hits: Vec<usize> =
                    (0..ls.len()).filter(|i| ls[*i].to_ascii_lowercase().starts_with(&want) && !want.is_empty()).collect();
                let exact = (0..ls.len()).find(|i| ls[*i].eq_ignore_ascii_case(&want));
                match (exact, hits.as_slice()) {
                    (Some(i), _) | (None, &[i]) => Move::Choose(i as u8),
                    (None, []) => return Err(ParseError::Malformed(format!("no option {rest:?} here; options: {}", ls.join(", ")))),
                    _ => return Err(ParseError::Ambiguous(rest.to_string(), ls.join(", "))),
                }
            }
            "cancel" => {
                // The card name may be followed by a country. Card names have at most 7 words.
                let words: Vec<&str> = rest.split(' ').collect();
                let mut found = None;
                for k in (1..=words.len().min(8)).rev() {
                    let (a, b) = (words[..k].join(" "), words[k..].join(" "));
                    if let Ok(c) = card(&a) {
                        let k = if b.trim().is_empty() { None } else { Some(country(&b)?) };
                        found = Some(Move::Cancel { card: c, country: k });
                        break;
                    }
                }
                found.ok_or_else(|| ParseError::UnknownCard(rest.to_string()))?
            }
            _ => return Err(ParseError::UnknownVerb(verb)),
        })
    }
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches('"').trim()
}

fn norm(s: &str) -> String {
    normalized(s).collect()
}

/// `s` as names are compared: quotes dropped, lower case (as [`norm`], without allocating).
fn normalized(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().filter(|c| !matches!(c, '"' | '\'')).flat_map(char::to_lowercase)
}

/// Exact name first, then a unique prefix. The names are compared as they come, never copied
/// (a move's text names a country or a card; the server parses every move it stores).
fn resolve<'a, T: Copy, I: Iterator<Item = (T, &'a str)>>(query: &str, names: impl Fn() -> I) -> Result<T, Vec<String>> {
    let q = norm(unquote(query));
    if q.is_empty() {
        return Err(Vec::new());
    }
    if let Some((id, _)) = names().find(|(_, n)| normalized(n).eq(q.chars())) {
        return Ok(id);
    }
    let mut hits = names().filter(|(_, n)| {
        let mut name = normalized(n);
        q.chars().all(|c| name.next() == Some(c))
    });
    match (hits.next(), hits.next()) {
        (Some((id, _)), None) => Ok(id),
        (first, second) => Err(first.into_iter().chain(second).chain(hits).map(|(_, n)| n.to_string()).collect()),
    }
}

pub fn find_country(s: &str) -> Result<CountryId, ParseError> {
    let map = Map::standard();
    let names = || {
        map.countries.iter().flat_map(|c| std::iter::once((c.id, c.name.as_str())).chain(c.aliases.iter().map(move |a| (c.id, a.as_str()))))
    };
    resolve(s, names).map_err(|hits| {
        if hits.len() > 1 {
            ParseError::Ambiguous(s.trim().to_string(), hits.join(", "))
        } else {
            ParseError::UnknownCountry(s.trim().to_string())
        }
    })
}

pub fn find_card(s: &str, cards: &CardDb) -> Result<CardId, ParseError> {
    find_card_preferring(s, cards, CardSet::default())
}

/// A card by exact name or unique prefix; "China" names The China Card. An ambiguous prefix is
/// settled by `prefer` when exactly one preferred card matches.
pub fn find_card_preferring(s: &str, cards: &CardDb, prefer: CardSet) -> Result<CardId, ParseError> {
    if norm(unquote(s)) == "china" {
        return Ok(CardId::CHINA);
    }
    resolve(s, || cards.all().map(|c| (c.id, c.name.as_str()))).or_else(|hits| {
        if hits.len() > 1 {
            let preferred: Vec<CardId> = hits.iter().filter_map(|h| cards.by_name(h)).filter(|c| prefer.contains(*c)).collect();
            if let [only] = preferred.as_slice() {
                return Ok(*only);
            }
            Err(ParseError::Ambiguous(s.trim().to_string(), hits.join(", ")))
        } else {
            Err(ParseError::UnknownCard(s.trim().to_string()))
        }
    })
}

/// A move's text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("empty move")]
    Empty,
    #[error("unknown move {0:?}; moves start with: play, headline, influence, remove, coup, realign, target, discard, take, choose, cancel, pass")]
    UnknownVerb(String),
    #[error("no card matches {0:?}")]
    UnknownCard(String),
    #[error("{0:?} is ambiguous: it matches {1}")]
    Ambiguous(String, String),
    #[error("no country matches {0:?}")]
    UnknownCountry(String),
    #[error("{0}")]
    Malformed(String),
    #[error("a move is at most {max} characters long (this one has {len})")]
    TooLong { len: usize, max: usize },
}
