//! Line editing for interactive play: history and tab completion of commands, card names and
//! country names (rustyline).

use arbiter_twilight::map::Map;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Context, Editor, Helper, Highlighter, Hinter, Validator};

const WORDS: &[&str] = &[
    "play",
    "headline",
    "influence",
    "remove",
    "coup",
    "realign",
    "target",
    "discard",
    "take",
    "choose",
    "cancel",
    "pass",
    "odds",
    "moves",
    "board",
    "region",
    "country",
    "log",
    "card",
    "undo",
    "help",
    "quit",
];

#[derive(Helper, Hinter, Highlighter, Validator)]
pub struct Names {
    names: Vec<String>,
    /// The legal moves of the decision at hand: what is typed completes to these first, so
    /// `play Ind` Tab means the card held, not one in the discard pile.
    moves: Vec<String>,
}

impl Completer for Names {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let upto = &line[..pos];
        let plain = |t: &str| t.replace('"', "").to_lowercase();
        let typed_move = plain(upto);
        if upto.contains(' ') {
            let hits: Vec<Pair> = self
                .moves
                .iter()
                .filter(|m| plain(m).starts_with(&typed_move))
                .map(|m| Pair { display: m.clone(), replacement: m.clone() })
                .collect();
            if !hits.is_empty() {
                return Ok((0, hits));
            }
        }
        let Some(space) = upto.find(' ') else {
            let hits = WORDS
                .iter()
                .filter(|w| w.starts_with(&upto.to_ascii_lowercase()))
                .map(|w| Pair { display: w.to_string(), replacement: format!("{w} ") })
                .collect();
            return Ok((0, hits));
        };
        // After `odds coup`, complete the country; otherwise the name after the verb.
        let mut start = space + 1;
        if upto.starts_with("odds ") {
            start = upto[start..].find(' ').map(|i| start + i + 1).unwrap_or(start);
        }
        let typed = upto[start..].trim_start_matches('"').to_lowercase();
        let hits = self
            .names
            .iter()
            .filter(|n| n.to_lowercase().starts_with(&typed))
            .map(|n| Pair { display: n.clone(), replacement: if n.contains(' ') { format!("\"{n}\"") } else { n.clone() } })
            .collect();
        Ok((start, hits))
    }
}

pub struct Input {
    rl: Editor<Names, DefaultHistory>,
}

impl Input {
    pub fn new(card_names: impl Iterator<Item = String>) -> rustyline::Result<Input> {
        let mut names: Vec<String> = card_names.collect();
        names.extend(Map::standard().countries.iter().map(|c| c.name.clone()));
        names.extend(["Europe", "Asia", "Middle East", "Central America", "South America", "Africa"].map(String::from));
        // A second Tab lists the candidates.
        let config = rustyline::Config::builder().completion_type(rustyline::CompletionType::List).build();
        let mut rl = Editor::with_config(config)?;
        rl.set_helper(Some(Names { names, moves: Vec::new() }));
        Ok(Input { rl })
    }

    /// The legal moves Tab completes to first.
    pub fn set_moves(&mut self, moves: Vec<String>) {
        if let Some(h) = self.rl.helper_mut() {
            h.moves = moves;
        }
    }

    /// The next line, `Ok(None)` at end of input (Ctrl-D) or Ctrl-C, or why the input cannot
    /// be read (not UTF-8 text, a read error).
    pub fn line(&mut self, prompt: &str) -> Result<Option<String>, String> {
        match self.rl.readline(prompt) {
            Ok(l) => {
                if !l.trim().is_empty() {
                    let _ = self.rl.add_history_entry(l.as_str());
                }
                Ok(Some(l))
            }
            Err(ReadlineError::Interrupted) | Err(ReadlineError::Eof) => Ok(None),
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                Err("the input is not UTF-8 text; nothing was played from it".into())
            }
            Err(e) => Err(format!("cannot read the input: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_completes_to_the_legal_moves_first() {
        let names = Names {
            names: vec!["Indo-Pakistani War".into(), "Independent Reds".into(), "India".into()],
            moves: vec!["play \"Independent Reds\" event".into(), "play \"Independent Reds\" ops".into(), "play Fidel ops".into()],
        };
        let history = DefaultHistory::new();
        let ctx = Context::new(&history);
        let (start, hits) = names.complete("play Ind", 8, &ctx).unwrap();
        let shown: Vec<&str> = hits.iter().map(|p| p.replacement.as_str()).collect();
        assert_eq!(
            (start, shown),
            (0, vec!["play \"Independent Reds\" event", "play \"Independent Reds\" ops"]),
            "the card held, not the one in the discard pile"
        );
        // Nothing legal matches: names, as before (a country for `odds coup`, say).
        let (_, hits) = names.complete("country Ind", 11, &ctx).unwrap();
        assert!(hits.iter().any(|p| p.display == "India"));
    }
}
