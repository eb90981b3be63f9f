//! Running a fixture strictly: each step must be the pending decision's side (or an
//! interjection of the other side that an effect allows "at any time", or its part of a
//! simultaneous step); a rejection must
//! carry the expected text and change nothing; every scripted die must be used; a random
//! outcome that is not scripted fails the step. Every failure names the step.

use crate::format::Fixture;
use crate::{build, FixtureError};
use arbiter_twilight::error::PlayError;
use arbiter_twilight::flow::Task;
use arbiter_twilight::report::Report;
use arbiter_twilight::{Game, Side};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct CaseResult {
    pub id: String,
    pub title: String,
    pub file: PathBuf,
    /// `None` if the fixture passed.
    pub failure: Option<String>,
    /// The log of the whole case, all audiences.
    pub log: Vec<String>,
}

/// The state JSON a fixture's expectations are matched against: the observer's view, plus
/// `seq` (steps accepted), both `hands` and the `deck` (top first).
pub fn state_json(g: &Game, seq: usize) -> Value {
    let mut v = serde_json::to_value(g.view(None)).expect("views serialise");
    let names = |cs: Vec<arbiter_twilight::CardId>| cs.into_iter().map(|c| g.rules().cards.name(c).to_string()).collect::<Vec<_>>();
    let st = g.state();
    v["seq"] = json!(seq);
    v["hands"] = json!({ "us": names(st.hand(Side::Us).iter().collect()), "ussr": names(st.hand(Side::Ussr).iter().collect()) });
    v["deck"] = json!(names(st.deck.iter().rev().copied().collect()));
    v
}

/// Is `want` contained in `have`? Objects by key, arrays element by element (same length).
fn subset(want: &Value, have: &Value, path: &str) -> Result<(), String> {
    match (want, have) {
        (Value::Object(w), Value::Object(h)) => {
            for (k, v) in w {
                let p = format!("{path}.{k}");
                match h.get(k) {
                    Some(hv) => subset(v, hv, &p)?,
                    None => return Err(format!("{p}: no such field in the state")),
                }
            }
            Ok(())
        }
        (Value::Array(w), Value::Array(h)) if w.len() == h.len() => {
            w.iter().zip(h).enumerate().try_for_each(|(i, (a, b))| subset(a, b, &format!("{path}[{i}]")))
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => Ok(()),
        _ if want == have => Ok(()),
        _ => Err(format!("{path}: expected {want}, got {have}")),
    }
}

fn push_log(log: &mut Vec<String>, r: &Report) {
    log.extend(r.log.iter().map(|l| l.text.clone()));
}

/// Build and run one fixture file.
pub fn run(f: &Fixture, file: &Path) -> Result<CaseResult, FixtureError> {
    // Under the interest and declaration checks: an effect answering outside its declared
    // interest, or entering play out of its declared shape, fails the case.
    let rules = arbiter_twilight_cards::ruleset_checking_interest();
    let state = build(f, file, &rules)?;
    let mut result = CaseResult { id: f.id.clone(), title: f.title.clone(), file: file.into(), failure: None, log: Vec::new() };
    let (mut g, first) = Game::from_state(rules, state);
    push_log(&mut result.log, &first);
    result.failure = play(f, file, &mut g, &mut result.log).err();
    Ok(result)
}

fn play(f: &Fixture, file: &Path, g: &mut Game, log: &mut Vec<String>) -> Result<(), String> {
    let mut accepted = 0;
    for (i, step) in f.steps.iter().enumerate() {
        let label = format!("step {} ({} {:?})", i + 1, step.side, step.mv);
        let side = Side::parse(&step.side).ok_or_else(|| format!("{}: steps[{i}].side: {:?} is not a side", file.display(), step.side))?;
        let d = g.decision().ok_or_else(|| match g.outcome() {
            Some(o) => format!("{label}: the game is over ({o})"),
            None => format!("{label}: no decision is pending"),
        })?;
        // A step of the side not deciding is its part of a simultaneous step (both headlines)
        // or an interjection ("at any time"): the engine refuses it unless the step or an
        // effect in play allows it now. Expected to be accepted, it must be one: a step meant
        // for the other side's decision fails here with both named.
        if d.side != side && step.reject.is_none() {
            let open = g.parse(&step.mv).is_ok_and(|m| g.moves_for(side).contains(&m) || g.interjections(side).contains(&m));
            if !open {
                return Err(format!("{label}: expected a {side} decision or interjection, but the {} is to decide: {}", d.side, d.prompt));
            }
        }
        let before = g.hash64();
        let outcome = g.parse(&step.mv).map_err(|e| e.to_string()).and_then(|m| {
            g.play_as(side, &m).map_err(|e| match e {
                PlayError::Randomness { why, .. } => format!("RANDOM:{why}"),
                other => other.to_string(),
            })
        });
        match (outcome, &step.reject) {
            (Ok(r), None) => {
                push_log(log, &r);
                accepted += 1;
            }
            (Ok(_), Some(want)) => return Err(format!("{label}: expected a rejection containing {want:?}, but the move was accepted")),
            (Err(e), _) if e.starts_with("RANDOM:") => return Err(format!("{label}: {} (scripted randomness is strict)", &e[7..])),
            (Err(e), None) => return Err(format!("{label}: expected acceptance, got: {e}")),
            (Err(e), Some(want)) if !e.contains(want.as_str()) => {
                return Err(format!("{label}: expected a rejection containing {want:?}, got: {e}"))
            }
            (Err(_), Some(_)) if g.hash64() != before => return Err(format!("{label}: the rejected move changed the game")),
            (Err(_), Some(_)) => {}
        }
    }
    // A decision inside a card play that no step answered: the case must say it stops there.
    // Ops to spend, an event's choice, or a card an event asks for (UN Intervention's, Grain
    // Sales' taken card): only the action round's own play, a headline or setup may be next.
    let mid_play = g.outcome().is_none()
        && match g.state().stack.last() {
            Some(Task::PlayCard(pt)) => !pt.is_round(),
            top => matches!(top, Some(Task::Ops(_) | Task::Event(_))),
        };
    match (mid_play, f.expect.pending) {
        (true, false) => {
            let prompt = g.decision().map(|d| d.prompt).unwrap_or_default();
            return Err(format!(
                "after the last step: a decision inside a card play is left unanswered ({prompt}); add steps, or set expect.pending"
            ));
        }
        (false, true) => return Err("expect.pending is set, but no card play is left unfinished".into()),
        _ => {}
    }
    let (dice, picks) = g.state().rng.leftover();
    if dice + picks > 0 {
        return Err(format!("after the last step: {dice} scripted die roll(s) and {picks} pick(s) left unused"));
    }
    if let Some(want) = &f.expect.state {
        subset(want, &state_json(g, accepted), "state").map_err(|e| format!("after the last step: {e}"))?;
    }
    let text = log.join("\n");
    for want in &f.expect.log {
        if !text.contains(want.as_str()) {
            return Err(format!("after the last step: the log lacks {want:?}; the log was:\n{text}"));
        }
    }
    for bad in &f.expect.log_absent {
        if text.contains(bad.as_str()) {
            return Err(format!("after the last step: the log contains {bad:?}"));
        }
    }
    let legal: Vec<String> = g.legal_moves().iter().map(|m| g.move_text(m)).collect();
    for m in &f.expect.legal {
        if !legal.contains(m) {
            return Err(format!("after the last step: {m:?} is not a legal move; legal: {legal:?}"));
        }
    }
    for m in &f.expect.illegal {
        if legal.contains(m) {
            return Err(format!("after the last step: {m:?} is a legal move"));
        }
    }
    Ok(())
}
