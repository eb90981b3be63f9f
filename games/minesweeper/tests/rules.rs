//! Minesweeper's rules through the kernel's contract: the first open is safe, the cascade, win
//! and loss, refusals that change nothing, the notation, and (property tests) secrecy and replay.

use arbiter_kernel::{Game, GameKind, Randomness, Seat};
use arbiter_minesweeper::{Cell, End, Kind, Minesweeper, Move, Options};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use rstest::rstest;

fn cell(name: &str) -> Cell {
    Cell::parse(name).unwrap()
}

fn board(g: &Minesweeper) -> Vec<String> {
    Game::view(g, None).board
}

fn play(g: &mut Minesweeper, text: &str) -> Result<arbiter_kernel::Report, arbiter_kernel::Refusal> {
    let m = g.parse_move(text)?;
    g.play_as(Seat(0), &m)
}

/// 4×3 with mines at a1 and d3:
/// ```text
///   a b c d
/// 1 * 1 0 0
/// 2 1 1 1 1
/// 3 0 0 1 *
/// ```
fn small() -> Minesweeper {
    Minesweeper::with_mines(4, 3, &[cell("a1"), cell("d3")]).unwrap()
}

#[test]
fn opening_a_zero_cascades_to_its_neighbours_and_stops_at_numbers() {
    let mut g = small();
    let r = play(&mut g, "open c1").unwrap();
    assert_eq!(board(&g), ["#100", "#111", "####"]);
    assert!(r.lines_for(None).any(|l| l == "open c1: 0, and 5 more cells open around it"), "{:?}", r.log);
    assert!(r.reveals(), "an open reveals: undo stops there");
}

#[test]
fn opening_the_last_safe_cell_wins_and_shows_every_mine() {
    let mut g = small();
    play(&mut g, "open c1").unwrap();
    assert_eq!(g.end(), None);
    // a3 is a 0: it opens a2, b3, and from b3 c3: the last safe cells.
    let r = play(&mut g, "open a3").unwrap();
    assert_eq!(g.end(), Some(End::Won));
    assert!(r.lines_for(None).any(|l| l == "Every safe cell is open: the game is won"));
    assert_eq!(board(&g), ["*100", "1111", "001*"]);
    assert_eq!(Game::outcome(&g).unwrap().reason, "won");
    assert!(Game::legal_moves(&g).is_empty() && Game::decision(&g).is_none());
}

#[test]
fn opening_a_mine_loses_at_once_and_marks_it() {
    let mut g = small();
    play(&mut g, "flag d3").unwrap();
    play(&mut g, "open a1").unwrap();
    assert_eq!(g.end(), Some(End::Lost(cell("a1"))));
    assert_eq!(board(&g), ["X###", "####", "###F"], "every mine shown; the one flagged rightly stays a flag");
    let o = Game::outcome(&g).unwrap();
    assert_eq!((o.winner(), o.reason.as_str()), (None, "lost"));
    assert_eq!(Game::view(&g, None).outcome, Some("lost"));
}

#[rstest]
#[case::open_twice(&["open c1"], "open c1", "c1 is open already")]
#[case::open_flagged(&["flag b3"], "open b3", "b3 is flagged: `unflag b3` first")]
#[case::flag_twice(&["flag b3"], "flag b3", "b3 is flagged already")]
#[case::flag_open(&["open c1"], "flag c1", "c1 is open already")]
#[case::unflag_closed(&[], "unflag b3", "b3 is not flagged")]
#[case::off_the_board(&[], "open e1", "e1 is not on the board (a1 to d3)")]
#[case::after_the_end(&["open a1"], "open b3", "the game is over (lost)")]
#[case::not_a_move(&[], "dig c1", "no move \"dig\"")]
#[case::not_a_cell(&[], "open 4c", "cannot read \"4c\"")]
#[case::row_zero(&[], "open c0", "rows are numbered from 1")]
fn refusals_name_the_reason_and_change_nothing(#[case] before: &[&str], #[case] text: &str, #[case] want: &str) {
    let mut g = small();
    for m in before {
        play(&mut g, m).unwrap();
    }
    let hash = Game::state_hash(&g);
    let e = play(&mut g, text).unwrap_err().to_string();
    assert!(e.contains(want), "{e}");
    assert_eq!(Game::state_hash(&g), hash, "a refused move changes nothing");
}

