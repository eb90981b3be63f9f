//! The table without a terminal: screens rendered on ratatui's test backend (snapshots in
//! `snapshots/`), and the flow of keys through hand-over, end of round, warnings and undo.

use super::app::{App, Screen};
use super::render::{self, Palette};
use arbiter_store::Session;
use arbiter_twilight::{CardId, Map, Move, Options, Side};
use pretty_assertions::assert_eq;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn app(dir: &tempfile::TempDir, seed: u64) -> App {
    let s = Session::create(
        &dir.path().join("g.arbiter"),
        &arbiter_games::TWILIGHT_STRUGGLE,
        &arbiter_games::ts_options(Options::default()),
        seed,
    );
    App::new(crate::ts_session::TsSession::new(s.unwrap()).ok().expect("a Twilight Struggle game"))
}

/// The screen as text, one line a row, trailing blanks trimmed.
fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render::draw(f, app, Palette { color: false })).unwrap();
    let buf = t.backend().buffer();
    (0..h).map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>().trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

/// A snapshot in `cli/src/table/snapshots/`, wherever the tests run from (a workspace run and
/// a crate run resolve insta's default path differently).
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/src/table/snapshots"), prepend_module_to_snapshot => true }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn key(app: &mut App, code: KeyCode) {
    app.key(KeyEvent::new(code, KeyModifiers::NONE)).unwrap();
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// Highlight a random legal move (from the generator state `x`) and press Enter.
fn play_random(a: &mut App, x: &mut u64) {
    let n = a.filtered().len();
    *x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    a.selected = (*x >> 33) as usize % n.max(1);
    key(a, KeyCode::Enter);
}

/// Play the first legal move, answering every screen as the players would, until `until`.
fn advance(app: &mut App, until: impl Fn(&App) -> bool) {
    for _ in 0..500 {
        if until(app) {
            return;
        }
        match app.screen {
            Screen::HandOver(_) | Screen::EndOfRound { .. } => key(app, KeyCode::Enter),
            Screen::Confirm { .. } => key(app, KeyCode::Char('y')),
            Screen::Table => key(app, KeyCode::Enter),
            Screen::Help => key(app, KeyCode::Esc),
            Screen::InterjectHandOver(_) => key(app, KeyCode::Enter),
            Screen::Interject { .. } => key(app, KeyCode::Esc),
            Screen::GameOver => panic!("the game ended first"),
            Screen::Thinking(_) => panic!("no computer at this table"),
        }
    }
    panic!("not reached in 500 keys");
}

/// Card names a side holds that the other does not know: what a hand-over must never show.
fn secret_cards(app: &App) -> Vec<String> {
    let st = app.game().state();
    let cards = &app.game().rules().cards;
    Side::BOTH
        .into_iter()
        .flat_map(|s| st.hand(s).iter().filter(|c| *c != CardId::CHINA).map(|c| cards.name(c).to_string()).collect::<Vec<_>>())
        .collect()
}

/// Cards in `side`'s hand that the other side does not hold and has not been shown.
fn hand_only(app: &App, side: Side) -> Vec<String> {
    let g = app.game();
    let view = g.view(Some(side.opponent()));
    let mine: Vec<String> = view.hand.iter().chain(&view.opponent_known).cloned().collect();
    g.view(Some(side))
        .hand
        .into_iter()
        .filter(|c| {
            !mine.contains(c)
                && !app.session.rows().iter().any(|r| {
                    r.record.lines_for(Some(arbiter_twilight::contract::seat(side.opponent()))).iter().any(|l| l.contains(c.as_str()))
                })
        })
        .collect()
}

fn at_headline(a: &App) -> bool {
    a.screen == Screen::Table && a.game().decision().is_some_and(|d| d.prompt.contains("headline"))
}

#[test]
fn the_table_at_80x24_and_120x40() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    advance(&mut a, at_headline);
    snapshot!("headline_80x24", screen(&a, 80, 24));
    snapshot!("headline_120x40", screen(&a, 120, 40));
}

