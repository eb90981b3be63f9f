//! Twilight Struggle as a kind of game a host offers (`arbiter_kernel::GameKind`): the engine's
//! rules with these cards.

use arbiter_kernel::kind::{Capabilities, Information, OptionSpec, OptionType, SeatRange, Shape};
use arbiter_kernel::{GameKind, Match, Refusal, Report};
use arbiter_twilight::{Game, Options, Randomness, RULES_VERSION};
use serde::Deserialize;

pub struct TwilightStruggle;

/// The options as a host passes them: missing fields take their defaults, unknown ones are
/// refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Given {
    optional_cards: Option<bool>,
    us_bonus: Option<u8>,
}

impl TwilightStruggle {
    /// The engine's options from a host's JSON.
    pub fn options(v: &serde_json::Value) -> Result<Options, Refusal> {
        let given: Given = if v.is_null() {
            Given { optional_cards: None, us_bonus: None }
        } else {
            serde_json::from_value(v.clone()).map_err(|e| Refusal::new(format!("bad options: {e}"), "game options"))?
        };
        let d = Options::default();
        let o =
            Options { optional_cards: given.optional_cards.unwrap_or(d.optional_cards), us_bonus: given.us_bonus.unwrap_or(d.us_bonus) };
        if o.us_bonus > 10 {
            return Err(Refusal::new(format!("us_bonus is 0 to 10 extra US Influence, not {}", o.us_bonus), "game options"));
        }
        Ok(o)
    }
}

impl GameKind for TwilightStruggle {
    fn id(&self) -> &'static str {
        "twilight-struggle"
    }
    fn title(&self) -> &'static str {
        "Twilight Struggle"
    }
    fn rules_version(&self) -> &'static str {
        RULES_VERSION
    }
    fn shape(&self) -> Shape {
        let d = Options::default();
        Shape {
            seats: SeatRange::exactly(2),
            options: vec![
                OptionSpec {
                    key: "optional_cards",
                    kind: OptionType::Flag,
                    default: d.optional_cards.into(),
                    help: "play with the 7 optional cards (104-110)",
                },
                OptionSpec {
                    key: "us_bonus",
                    kind: OptionType::Integer { min: 0, max: 10 },
                    default: d.us_bonus.into(),
                    help: "extra US Influence after setup (a balancing convention; 0: none)",
                },
            ],
            information: Information::Imperfect,
            capabilities: Capabilities { computer: true, encoding: true, clock: true },
        }
    }
    fn create(&self, options: &serde_json::Value, seed: u64) -> Result<(Box<dyn Match>, Report), Refusal> {
        let o = Self::options(options)?;
        let (game, report) = Game::new(crate::ruleset(), o, Randomness::seeded(seed));
        Ok((Box::new(game), report.into()))
    }
}