#[test]
fn flags_are_listed_and_undone_by_unflag() {
    let mut g = small();
    play(&mut g, "flag b3").unwrap();
    assert!(Game::legal_moves(&g).contains(&Move::Unflag(cell("b3"))));
    assert!(!Game::legal_moves(&g).contains(&Move::Open(cell("b3"))));
    assert_eq!(Game::view(&g, None).flags, 1);
    let r = play(&mut g, "unflag b3").unwrap();
    assert!(!r.reveals(), "a flag reveals nothing: it may be undone");
    assert_eq!(board(&g), ["####", "####", "####"]);
}

/// The classic boards by name, through the host contract's options; another field may change
/// one of a preset's numbers.
#[rstest]
#[case::beginner(serde_json::json!({"preset": "beginner"}), (9, 9, 10))]
#[case::intermediate(serde_json::json!({"preset": "intermediate"}), (16, 16, 40))]
#[case::expert(serde_json::json!({"preset": "Expert"}), (16, 30, 99))]
#[case::expert_with_fewer_mines(serde_json::json!({"preset": "expert", "mines": 50}), (16, 30, 50))]
fn the_classic_boards_are_presets(#[case] options: serde_json::Value, #[case] want: (u8, u8, u16)) {
    let o = Options::from_json(&options).unwrap();
    assert_eq!((o.width, o.height, o.mines), want);
    let (g, _) = Kind.create(&options, 1).unwrap();
    assert!(g.decision().is_some(), "a game on the {options} board");
}

#[rstest]
#[case::unknown_preset(serde_json::json!({"preset": "nightmare"}), "no board named \"nightmare\": the boards are beginner, intermediate, expert")]
#[case::too_narrow(serde_json::json!({"width": 1}), "2 to 26 columns")]
#[case::too_wide(serde_json::json!({"width": 27}), "2 to 26 columns")]
#[case::too_high(serde_json::json!({"height": 51}), "2 to 50 rows")]
#[case::no_mines(serde_json::json!({"mines": 0}), "takes 1 to 80 mines")]
#[case::full(serde_json::json!({"width": 3, "height": 3, "mines": 9}), "takes 1 to 8 mines")]
#[case::unknown(serde_json::json!({"colour": "red"}), "unknown field")]
fn invalid_options_are_refused_with_the_reason(#[case] options: serde_json::Value, #[case] want: &str) {
    let e = Kind.create(&options, 1).err().expect("refused").to_string();
    assert!(e.contains(want), "{e}");
}

#[test]
fn the_kind_creates_the_default_board_through_the_host_contract() {
    let (mut m, r) = Kind.create(&serde_json::Value::Null, 5).unwrap();
    assert!(r.lines_for(None).any(|l| l.contains("9×9, 10 mines")));
    assert_eq!(m.seats(), ["Player"]);
    assert_eq!(m.first_moves().len(), 162, "open and flag for each of 81 cells");
    let text = m.play(Seat(0), "OPEN e5").unwrap().text;
    assert_eq!(text, "open e5", "the canonical text");
    let v = m.view(None);
    assert_eq!(v["board"].as_array().unwrap().len(), 9);
    assert!(v["outcome"].is_null());
    assert!(Options::parse_size("16x16").is_ok() && Options::parse_size("16").is_err());
}