#[test]
fn the_tracks_and_the_prompt_are_on_the_first_screen_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 11);
    advance(&mut a, |a| a.screen == Screen::Table && a.game().state().round >= 1);
    let s = screen(&a, 80, 24);
    let d = a.game().decision().unwrap();
    for needle in ["Turn 1", "USSR round 1/6", "DEFCON", "VP", "Mil. ops", "Space", "China Card", &format!("{}> ", d.side)] {
        assert!(s.contains(needle), "{needle:?} is not on the 80x24 screen:\n{s}");
    }
    assert!(s.contains(&d.prompt[..d.prompt.len().min(40)]), "the decision's prompt is shown:\n{s}");
    assert!(s.contains(&a.game().move_text(&d.moves[0])), "the first legal move is listed:\n{s}");
    let hand = a.game().view(Some(d.side)).hand;
    assert!(hand.iter().all(|c| s.contains(&c.chars().take(16).collect::<String>())), "every held card is listed:\n{s}");
}

#[test]
fn a_hand_over_or_an_end_of_round_never_shows_the_other_hand() {
    // Three games, random moves, every hand-over screen checked at both sizes.
    for seed in [3u64, 5, 8] {
        let dir = tempfile::tempdir().unwrap();
        let mut a = app(&dir, seed);
        let mut x = seed;
        let (mut hand_overs, mut ends) = (0, 0);
        for _ in 0..400 {
            match a.screen.clone() {
                Screen::HandOver(_) => {
                    hand_overs += 1;
                    for (w, h) in [(80, 24), (120, 40)] {
                        let s = screen(&a, w, h);
                        let leaked: Vec<_> = secret_cards(&a).into_iter().filter(|c| s.contains(c.as_str())).collect();
                        assert!(leaked.is_empty(), "the hand-over shows {leaked:?}:\n{s}");
                    }
                    // Typed text is discarded: no move, no undo, still the hand-over.
                    let seq = a.session.seq();
                    typed(&mut a, "undo");
                    assert_eq!((a.session.seq(), matches!(a.screen, Screen::HandOver(_))), (seq, true));
                    key(&mut a, KeyCode::Enter);
                }
                Screen::Table => {
                    play_random(&mut a, &mut x);
                }
                Screen::EndOfRound { side, .. } => {
                    // The player who just moved still has the keyboard: the next decision (the
                    // other side's moves, their cards) must not show.
                    ends += 1;
                    let theirs = hand_only(&a, side.opponent());
                    for (w, h) in [(80, 24), (120, 40)] {
                        let s = screen(&a, w, h);
                        let leaked: Vec<_> = theirs.iter().filter(|c| s.contains(c.as_str())).collect();
                        assert!(leaked.is_empty(), "the end of the {side}'s round shows {leaked:?}:\n{s}");
                    }
                    key(&mut a, KeyCode::Enter);
                }
                Screen::Confirm { .. } => key(&mut a, KeyCode::Char('y')),
                Screen::Help => key(&mut a, KeyCode::Esc),
                // Never entered here: no key in this loop is F4.
                Screen::InterjectHandOver(_) | Screen::Interject { .. } => panic!("an interjection screen without F4"),
                Screen::Thinking(_) => panic!("no computer at this table"),
                Screen::GameOver => break,
            }
        }
        assert!(hand_overs > 10 && ends > 10, "seed {seed}: only {hand_overs} hand-overs and {ends} ends of round");
    }
}

#[test]
fn typing_filters_the_moves_and_tab_copies_the_highlighted_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    key(&mut a, KeyCode::Enter); // the USSR takes the keyboard
    typed(&mut a, "pol");
    assert_eq!(a.filtered(), vec!["influence Poland".to_string()]);
    key(&mut a, KeyCode::Esc);
    typed(&mut a, "germ");
    assert_eq!(a.filtered(), vec!["influence \"East Germany\"".to_string()]);
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.input, "influence \"East Germany\"");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.session.rows().last().unwrap().move_text, "influence \"East Germany\"");
    assert!(a.input.is_empty());
}

#[test]
fn an_illegal_move_typed_gets_the_referees_reason_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    key(&mut a, KeyCode::Enter);
    typed(&mut a, "influence France");
    assert!(a.filtered().is_empty());
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.session.seq(), 0);
    assert!(a.message.iter().any(|m| m.contains("§3.2")), "{:?}", a.message);
    assert!(screen(&a, 80, 24).contains("§3.2"));
}

