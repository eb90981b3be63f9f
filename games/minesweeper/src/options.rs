//! The options of a new game: the board's size and the number of mines.

use arbiter_kernel::Refusal;
use serde::{Deserialize, Serialize};

/// Limits: columns are letters (a–z), so at most 26; rows up to 50; at least one cell free of
/// mines (the first open is safe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    pub width: u8,
    pub height: u8,
    pub mines: u16,
}

impl Default for Options {
    /// The beginner's board.
    fn default() -> Self {
        Options { width: 9, height: 9, mines: 10 }
    }
}

const RULE: &str = "Minesweeper options";

/// The classic boards by name: beginner 9×9 with 10 mines, intermediate 16×16 with 40, expert
/// 99 mines on 16 columns of 30 rows (the classic 30×16 on its side: columns are letters, at
/// most 26).
pub const PRESETS: [(&str, Options); 3] = [
    (PRESET_NAMES[0], Options { width: 9, height: 9, mines: 10 }),
    (PRESET_NAMES[1], Options { width: 16, height: 16, mines: 40 }),
    (PRESET_NAMES[2], Options { width: 16, height: 30, mines: 99 }),
];

/// The presets' names, in [`PRESETS`]' order (the `preset` option's choices).
pub const PRESET_NAMES: [&str; 3] = ["beginner", "intermediate", "expert"];

impl Options {
    pub fn cells(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// A valid board, or the reason it is not.
    pub fn check(&self) -> Result<(), Refusal> {
        if !(2..=26).contains(&self.width) {
            return Err(Refusal::new(format!("a board is 2 to 26 columns wide (a to z), not {}", self.width), RULE));
        }
        if !(2..=50).contains(&self.height) {
            return Err(Refusal::new(format!("a board is 2 to 50 rows high, not {}", self.height), RULE));
        }
        let most = self.cells() - 1;
        if self.mines == 0 || self.mines as usize > most {
            return Err(Refusal::new(
                format!(
                    "a {}×{} board takes 1 to {most} mines (one cell stays free for the first open), not {}",
                    self.width, self.height, self.mines
                ),
                RULE,
            ));
        }
        Ok(())
    }

    /// The preset board named `name` ([`PRESETS`]), or the reason there is none.
    pub fn preset(name: &str) -> Result<Options, Refusal> {
        let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
        PRESETS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
            .map(|(_, o)| *o)
            .ok_or_else(|| Refusal::new(format!("no board named {name:?}: the boards are {}", names.join(", ")), RULE))
    }

    /// Options from JSON: missing fields take their defaults (a `preset`'s, if one is named:
    /// `{"preset": "expert"}`), unknown ones are refused.
    pub fn from_json(v: &serde_json::Value) -> Result<Options, Refusal> {
        let bad = |e: serde_json::Error| Refusal::new(format!("bad options: {e}"), RULE);
        let o: Options = match v {
            serde_json::Value::Null => Options::default(),
            serde_json::Value::Object(m) if m.contains_key("preset") => {
                let name = m["preset"].as_str().ok_or_else(|| Refusal::new("a preset is named by a string", RULE))?;
                let mut base = serde_json::to_value(Options::preset(name)?).map_err(bad)?;
                for (k, x) in m.iter().filter(|(k, _)| *k != "preset") {
                    base[k] = x.clone();
                }
                serde_json::from_value(base).map_err(bad)?
            }
            v => serde_json::from_value(v.clone()).map_err(bad)?,
        };
        o.check()?;
        Ok(o)
    }

    /// `16x16` (the strength example's `--size`).
    pub fn parse_size(text: &str) -> Result<(u8, u8), Refusal> {
        let bad = || Refusal::new(format!("a size is WIDTHxHEIGHT, such as 16x16, not {text:?}"), RULE);
        let (w, h) = text.split_once(['x', 'X', '×']).ok_or_else(bad)?;
        Ok((w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?))
    }
}
