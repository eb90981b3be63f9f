//! The two superpowers.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A superpower: the two players of Twilight Struggle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Side {
    #[serde(rename = "us")]
    Us,
    #[serde(rename = "ussr")]
    Ussr,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Us, Side::Ussr];

    pub fn opponent(self) -> Side {
        match self {
            Side::Us => Side::Ussr,
            Side::Ussr => Side::Us,
        }
    }

    /// Index into per-side arrays: US = 0, USSR = 1.
    pub fn idx(self) -> usize {
        self as usize
    }

    /// The sign of this side on the VP track: positive VP favour the US (§10.2).
    pub fn vp_sign(self) -> i32 {
        match self {
            Side::Us => 1,
            Side::Ussr => -1,
        }
    }

    pub fn parse(s: &str) -> Option<Side> {
        match s.to_ascii_lowercase().as_str() {
            "us" | "usa" => Some(Side::Us),
            "ussr" | "su" => Some(Side::Ussr),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Us => "US",
            Side::Ussr => "USSR",
        })
    }
}