#[test]
fn the_end_of_a_round_offers_undo_before_the_hand_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    advance(&mut a, |a| matches!(a.screen, Screen::EndOfRound { side: Side::Ussr, can_undo: true }));
    let seq = a.session.seq();
    let s = screen(&a, 80, 24);
    assert!(s.contains("End of your round, USSR") && s.contains("u: take your last move back"), "{s}");
    // The log takes the map's place, and is not shown a second time beside it.
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&a, w, h);
        assert_eq!(s.matches(" Log (").count(), 1, "{w}x{h}:\n{s}");
    }
    key(&mut a, KeyCode::Char('x')); // ignored
    assert_eq!(a.screen, Screen::EndOfRound { side: Side::Ussr, can_undo: true });
    key(&mut a, KeyCode::Char('u'));
    assert_eq!((a.session.seq(), a.screen.clone(), a.seated), (seq - 1, Screen::Table, Some(Side::Ussr)));
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.screen, Screen::EndOfRound { side: Side::Ussr, can_undo: true });
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.screen, Screen::HandOver(Side::Us));
}

#[test]
fn ctrl_z_undoes_the_last_own_move() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.session.seq(), 1);
    a.key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL)).unwrap();
    assert_eq!(a.session.seq(), 0);
    assert!(a.message[0].starts_with("Undone: "), "{:?}", a.message);
}

#[test]
fn a_coup_target_shows_its_odds_and_a_losing_coup_asks_first() {
    // Random games until a coup is offered (its odds must show when it is highlighted) and a
    // coup that would set DEFCON to 1 for the phasing side (it must ask first, and `n` plays
    // nothing).
    let (mut odds_seen, mut confirm_seen) = (false, false);
    for seed in 1..40u64 {
        let dir = tempfile::tempdir().unwrap();
        let mut a = app(&dir, seed);
        let mut x = seed;
        for _ in 0..3000 {
            match a.screen.clone() {
                Screen::GameOver => break,
                Screen::Table => {
                    let moves = a.filtered();
                    if let Some(i) = moves.iter().position(|m| m.starts_with("coup ")) {
                        let side = a.game().to_move().unwrap();
                        let m = a.game().parse(&moves[i]).unwrap();
                        a.selected = i;
                        let s = screen(&a, 80, 24);
                        let Move::Coup(c) = m else { panic!("{m:?}") };
                        let name = Map::standard().name(c);
                        assert!(s.contains(&format!("coup {name} with")) && s.contains("succeeds"), "odds for the highlighted coup:\n{s}");
                        odds_seen = true;
                        if !crate::warn::warnings(a.game(), side, &m).is_empty() {
                            key(&mut a, KeyCode::Enter);
                            let Screen::Confirm { warnings, text } = a.screen.clone() else { panic!("no warning: {:?}", a.screen) };
                            // DEFCON 1 by the coup itself, or any other end (Cuban Missile Crisis).
                            assert!(warnings[0].contains("drops DEFCON to 1") || warnings[0].contains("ends the game"), "{warnings:?}");
                            let s = screen(&a, 80, 24);
                            assert!(s.contains(&format!("y: go ahead with `{text}`")), "{s}");
                            let seq = a.session.seq();
                            key(&mut a, KeyCode::Char('n'));
                            assert_eq!((a.session.seq(), a.screen.clone()), (seq, Screen::Table));
                            confirm_seen = true;
                        }
                    }
                    if odds_seen && confirm_seen {
                        return;
                    }
                    play_random(&mut a, &mut x);
                }
                Screen::Confirm { .. } => key(&mut a, KeyCode::Char('y')),
                _ => key(&mut a, KeyCode::Enter),
            }
        }
    }
    panic!("no game offered both a coup and a losing coup (odds {odds_seen}, confirm {confirm_seen})");
}

#[test]
fn the_end_of_the_game_is_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 2);
    let mut x = 2u64;
    for _ in 0..2000 {
        match a.screen.clone() {
            Screen::GameOver => break,
            Screen::Table => {
                play_random(&mut a, &mut x);
            }
            Screen::Confirm { .. } => key(&mut a, KeyCode::Char('y')),
            _ => key(&mut a, KeyCode::Enter),
        }
    }
    assert_eq!(a.screen, Screen::GameOver);
    let o = a.game().outcome().unwrap();
    let s = screen(&a, 120, 40);
    assert!(s.contains(&format!("Game over: {o}")), "{s}");
    assert!(s.contains("T 1 "), "the VP chart starts at turn 1:\n{s}");
    let chart = super::summary::vp_by_turn(&a);
    assert_eq!(chart.last().map(|p| p.1), Some(a.game().state().vp), "the chart ends at the final VP");
    snapshot!("game_over_120x40", s);
    key(&mut a, KeyCode::Enter);
    assert!(a.quit);
}

