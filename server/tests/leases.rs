//! The cluster's leases (`arbiter_server::cluster::lease`) against a real PostgreSQL
//! (`arbiter-pgtest`: a server of its own, a database per test): taken, held, renewed, expired
//! and released on the database's clock, and a handle fenced by its owner's lease. Without
//! PostgreSQL each test prints the skip line and passes; `ARBITER_REQUIRE_POSTGRES=1`
//! (`.ci/run`) makes that a failure.

use arbiter_games::{catalogue, MINESWEEPER};
use arbiter_server::cluster::lease::{self, Lease};
use arbiter_store::{EventStore, PgDatabase, PgStore, Session, SessionError, StoreError};
use serde_json::json;
use std::time::Duration;

/// A fresh database of the shared test server, named after the test, with the server's tables.
fn database(name: &str) -> Option<PgDatabase> {
    let pg = arbiter_pgtest::shared()?;
    let url = pg.new_database(&format!("lease_{name}"));
    let db = PgDatabase::connect(&url).unwrap_or_else(|e| panic!("connect {url}: {e}"));
    lease::prepare(&db).expect("the server's tables");
    Some(db)
}

fn new_game(db: &PgDatabase, id: &str) -> Session<PgStore> {
    let options = json!({"width": 20, "height": 20, "mines": 40});
    Session::create_with(&MINESWEEPER, &options, 3, |header| db.create_game(id, header)).expect("created")
}

fn open(db: &PgDatabase, id: &str) -> Session<PgStore> {
    Session::load(db.open_game(id).expect("opened"), &catalogue()).expect("loaded")
}

/// The first legal move that does not end the game (a flag), played.
fn play_one<S: EventStore>(s: &mut Session<S>) -> Result<String, SessionError> {
    let m = s.game().first_moves().into_iter().find(|m| m.starts_with("flag")).expect("a flag to place");
    s.play(&m, None).map(|_| m.clone())
}

#[test]
fn leases_are_taken_held_expire_renew_and_release() {
    let Some(db) = database("cycle") else { return };
    drop(new_game(&db, "g"));
    drop(new_game(&db, "h"));
    let long = Duration::from_secs(30);
    assert_eq!(lease::acquire(&db, "g", "p1", "10.0.0.1:80", long).unwrap(), Lease::Acquired);
    match lease::acquire(&db, "g", "p2", "10.0.0.2:80", long).unwrap() {
        Lease::HeldBy { owner, address, expires_in } => {
            assert_eq!((owner.as_str(), address.as_str()), ("p1", "10.0.0.1:80"));
            assert!(expires_in <= long && expires_in > Duration::from_secs(20), "{expires_in:?}");
        }
        Lease::Acquired => panic!("two owners"),
    }
    // Its own owner renews.
    assert_eq!(lease::acquire(&db, "g", "p1", "10.0.0.1:80", long).unwrap(), Lease::Acquired);
    assert_eq!(lease::acquire(&db, "h", "p1", "10.0.0.1:80", long).unwrap(), Lease::Acquired);
    assert_eq!(lease::renew(&db, "p1", long).unwrap(), ["g", "h"]);
    assert_eq!(lease::renew(&db, "p2", long).unwrap(), Vec::<String>::new());
    // Released by another: nothing; by its owner: free.
    lease::release(&db, "h", "p2").unwrap();
    assert!(matches!(lease::acquire(&db, "h", "p2", "b", long).unwrap(), Lease::HeldBy { .. }));
    lease::release(&db, "h", "p1").unwrap();
    assert_eq!(lease::acquire(&db, "h", "p2", "b", long).unwrap(), Lease::Acquired);
    // A short lease expires and is taken over; its old owner no longer renews it.
    let short = Duration::from_millis(300);
    lease::release(&db, "g", "p1").unwrap();
    assert_eq!(lease::acquire(&db, "g", "p1", "a", short).unwrap(), Lease::Acquired);
    assert!(matches!(lease::acquire(&db, "g", "p2", "b", long).unwrap(), Lease::HeldBy { .. }));
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(lease::renew(&db, "p1", long).unwrap(), Vec::<String>::new(), "an expired lease is not renewed");
    assert_eq!(lease::acquire(&db, "g", "p2", "b", long).unwrap(), Lease::Acquired);
    assert_eq!(lease::renew(&db, "p2", long).unwrap(), ["g", "h"]);
    assert!(matches!(lease::acquire(&db, "g", "p1", "a", long).unwrap(), Lease::HeldBy { owner, .. } if owner == "p2"));
    assert!(matches!(lease::acquire(&db, "nope", "p1", "a", long), Err(StoreError::NoSuchGame(_))));
    // A deleted game's lease goes with it.
    db.delete_game("h").unwrap();
    assert_eq!(lease::renew(&db, "p2", long).unwrap(), ["g"]);
}

