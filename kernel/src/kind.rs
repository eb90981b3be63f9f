//! What a kind of game says of itself before any game of it is made ([`crate::GameKind::shape`]):
//! how many seats it takes, its options (for forms and `--option key=value`), whether its
//! players see everything, and what it offers besides its rules. Hosts build their forms,
//! flags and seat lists from this, never from a game's name.

use crate::Refusal;
use serde::Serialize;
use serde_json::{Map, Value};

/// How many seats a game of the kind takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SeatRange {
    pub min: u8,
    pub max: u8,
    pub default: u8,
}

impl SeatRange {
    /// Exactly `n` seats.
    pub const fn exactly(n: u8) -> SeatRange {
        SeatRange { min: n, max: n, default: n }
    }
    /// Is the number of seats chosen at creation?
    pub fn varies(&self) -> bool {
        self.min != self.max
    }
}

/// The type of an option's value, with its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum OptionType {
    /// `true` or `false`.
    Flag,
    /// A whole number from `min` to `max`.
    Integer { min: i64, max: i64 },
    /// One of `choices` (by name, in any case).
    Choice { choices: &'static [&'static str] },
}

/// One option of a new game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OptionSpec {
    /// Its key in the options object (`us_bonus`).
    pub key: &'static str,
    #[serde(flatten)]
    pub kind: OptionType,
    /// Its value when not given; `null`: none (the option is left out unless given).
    pub default: Value,
    /// What it does, in a player's words.
    pub help: &'static str,
}

/// Whether every player sees the whole game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Information {
    Perfect,
    /// Hands, roles, hidden pieces or secret choices: each seat sees its own view.
    Imperfect,
}

/// What a game of the kind offers besides its rules (each answered by the game's hooks: the
/// contract tests check that the kind says what its games do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// A computer opponent ([`crate::Searchable::determinize`]).
    pub computer: bool,
    /// An action space and observations for learning ([`crate::Encodable::encoding`]).
    pub encoding: bool,
    /// A move a clock makes for a seat whose time runs out ([`crate::Game::timeout_move`]).
    pub clock: bool,
}

/// What a kind says of itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    pub seats: SeatRange,
    /// Its options (the number of seats is not one: see [`SEATS`]).
    pub options: Vec<OptionSpec>,
    pub information: Information,
    pub capabilities: Capabilities,
}

/// The key under which the number of seats is kept in a game's options when the kind's seat
/// range varies (a saved game's options say how many sat down).
pub const SEATS: &str = "seats";

impl Shape {
    /// The options of a new game with their defaults (and the default number of seats where it
    /// varies).
    pub fn default_options(&self) -> Value {
        let mut m: Map<String, Value> =
            self.options.iter().filter(|o| !o.default.is_null()).map(|o| (o.key.to_string(), o.default.clone())).collect();
        if self.seats.varies() {
            m.insert(SEATS.into(), self.seats.default.into());
        }
        Value::Object(m)
    }

    /// The options of a new game of `seats` seats (the default where `None`) with the values of
    /// `given` (`key=value` each, read by the option's type): refused, naming what is allowed,
    /// for an unknown key, a value of the wrong type or out of bounds, or a number of seats out
    /// of the range. Options not given are left out (the kind's defaults apply).
    pub fn options_from(&self, seats: Option<u8>, given: &[String]) -> Result<Value, Refusal> {
        let mut m = Map::new();
        if let Some(n) = seats {
            let r = self.seats;
            if !(r.min..=r.max).contains(&n) {
                let allowed = if r.varies() { format!("{} to {} seats", r.min, r.max) } else { format!("{} seats", r.min) };
                return Err(Refusal::new(format!("this game is for {allowed}, not {n}"), "game options"));
            }
            if r.varies() {
                m.insert(SEATS.into(), n.into());
            }
        }
        for kv in given {
            let (key, value) = kv
                .split_once('=')
                .ok_or_else(|| Refusal::new(format!("an option is written key=value, not {:?}", crate::echo(kv)), "game options"))?;
            let (key, value) = (key.trim(), value.trim());
            let spec = self.options.iter().find(|o| o.key == key).ok_or_else(|| {
                let keys: Vec<&str> = self.options.iter().map(|o| o.key).collect();
                let known =
                    if keys.is_empty() { "this game has no options".to_string() } else { format!("its options are {}", keys.join(", ")) };
                Refusal::new(format!("no option {:?}: {known}", crate::echo(key)), "game options")
            })?;
            m.insert(key.to_string(), spec.read(value)?);
        }
        Ok(Value::Object(m))
    }
}