#[test]
fn a_card_name_typed_shows_what_the_card_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    key(&mut a, KeyCode::Enter);
    typed(&mut a, "NATO");
    assert!(a.filtered().is_empty(), "no move names NATO during setup");
    let s = screen(&a, 120, 40);
    assert!(s.contains("NATO · 4 Ops · Early"), "{s}");
}

/// "At any time" at the table: F4 hands the keyboard to the side not deciding (nothing secret
/// shown), which chooses among its interjections; the move is stored as its own, and the
/// deciding side takes the keyboard back. Found in random games (the Cuban Missile Crisis).
#[test]
fn f4_lets_the_side_not_deciding_interject() {
    for seed in 0..400u64 {
        let dir = tempfile::tempdir().unwrap();
        let mut a = app(&dir, seed);
        let mut x = seed;
        while a.game().outcome().is_some() || a.may_interject().is_none() {
            if a.game().outcome().is_some() {
                break;
            }
            match a.screen.clone() {
                Screen::Table => play_random(&mut a, &mut x),
                Screen::Confirm { .. } => key(&mut a, KeyCode::Char('y')),
                _ => key(&mut a, KeyCode::Enter),
            }
        }
        let Some(other) = a.may_interject() else { continue };
        // At the decider's table (or after a hand-over to it).
        while a.screen != Screen::Table {
            key(&mut a, KeyCode::Enter);
        }
        let decider = other.opponent();
        assert_eq!(a.seated, Some(decider));
        assert!(screen(&a, 120, 40).contains(&format!("F4: the {other} may interject")), "{}", screen(&a, 120, 40));
        key(&mut a, KeyCode::F(4));
        assert_eq!(a.screen, Screen::InterjectHandOver(other));
        let s = screen(&a, 120, 40);
        let leaked: Vec<_> = hand_only(&a, decider).into_iter().filter(|c| s.contains(c.as_str())).collect();
        assert!(leaked.is_empty(), "the interjection hand-over shows {leaked:?}:\n{s}");
        key(&mut a, KeyCode::Enter);
        assert_eq!(a.screen, Screen::Interject { side: other, selected: 0 });
        let open = a.interjections(other);
        let s = screen(&a, 120, 40);
        assert!(s.contains(&open[0]), "the interjection is listed:\n{s}");
        let leaked: Vec<_> = hand_only(&a, decider).into_iter().filter(|c| s.contains(c.as_str())).collect();
        assert!(leaked.is_empty(), "the interjection screen shows {leaked:?}:\n{s}");
        let rows = a.session.rows().len();
        key(&mut a, KeyCode::Enter);
        assert_eq!(a.session.rows().len(), rows + 1);
        let row = a.session.rows().last().unwrap();
        assert_eq!((crate::ts_session::row_side(row), row.move_text.as_str()), (other, open[0].as_str()));
        assert_eq!(a.game().to_move(), Some(decider), "the decision stays");
        assert_eq!(a.screen, Screen::HandOver(decider), "the deciding side takes the keyboard back");
        // The decider sees it among the news.
        key(&mut a, KeyCode::Enter);
        assert_eq!(a.screen, Screen::Table);
        return;
    }
    panic!("no interjection in 400 random games");
}

/// F4 with nothing to interject says so and changes nothing.
#[test]
fn f4_without_an_interjection_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 7);
    advance(&mut a, at_headline);
    key(&mut a, KeyCode::F(4));
    assert_eq!(a.screen, Screen::Table);
    assert!(a.message[0].contains("has no move it may make now"), "{:?}", a.message);
}

/// The computer answers as it would at the table (synchronously here: the table thinks on
/// another thread).
fn computer_answers(a: &mut App) {
    let (side, plan) = a.computer_turn().expect("the computer's turn");
    let game = a.game().clone();
    let chosen = arbiter_kernel::search::decide(&game, arbiter_twilight::contract::seat(side), &plan, &|_| {}).map(|m| game.move_text(&m));
    a.computer_moved(chosen).unwrap();
}

