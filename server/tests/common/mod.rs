//! Helpers shared by the server's test binaries.

use arbiter_twilight::{Options, Side};

/// A game where a seat may interject ("at any time": cancelling the Cuban Missile Crisis),
/// found by random play (`arbiter_twilight::playout::random_until`): the seed, the moves up to
/// that point (each with its side), the interjecting side and one interjection it may make.
#[allow(dead_code)]
pub fn interjection_ahead(options: Options) -> (u64, Vec<(Side, String)>, Side, String) {
    // A cancellation, not a headline chosen at the same time as the other side's (§4.5C).
    let open = |g: &arbiter_twilight::Game| {
        g.to_move()
            .map(|d| g.interjections(d.opponent()))
            .unwrap_or_default()
            .into_iter()
            .filter(|m| matches!(m, arbiter_twilight::Move::Cancel { .. }))
            .collect::<Vec<_>>()
    };
    let r = arbiter_twilight::playout::random_until(&arbiter_twilight_cards::ruleset(), options, 0..400, |g| !open(g).is_empty())
        .expect("an interjection in 400 random games");
    let interjector = r.game.to_move().expect("a decision").opponent();
    let first = open(&r.game)[0];
    (r.seed, r.moves, interjector, r.game.move_text(&first))
}

/// The lease's TTL of the tests' servers on PostgreSQL (short: a restart waits for it).
#[allow(dead_code)]
pub const LEASE_TTL: std::time::Duration = std::time::Duration::from_secs(1);

/// A database of the binary's shared PostgreSQL for the test whose data folder is `dir` (the
/// same one each time: a restarted server finds its games); `None`, after the skip line, when
/// PostgreSQL is missing.
#[allow(dead_code)]
pub fn database(dir: &std::path::Path) -> Option<String> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static MADE: Mutex<Option<HashMap<std::path::PathBuf, String>>> = Mutex::new(None);
    let pg = arbiter_pgtest::shared()?;
    let mut made = MADE.lock().unwrap_or_else(|p| p.into_inner());
    let made = made.get_or_insert_with(HashMap::new);
    let n = made.len();
    if let Some(url) = made.get(dir) {
        // A restart: the stopped server's leases expire first (`LEASE_TTL`), as they would
        // after a crash (a server stopped by Ctrl-C releases them).
        std::thread::sleep(LEASE_TTL + std::time::Duration::from_millis(300));
        return Some(url.clone());
    }
    Some(made.entry(dir.to_path_buf()).or_insert_with(|| pg.new_database(&format!("server_{n}"))).clone())
}

/// Game `id` as the server stored it (in `dir`, or in the test's database), replayed.
#[allow(dead_code)]
pub fn open_game(dir: &std::path::Path, id: &str, on_postgres: bool) -> arbiter_store::Session<arbiter_store::AnyStore> {
    use arbiter_store::{GamePlace, PgDatabase, Session};
    let games = arbiter_games::catalogue();
    if on_postgres {
        // The `postgres` crate blocks on a runtime of its own: off the test's async thread.
        tokio::task::block_in_place(|| {
            let db = PgDatabase::connect(&database(dir).expect("the test's database")).unwrap();
            Session::open_in(GamePlace::Postgres { db: &db, id }, &games).unwrap()
        })
    } else {
        let db = folder(dir);
        Session::open_in(GamePlace::Folder { db: &db, id }, &games).unwrap()
    }
}

/// Game `id`'s seats document as the server stored it (in the database of data folder `dir`, or in the test's
/// database): hashes of the seats' tokens, the clock, webhooks.
#[allow(dead_code)]
pub fn seats_doc(dir: &std::path::Path, id: &str, on_postgres: bool) -> String {
    if on_postgres {
        tokio::task::block_in_place(|| {
            let db = arbiter_store::PgDatabase::connect(&database(dir).expect("the test's database")).unwrap();
            db.doc(id, "seats").unwrap().expect("a seats document")
        })
    } else {
        folder(dir).doc(id, "seats").unwrap().expect("a seats document")
    }
}

/// The database of data folder `dir`: the server's own handle while a server of this process
/// holds the folder.
#[allow(dead_code)]
pub fn folder(dir: &std::path::Path) -> arbiter_store::FolderDatabase {
    arbiter_store::FolderDatabase::open_shared(dir).expect("the data folder's database")
}

/// The ids of the games stored in data folder `dir`'s database.
#[allow(dead_code)]
pub fn stored_games(dir: &std::path::Path) -> Vec<String> {
    folder(dir).game_ids().unwrap()
}
