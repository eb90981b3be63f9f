//! Cells and their names: column letter and row number, `a1` at the top left.

use std::fmt;

/// A cell: column 0 is `a`, row 0 is `1` (the top row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    pub col: u8,
    pub row: u8,
}

impl Cell {
    /// `c4`: column letter, then row number.
    pub fn name(self) -> String {
        format!("{}{}", char::from(b'a' + self.col), self.row as u32 + 1)
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
        for bad in ["", "4c", "c0", "c", "c-1", "é4", "c4x"] {
            assert!(Cell::parse(bad).is_err(), "{bad}");
        }
    }
}