#[test]
fn against_the_computer_the_player_keeps_the_keyboard_and_sees_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let level = arbiter_kernel::search::Level::new(1).unwrap();
    let mut a = app(&dir, 21).against(super::app::Opponent::new(Side::Ussr, arbiter_kernel::search::Agent::Computer(level)));
    // The USSR sets up first: the computer thinks, the US player watches its own side.
    assert_eq!(a.screen, Screen::Thinking(Side::Ussr));
    assert_eq!(a.viewer(), Some(Side::Us));
    let shown = screen(&a, 120, 40);
    assert!(shown.contains("The computer (USSR, computer:1) is thinking:") && shown.contains("0 %"), "{shown}");
    let mut x = 5;
    let (mut computer_moves, mut own_moves) = (0, 0);
    while a.game().state().turn < 2 && a.game().outcome().is_none() {
        match a.screen.clone() {
            Screen::Thinking(_) => {
                let s = screen(&a, 120, 40);
                let leaked: Vec<_> = hand_only(&a, Side::Ussr).into_iter().filter(|c| s.contains(c.as_str())).collect();
                assert!(leaked.is_empty(), "the computer's hand shows: {leaked:?}\n{s}");
                computer_answers(&mut a);
                computer_moves += 1;
                assert!(a.message[0].starts_with("The computer (USSR): "), "{:?}", a.message);
            }
            Screen::Table => {
                play_random(&mut a, &mut x);
                own_moves += 1;
            }
            Screen::EndOfRound { side, can_undo } => {
                assert_eq!((side, can_undo), (Side::Us, true));
                key(&mut a, KeyCode::Enter);
            }
            Screen::Confirm { .. } => key(&mut a, KeyCode::Char('y')),
            other => panic!("no {other:?} against the computer"),
        }
        assert_eq!(a.viewer(), Some(Side::Us), "only the player's side is ever shown");
    }
    assert!(computer_moves > 10 && own_moves > 10, "{computer_moves} {own_moves}");
    // Every move is in the file: it replays.
    let again = Session::open(&dir.path().join("g.arbiter"), &arbiter_games::catalogue()).unwrap();
    assert_eq!(again.game().state_hash(), arbiter_kernel::Game::state_hash(a.game()));
}

/// Against the computer, nothing on the player's screen at any size, nor its status line,
/// names a card the player may not know (`view::hidden_from`): the computer's hand, and its
/// headline until both are revealed. Its headline is shown as the game hides it.
#[test]
fn against_the_computer_no_secret_of_its_side_is_ever_shown() {
    for seed in [21, 5] {
        let dir = tempfile::tempdir().unwrap();
        let level = arbiter_kernel::search::Level::new(1).unwrap();
        let mut a = app(&dir, seed).against(super::app::Opponent::new(Side::Ussr, arbiter_kernel::search::Agent::Computer(level)));
        let (mut x, mut secret_headlines) = (7, 0);
        while a.game().state().turn < 3 && a.game().outcome().is_none() {
            let hidden = arbiter_twilight::view::hidden_from(a.game().pos(), Some(Side::Us));
            for (w, h) in [(80, 24), (100, 30), (160, 45)] {
                let shown = format!("{}\n{}", screen(&a, w, h), a.message.join("\n"));
                let named = arbiter_twilight::view::cards_named_in(a.game().pos(), &shown, hidden);
                assert!(named.is_empty(), "seed {seed}, {w}x{h}: the US player is shown {named:?}\n{shown}");
            }
            match a.screen.clone() {
                Screen::Thinking(_) => {
                    computer_answers(&mut a);
                    if a.game().state().headline[Side::Ussr.idx()].is_some() && a.game().to_move() == Some(Side::Us) {
                        assert!(a.message[0].ends_with("headline (a secret choice until both headlines are revealed)"), "{:?}", a.message);
                        secret_headlines += 1;
                    }
                }
                Screen::Table => play_random(&mut a, &mut x),
                Screen::EndOfRound { .. } => key(&mut a, KeyCode::Enter),
                Screen::Confirm { .. } => key(&mut a, KeyCode::Char('y')),
                other => panic!("no {other:?} against the computer"),
            }
        }
        assert_eq!(secret_headlines, 2, "seed {seed}: the computer headlined first in turns 1 and 2");
    }
}