#[test]
fn a_fenced_handle_writes_only_while_its_owner_holds_the_lease() {
    let Some(db) = database("fence") else { return };
    drop(new_game(&db, "g"));
    let short = Duration::from_millis(300);
    let (a, b) = (lease::fenced(db.clone(), "a"), lease::fenced(db.clone(), "b"));
    assert_eq!(lease::acquire(&db, "g", "a", "x", short).unwrap(), Lease::Acquired);
    // The owner writes a document, a chat message and a move.
    let mut sa = open(&a, "g");
    a.put_doc("g", "seats", r#"{"by":"a"}"#).unwrap();
    sa.store().add_chat("p", "all", "hello").unwrap();
    let first = play_one(&mut sa).unwrap();
    // Another owner's handle writes nothing while a's lease runs.
    let mut sb = open(&b, "g");
    let lost = |r: Result<(), StoreError>| matches!(r, Err(StoreError::LeaseLost(_)));
    assert!(lost(b.put_doc("g", "seats", r#"{"by":"b"}"#)));
    assert!(matches!(sb.store().add_chat("p", "all", "from b"), Err(StoreError::LeaseLost(_))));
    assert!(matches!(play_one(&mut sb), Err(SessionError::Store(StoreError::LeaseLost(_)))));
    // a's lease expires and b takes the game over: now a's writes are refused, b's stored.
    std::thread::sleep(Duration::from_millis(600));
    assert!(lost(a.put_doc("g", "seats", r#"{"by":"a, late"}"#)), "an expired lease fences its owner");
    assert_eq!(lease::acquire(&db, "g", "b", "y", Duration::from_secs(30)).unwrap(), Lease::Acquired);
    assert!(lost(a.put_doc("g", "seats", r#"{"by":"a, stale"}"#)));
    assert!(matches!(sa.store().add_chat("p", "all", "stale"), Err(StoreError::LeaseLost(_))));
    assert!(matches!(play_one(&mut sa), Err(SessionError::Store(StoreError::LeaseLost(_)))));
    assert!(matches!(sa.undo(), Err(SessionError::Store(StoreError::LeaseLost(_)))));
    b.put_doc("g", "seats", r#"{"by":"b"}"#).unwrap();
    let second = play_one(&mut sb).unwrap();
    // The record: a's move, then b's; the document and the chat as their owners wrote them.
    assert_eq!(db.doc("g", "seats").unwrap().as_deref(), Some(r#"{"by":"b"}"#));
    let texts: Vec<String> = open(&db, "g").store().chat().unwrap().into_iter().map(|m| m.text).collect();
    assert_eq!(texts, ["hello"]);
    let moves: Vec<String> = open(&db, "g").rows().iter().map(|r| r.move_text.clone()).collect();
    assert_eq!(moves, [first, second]);
    // An unfenced handle (the command line's) is not held to any lease.
    db.put_doc("g", "seats", "{}").unwrap();
}

/// Taking a lease over locks the game's row, as every fenced write does: a takeover waits for
/// the write under way (whose fence was checked while the lease still ran), so no write of the
/// old owner lands after the new owner has the game.
#[test]
fn a_takeover_waits_for_the_old_owner_s_write_under_way() {
    let Some(db) = database("takeover") else { return };
    drop(new_game(&db, "g"));
    let a = lease::fenced(db.clone(), "a");
    assert_eq!(lease::acquire(&db, "g", "a", "x", Duration::from_millis(300)).unwrap(), Lease::Acquired);
    let mut store = a.open_game("g").unwrap();
    store.lock().expect("a's write begins while its lease runs");
    std::thread::sleep(Duration::from_millis(600));
    let committed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let taker = scope.spawn(|| {
            let lease = lease::acquire(&db, "g", "b", "y", Duration::from_secs(30)).unwrap();
            (lease, committed.load(std::sync::atomic::Ordering::SeqCst))
        });
        std::thread::sleep(Duration::from_millis(500));
        assert!(!taker.is_finished(), "the takeover waits for the write's row lock");
        // Marked before the commit, which lets the row go: the taker cannot see it unmarked
        // once it has the lease.
        committed.store(true, std::sync::atomic::Ordering::SeqCst);
        store.commit().expect("a's write, begun under its lease, ends");
        let (lease, after) = taker.join().unwrap();
        assert_eq!(lease, Lease::Acquired);
        assert!(after, "taken only once a's write had ended");
    });
    // And a's next write is refused.
    assert!(matches!(a.put_doc("g", "seats", "{}"), Err(StoreError::LeaseLost(_))));
}