/// Play random legal moves from `seed`, with `choices` steering them.
fn random_game(seed: u64, options: Options, choices: &[usize]) -> (Minesweeper, Vec<String>) {
    let mut g = Minesweeper::new(options, Randomness::seeded(seed)).unwrap();
    let mut moves = Vec::new();
    for c in choices {
        let legal = Game::legal_moves(&g);
        if legal.is_empty() {
            break;
        }
        let m = legal[c % legal.len()];
        let text = g.move_text(&m);
        g.play_as(Seat(0), &m).unwrap();
        moves.push(text);
    }
    (g, moves)
}

fn options() -> impl Strategy<Value = Options> {
    (2u8..=12, 2u8..=12).prop_flat_map(|(w, h)| {
        let most = w as u16 * h as u16 - 1;
        (1u16..=most).prop_map(move |mines| Options { width: w, height: h, mines })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Before the end no view shows a mine, and no log line names where one is: the board
    /// holds only `#`, `F` and numbers.
    #[test]
    fn no_view_shows_a_mine_before_the_end(seed in any::<u64>(), o in options(), choices in prop::collection::vec(any::<usize>(), 1..60)) {
        let mut g = Minesweeper::new(o, Randomness::seeded(seed)).unwrap();
        for c in choices {
            let legal = Game::legal_moves(&g);
            if legal.is_empty() { break; }
            let m = legal[c % legal.len()];
            let r = g.play_as(Seat(0), &m).unwrap();
            if g.end().is_none() {
                let v = Game::view(&g, None);
                prop_assert!(v.board.iter().all(|row| row.chars().all(|ch| ch == '#' || ch == 'F' || ch.is_ascii_digit())), "{:?}", v.board);
                let json = serde_json::to_string(&v).unwrap();
                prop_assert!(!json.contains('*') && !json.contains('X'));
                for l in r.lines_for(None) {
                    prop_assert!(!l.contains("mine!"), "{l}");
                }
            }
        }
    }

    /// The same seed and moves give the same game, move by move.
    #[test]
    fn replay_is_identical(seed in any::<u64>(), o in options(), choices in prop::collection::vec(any::<usize>(), 1..40)) {
        let (g, moves) = random_game(seed, o, &choices);
        let mut again = Minesweeper::new(o, Randomness::seeded(seed)).unwrap();
        for t in &moves {
            let m = again.parse_move(t).unwrap();
            again.play_as(Seat(0), &m).unwrap();
        }
        prop_assert_eq!(Game::state_hash(&again), Game::state_hash(&g));
        prop_assert_eq!(again, g);
    }

    /// The first open never loses, wherever it is and however crowded the board.
    #[test]
    fn the_first_open_never_loses(seed in any::<u64>(), o in options(), at in any::<(u8, u8)>()) {
        let mut g = Minesweeper::new(o, Randomness::seeded(seed)).unwrap();
        let c = Cell { col: at.0 % o.width, row: at.1 % o.height };
        let r = g.play_as(Seat(0), &Move::Open(c)).unwrap();
        prop_assert!(!matches!(g.end(), Some(End::Lost(_))));
        prop_assert_eq!(r.random.len(), 1, "the mines are placed then, and recorded");
        let outcome: serde_json::Value = serde_json::from_str(&r.random[0]).unwrap();
        let placed = outcome["mines"].as_array().unwrap();
        prop_assert_eq!(placed.len(), o.mines as usize);
        prop_assert!(!placed.iter().any(|m| m.as_str() == Some(c.name().as_str())));
    }

    /// Nothing a player types, and no options a host passes, makes the game panic: it is
    /// read or refused with a reason.
    #[test]
    fn no_input_panics(text in ".{0,24}", w in any::<u8>(), h in any::<u8>(), mines in any::<u16>()) {
        let g = small();
        let _ = g.parse_move(&text);
        let _ = g.parse_move(&format!("open {text}"));
        let _ = Kind.create(&serde_json::json!({ "width": w, "height": h, "mines": mines }), 1);
        let _ = Kind.create(&serde_json::json!(text), 1);
    }
}