impl OptionSpec {
    /// `text` as this option's value, or why it is not one.
    pub fn read(&self, text: &str) -> Result<Value, Refusal> {
        match self.kind {
            OptionType::Flag => match text.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(Value::Bool(true)),
                "false" | "no" | "off" | "0" => Ok(Value::Bool(false)),
                _ => Err(Refusal::new(format!("{} is true or false, not {:?}", self.key, crate::echo(text)), "game options")),
            },
            OptionType::Integer { min, max } => match text.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n.into()),
                _ => Err(Refusal::new(
                    format!("{} is a whole number from {min} to {max}, not {:?}", self.key, crate::echo(text)),
                    "game options",
                )),
            },
            OptionType::Choice { choices } => match choices.iter().find(|c| c.eq_ignore_ascii_case(text)) {
                Some(c) => Ok(Value::String(c.to_string())),
                None => {
                    Err(Refusal::new(format!("{} is one of {}, not {:?}", self.key, choices.join(", "), crate::echo(text)), "game options"))
                }
            },
        }
    }
}

/// The number of seats `options` asks for, for a kind of `range`: the default when not given;
/// refused when out of range or not a number.
pub fn seats_of(options: &Value, range: SeatRange) -> Result<u8, Refusal> {
    match options.get(SEATS) {
        None | Some(Value::Null) => Ok(range.default),
        Some(v) => match v.as_u64() {
            Some(n) if (u64::from(range.min)..=u64::from(range.max)).contains(&n) => Ok(n as u8),
            _ => Err(Refusal::new(format!("this game is for {} to {} seats, not {v}", range.min, range.max), "game options")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn shape() -> Shape {
        Shape {
            seats: SeatRange { min: 3, max: 6, default: 4 },
            options: vec![
                OptionSpec { key: "fast", kind: OptionType::Flag, default: false.into(), help: "" },
                OptionSpec { key: "rounds", kind: OptionType::Integer { min: 1, max: 9 }, default: 3.into(), help: "" },
                OptionSpec { key: "board", kind: OptionType::Choice { choices: &["small", "large"] }, default: Value::Null, help: "" },
            ],
            information: Information::Perfect,
            capabilities: Capabilities { computer: false, encoding: false, clock: false },
        }
    }

    #[test]
    fn options_are_read_by_their_type_and_bounds() {
        let s = shape();
        assert_eq!(s.default_options(), serde_json::json!({"fast": false, "rounds": 3, "seats": 4}));
        assert_eq!(
            s.options_from(Some(5), &["fast=yes".into(), " rounds = 9 ".into()]).unwrap(),
            serde_json::json!({"seats": 5, "fast": true, "rounds": 9})
        );
        let refused =
            |seats, given: &[&str]| s.options_from(seats, &given.iter().map(|g| g.to_string()).collect::<Vec<_>>()).unwrap_err().reason;
        assert_eq!(refused(Some(7), &[]), "this game is for 3 to 6 seats, not 7");
        assert_eq!(refused(None, &["rounds=10"]), "rounds is a whole number from 1 to 9, not \"10\"");
        assert_eq!(refused(None, &["fast=maybe"]), "fast is true or false, not \"maybe\"");
        assert_eq!(s.options_from(None, &["board=LARGE".into()]).unwrap(), serde_json::json!({"board": "large"}));
        assert_eq!(refused(None, &["board=huge"]), "board is one of small, large, not \"huge\"");
        assert_eq!(refused(None, &["slow=1"]), "no option \"slow\": its options are fast, rounds, board");
        assert_eq!(refused(None, &["fast"]), "an option is written key=value, not \"fast\"");
        assert_eq!(seats_of(&serde_json::json!({"seats": 6}), s.seats).unwrap(), 6);
        assert_eq!(seats_of(&serde_json::json!({}), s.seats).unwrap(), 4);
        assert!(seats_of(&serde_json::json!({"seats": 2}), s.seats).is_err());
    }
}