/// A game from a fixture's setup (the casebook's format).
fn position(setup: &str) -> arbiter_twilight::Game {
    let json = format!(r#"{{ "id": "T", "title": "t", "rules": [], "setup": {setup} }}"#);
    let f: arbiter_casebook::Fixture = serde_json::from_str(&json).unwrap();
    let rules = arbiter_twilight_cards::ruleset();
    let st = arbiter_casebook::build(&f, std::path::Path::new("t.json"), &rules).unwrap();
    arbiter_twilight::Game::from_state(rules, st).0
}

/// Typing a listed move in full ranks it first, so that Enter plays what was typed: for every
/// card whose event is the opponent's, both orders of its event and Operations, as typed, in
/// lower case and with extra spaces.
#[test]
fn a_move_typed_in_full_is_the_one_enter_plays() {
    let rules = arbiter_twilight_cards::ruleset();
    let mut tested = 0;
    for info in rules.cards.all().filter(|c| !c.scoring) {
        let Some(owner) = info.side.side() else { continue };
        let player = owner.opponent();
        let filler = ["Duck and Cover", "Romanian Abdication"].into_iter().find(|f| *f != info.name).unwrap();
        let (mine, theirs) = (format!("{:?}", [info.name.as_str()]), format!("{:?}", [filler]));
        let (us, ussr) = if player == Side::Us { (mine, theirs) } else { (theirs, mine) };
        let g = position(&format!(
            r#"{{ "turn": 8, "phasing": "{}", "hands": {{ "us": {us}, "ussr": {ussr} }} }}"#,
            player.to_string().to_lowercase()
        ));
        let Some(d) = g.decision() else { continue };
        let listed: Vec<String> = d.moves.iter().map(|m| g.move_text(m)).collect();
        for text in listed.iter().filter(|t| t.contains(" then ")) {
            for typed in [text.clone(), text.to_lowercase(), text.replace(' ', "  ")] {
                let reads_as = g.parse(&typed).ok().filter(|m| d.moves.contains(m)).map(|m| g.move_text(&m));
                let ranked = super::app::matching(listed.clone(), &typed, reads_as.as_deref());
                assert_eq!(ranked.first(), Some(text), "{} typed as {typed:?}: {ranked:?}", info.name);
            }
            tested += 1;
        }
    }
    assert!(tested > 100, "only {tested} moves with both orders");
}

/// Words typed in order rank a move above one that holds them in another order, and a move
/// the typed words read as (by unambiguous prefixes) above both.
#[test]
fn moves_matching_in_the_order_typed_rank_first() {
    let listed: Vec<String> =
        ["play Fidel ops", "play Fidel ops then event", "play Fidel event then ops", "space Fidel"].map(String::from).to_vec();
    assert_eq!(super::app::matching(listed.clone(), "fidel event then", None), ["play Fidel event then ops", "play Fidel ops then event"]);
    assert_eq!(
        super::app::matching(listed.clone(), "ops", None),
        ["play Fidel ops", "play Fidel ops then event", "play Fidel event then ops"]
    );
    assert_eq!(
        super::app::matching(listed, "fid", Some("space Fidel")),
        ["space Fidel", "play Fidel ops", "play Fidel ops then event", "play Fidel event then ops"]
    );
}

/// Every region's heading on the map shows what its scoring gives now, the number whole, in a
/// cell of an 80-column table: here with the USSR controlling every country of the region, its
/// largest score.
#[test]
fn every_region_s_score_shows_whole_at_80_columns() {
    use arbiter_twilight::map::iter_mask;
    use arbiter_twilight::Region;
    let map = Map::standard();
    let mut two_digits = 0;
    for (i, r) in Region::ALL.into_iter().enumerate() {
        let influence: Vec<String> = iter_mask(map.region_mask(r))
            .map(|c| format!(r#""{}": {{ "us": 0, "ussr": {} }}"#, map.country(c).name, map.country(c).stability))
            .collect();
        let g = position(&format!(r#"{{ "turn": 8, "influence": {{ {} }} }}"#, influence.join(", ")));
        let (name, now, _) = super::render::region_summary(&g, r);
        two_digits += usize::from(now.trim_start_matches("USSR +").len() == 2);
        let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
        t.draw(|f| super::render::map(f, &g, &g.view(None), i, f.area(), Palette { color: false })).unwrap();
        let buf = t.backend().buffer();
        let shown: String = (0..24).map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n").collect();
        let heading = format!("{name}: {now}");
        assert!(shown.contains(&heading), "{heading} not shown whole:\n{shown}");
    }
    assert!(two_digits >= 3, "the scores of two digits tested: {two_digits}");
}

/// At 80x24 the status line tells what the computer did since the player last moved, in short:
/// its six setup placements as one, without the log.
#[test]
fn what_the_computer_did_is_told_in_short_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let level = arbiter_kernel::search::Level::new(1).unwrap();
    let mut a = app(&dir, 21).against(super::app::Opponent::new(Side::Ussr, arbiter_kernel::search::Agent::Computer(level)));
    while a.screen == Screen::Thinking(Side::Ussr) {
        computer_answers(&mut a);
    }
    let shown = screen(&a, 80, 24);
    assert!(shown.contains("The computer (USSR): placed 6 Influence: "), "{shown}");
    let told = a.message[0].strip_prefix("The computer (USSR): placed 6 Influence: ").expect("the placements in short");
    let counts: usize = told.split(", ").map(|p| p.rsplit(' ').next().unwrap().parse::<usize>().unwrap()).sum();
    assert_eq!(counts, 6, "{told}");
    // The country first named is on the screen whole.
    let first = told.split(", ").next().unwrap();
    assert!(shown.contains(first), "{first}: {shown}");
}

#[test]
fn a_recap_groups_a_run_of_placements() {
    let moves: Vec<String> = ["influence Poland", "influence Poland", "influence \"East Germany\"", "play Fidel ops", "influence Cuba"]
        .map(String::from)
        .to_vec();
    assert_eq!(super::app::recap(&moves), "placed 3 Influence: Poland 2, East Germany 1; play Fidel ops; placed 1 Influence: Cuba 1");
    assert_eq!(super::app::recap(&[]), "");
}

/// The log beside the map wraps its lines rather than cutting them: the newest line is on the
/// 80x24 screen whole.
#[test]
fn the_log_beside_the_map_wraps_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 21);
    // Into the USSR's setup placements, whose log lines are longer than the panel is wide.
    advance(&mut a, |a| a.game().state().influence.iter().map(|i| i[1] as usize).sum::<usize>() >= 24);
    let shown = screen(&a, 80, 24);
    let rows: Vec<&str> = shown.lines().collect();
    let title = rows.iter().position(|r| r.contains("Log (› new; F2 all)")).expect("the log panel");
    let column = rows[title].find("Log (").unwrap().saturating_sub(2);
    let panel: Vec<String> = rows[title + 1..]
        .iter()
        .take_while(|r| !r.starts_with(|c: char| c.is_uppercase()) || r.len() > column)
        .map(|r| r.chars().skip(column).collect::<String>())
        .collect();
    let joined = panel.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
    let seat = arbiter_twilight::contract::seat(a.viewer().unwrap());
    let last = arbiter_store::log_for(a.session.header(), a.session.rows(), Some(seat), a.session.game()).last().unwrap().text.clone();
    assert!(last.len() > 30, "a line longer than the panel: {last}");
    assert!(joined.contains(&last.split_whitespace().collect::<Vec<_>>().join(" ")), "{last:?} not whole in:\n{}", panel.join("\n"));
}

/// After a placement the highlight stays on the country placed in, where another placement
/// there is open; after the last one it is on the first move of the next decision.
#[test]
fn the_highlight_stays_on_the_country_after_a_placement() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app(&dir, 21);
    advance(&mut a, |a| a.screen == Screen::Table && a.game().to_move() == Some(Side::Us));
    let moves = a.filtered();
    let italy = moves.iter().position(|m| m == "influence Italy").expect("Italy is open at the US setup");
    assert!(italy > 0, "{moves:?}");
    a.selected = italy;
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.highlighted().as_deref(), Some("influence Italy"), "{:?}", a.message);
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.highlighted().as_deref(), Some("influence Italy"));
}

/// README.md pictures the table as its snapshot of the headline at 80×24 shows it: a change of
/// the table's screen is a change of that picture too.
#[test]
fn the_readme_pictures_the_table_as_it_is() {
    let readme = include_str!("../../../README.md");
    let snap = include_str!("snapshots/arbiter__table__tests__headline_80x24.snap");
    let screen = snap.splitn(3, "---\n").nth(2).expect("an insta snapshot: a header between two --- lines, then the screen");
    assert!(
        readme.contains(&format!("```text\n{screen}```")),
        "README.md's picture of the table is not the snapshot's screen: copy {} into README.md (\"Interactive play\")",
        "cli/src/table/snapshots/arbiter__table__tests__headline_80x24.snap"
    );
}
