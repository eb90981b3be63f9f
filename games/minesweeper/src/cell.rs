//! Cells and their names: column letter and row number, `a1` at the top left.

use std::fmt;

/// A cell: column 0 is `a`, row 0 is `1` (the top row). Read from JSON (a saved move) only
/// if it can be named: columns `a` to `z` (the board's own size is checked by the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "RawCell")]
pub struct Cell {
    pub col: u8,
    pub row: u8,
}

/// A cell as JSON holds it, before its column is checked.
#[derive(serde::Deserialize)]
struct RawCell {
    col: u8,
    row: u8,
}

/// The most columns a cell can be named in (`a` to `z`).
pub const MAX_COLUMNS: u8 = 26;

impl TryFrom<RawCell> for Cell {
    type Error = String;
    fn try_from(r: RawCell) -> Result<Cell, String> {
        if r.col >= MAX_COLUMNS {
            return Err(format!("column {} has no letter (a to z)", r.col));
        }
        Ok(Cell { col: r.col, row: r.row })
    }
}

impl Cell {
    /// `c4`: column letter, then row number (`?` for a column past `z`, which no board has).
    pub fn name(self) -> String {
        let letter = if self.col < MAX_COLUMNS { char::from(b'a' + self.col) } else { '?' };
        format!("{letter}{}", self.row as u32 + 1)
    }

    /// Read a cell's name (`c4`, `C4`); the board's size is checked by the rules.
    pub fn parse(text: &str) -> Result<Cell, String> {
        let mut chars = text.chars();
        let letter = chars.next().filter(|c| c.is_ascii_alphabetic()).ok_or("a cell starts with its column letter, a to z")?;
        let rest = chars.as_str();
        let row: u32 = rest.parse().map_err(|_| format!("{rest:?} is not a row number"))?;
        let row = row.checked_sub(1).and_then(|r| u8::try_from(r).ok()).ok_or("rows are numbered from 1")?;
        Ok(Cell { col: letter.to_ascii_lowercase() as u8 - b'a', row })
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (text, cell) in [("a1", Cell { col: 0, row: 0 }), ("c4", Cell { col: 2, row: 3 }), ("z16", Cell { col: 25, row: 15 })] {
            assert_eq!(Cell::parse(text), Ok(cell));
            assert_eq!(cell.name(), text);
        }
        assert_eq!(Cell::parse("C4"), Ok(Cell { col: 2, row: 3 }));
        assert_eq!(Cell { col: 200, row: 0 }.name(), "?1", "never an overflow");
        for bad in ["", "4c", "c0", "c", "c-1", "é4", "c4x"] {
            assert!(Cell::parse(bad).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod json {
    use super::*;

    #[test]
    fn a_cell_past_z_is_not_read_from_json() {
        assert_eq!(serde_json::from_str::<Cell>(r#"{"col":2,"row":3}"#).unwrap(), Cell { col: 2, row: 3 });
        assert!(serde_json::from_str::<Cell>(r#"{"col":200,"row":0}"#).is_err());
        assert!(serde_json::from_str::<Cell>(r#"{"col":26,"row":0}"#).is_err());
    }
}
