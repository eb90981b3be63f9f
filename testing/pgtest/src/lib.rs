//! # A throwaway PostgreSQL server for tests
//!
//! [`PgServer::start`] makes a real PostgreSQL cluster in a temporary folder (`initdb`), starts
//! it on a free loopback port (and a socket in that folder), creates a database and returns its
//! URL; dropping it stops the server (`pg_ctl stop -m immediate`) and removes the folder. A
//! small watchdog process does the same if the test process dies without dropping it (a
//! SIGKILL, an abort, or [`shared`], which is never dropped), so no server outlives its tests.
//!
//! PostgreSQL refuses to run as root, and the tests run as root here and in CI: the server then
//! runs as the unprivileged user `postgres` (Debian's package makes it), or `nobody`, through
//! `runuser`, in a folder that user owns.
//!
//! Without PostgreSQL's binaries, [`PgServer::start`] prints one line ("PostgreSQL not found:
//! skipping …") and returns `None`, so `cargo test` passes on a machine without it; with
//! `ARBITER_REQUIRE_POSTGRES=1` (as `.ci/run` sets) it panics instead, so CI cannot skip the
//! tests silently. Binaries found but a server that cannot start is always a failure.
//!
//! [`CutProxy`] sits between a client and the server and loses one `COMMIT` on request, before
//! forwarding it or after the server answered it (a lost connection at a point the protocol
//! fixes, not a timing).

mod proxy;
pub use proxy::{Cut, CutProxy};

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The environment variable that makes a missing PostgreSQL a failure rather than a skip.
pub const REQUIRE_ENV: &str = "ARBITER_REQUIRE_POSTGRES";

/// The database role the tests connect as (made by `initdb -U`, trusted on loopback).
const ROLE: &str = "arbiter";

/// A running PostgreSQL server of its own, in a temporary folder.
pub struct PgServer {
    dir: PathBuf,
    data: PathBuf,
    bindir: PathBuf,
    port: u16,
    /// The user the server runs as, when this process is root.
    run_as: Option<String>,
    url: String,
    watchdog: Option<Child>,
}

/// Whether the tests must not skip for want of PostgreSQL.
pub fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1")
}

/// The name of the running test (libtest names each test's thread after it).
fn test_name() -> String {
    std::thread::current().name().filter(|n| *n != "main").unwrap_or("this test").to_string()
}

/// One server for the whole test binary, started by the first call (its databases made with
/// [`PgServer::new_database`], one per test). Never dropped: its watchdog stops it when the
/// process ends. `None` (after the skip line) when PostgreSQL is not installed.
pub fn shared() -> Option<&'static PgServer> {
    static SERVER: OnceLock<Option<PgServer>> = OnceLock::new();
    let server = SERVER.get_or_init(|| PgServer::start_quiet().ok());
    if server.is_none() {
        skip_or_panic();
    }
    server.as_ref()
}

/// Print the skip line (or panic when PostgreSQL is required).
fn skip_or_panic() {
    let test = test_name();
    if required() {
        panic!(
            "PostgreSQL not found: cannot run {test}, and {REQUIRE_ENV}=1 requires it; .ci/run installs it (apt-get install postgresql)"
        );
    }
    // Straight to the process's stderr: libtest's capture would hide it for a passing test.
    let _ = writeln!(std::io::stderr(), "PostgreSQL not found: skipping {test}; .ci/run installs it");
}

/// Where PostgreSQL's server binaries are: `pg_config --bindir`, then Debian's
/// `/usr/lib/postgresql/<version>/bin` (the newest), then `initdb` on the PATH.
pub fn find_bindir() -> Option<PathBuf> {
    let complete = |dir: &Path| ["initdb", "pg_ctl", "postgres", "createdb"].iter().all(|b| dir.join(b).is_file());
    if let Ok(out) = Command::new("pg_config").arg("--bindir").stderr(Stdio::null()).output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && complete(&dir) {
            return Some(dir);
        }
    }
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<(u32, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| Some((e.file_name().to_str()?.parse::<u32>().ok()?, e.path().join("bin"))))
            .filter(|(_, bin)| complete(bin))
            .collect();
        versions.sort();
        if let Some((_, bin)) = versions.pop() {
            return Some(bin);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|dir| dir.join("initdb").is_file()).and_then(|dir| {
        // A link in /usr/local/bin: the real folder holds the other binaries.
        let real = std::fs::canonicalize(dir.join("initdb")).ok()?;
        let real = real.parent()?.to_path_buf();
        [real, dir].into_iter().find(|d| complete(d))
    })
}

/// The output of `id ARGS` as a number.
fn id_of(args: &[&str]) -> Option<u32> {
    let out = Command::new("id").args(args).stderr(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// A command's output in a message (it failed).
fn shown(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)).trim().to_string()
}

impl PgServer {
    /// Start a server with a database `arbiter` ([`PgServer::url`]). `None`, after printing
    /// the skip line, when PostgreSQL is not installed (a panic under
    /// `ARBITER_REQUIRE_POSTGRES=1`); a panic if it is installed but cannot start.
    pub fn start() -> Option<PgServer> {
        match Self::start_quiet() {
            Ok(server) => Some(server),
            Err(()) => {
                skip_or_panic();
                None
            }
        }
    }

    /// `Err(())` when the binaries are missing; panics when they are there but fail.
    fn start_quiet() -> Result<PgServer, ()> {
        let bindir = find_bindir().ok_or(())?;
        Ok(Self::start_in(bindir).unwrap_or_else(|e| panic!("PostgreSQL was found but could not be started: {e}")))
    }

    fn start_in(bindir: PathBuf) -> Result<PgServer, String> {
        let root = id_of(&["-u"]) == Some(0);
        // PostgreSQL refuses root: an unprivileged user runs it, in a folder it owns.
        let run_as = if root {
            let user = ["postgres", "nobody"]
                .into_iter()
                .find(|u| id_of(&["-u", u]).is_some())
                .ok_or("running as root, and there is no user `postgres` nor `nobody` to run PostgreSQL as")?;
            Some(user.to_string())
        } else {
            None
        };
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        // Under /tmp when another user runs the server: it must reach the folder (TMPDIR may
        // be root's own).
        let base = if run_as.is_some() { PathBuf::from("/tmp") } else { std::env::temp_dir() };
        let dir = base.join(format!("arbiter-pg-{}-{}-{nanos}", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let mut server = PgServer { data: dir.join("data"), dir, bindir, port: 0, run_as, url: String::new(), watchdog: None };
        // From here on, Drop cleans up whatever was made.
        server.own_folder()?;
        server.watchdog = match server.start_watchdog() {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("arbiter-pgtest: no watchdog ({e}): a test process killed may leave {} running", server.dir.display());
                None
            }
        };
        server.initdb()?;
        server.start_server()?;
        server.url = server.new_database("arbiter");
        Ok(server)
    }

    /// Give the folder to the user the server runs as (0700).
    fn own_folder(&self) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| e.to_string())?;
        if let Some(user) = &self.run_as {
            let uid = id_of(&["-u", user]).ok_or_else(|| format!("no uid for {user}"))?;
            let gid = id_of(&["-g", user]).ok_or_else(|| format!("no gid for {user}"))?;
            std::os::unix::fs::chown(&self.dir, Some(uid), Some(gid))
                .map_err(|e| format!("cannot give {} to {user}: {e}", self.dir.display()))?;
        }
        Ok(())
    }

    /// A command running one of PostgreSQL's binaries as the server's user, in its folder (a
    /// user that cannot read the current folder makes `initdb` fail).
    fn command(&self, binary: &str) -> Command {
        let path = self.bindir.join(binary);
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        };
        cmd.current_dir(&self.dir).stdin(Stdio::null());
        cmd
    }

    fn initdb(&self) -> Result<(), String> {
        let out = self
            .command("initdb")
            .arg("-D")
            .arg(&self.data)
            .args(["-U", ROLE, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
            .output()
            .map_err(|e| format!("cannot run initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!("initdb failed: {}", shown(&out)));
        }
        Ok(())
    }

    /// Start on a free loopback port, trying again if another process took the port meanwhile.
    fn start_server(&mut self) -> Result<(), String> {
        let log = self.dir.join("server.log");
        let mut last = String::new();
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).map_err(|e| e.to_string())?;
            let options = format!("-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200", self.dir.display());
            let out = self
                .command("pg_ctl")
                .arg("-D")
                .arg(&self.data)
                .arg("-l")
                .arg(&log)
                .args(["-w", "-t", "60", "-o", &options, "start"])
                .output()
                .map_err(|e| format!("cannot run pg_ctl: {e}"))?;
            if out.status.success() {
                self.port = port;
                return Ok(());
            }
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            last = format!("pg_ctl start failed: {}\n{text}", shown(&out));
            if !text.contains("could not bind") && !text.contains("already in use") {
                break;
            }
        }
        Err(last)
    }

    /// A process that stops the server and removes its folder once this process is gone (a
    /// test process killed, or the [`shared`] server, never dropped).
    fn start_watchdog(&self) -> std::io::Result<Child> {
        let stop = match &self.run_as {
            Some(user) => format!("runuser -u {user} -- "),
            None => String::new(),
        };
        let script = format!(
            "trap '' INT HUP TERM; while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop}'{pg_ctl}' -D '{data}' stop -m immediate; rm -rf '{dir}'",
            pid = std::process::id(),
            pg_ctl = self.bindir.join("pg_ctl").display(),
            data = self.data.display(),
            dir = self.dir.display(),
        );
        // A process group of its own, signals ignored: a Ctrl-C at the terminal (sent to the
        // test's group) stops the tests, not the watchdog that cleans up after them.
        use std::os::unix::process::CommandExt;
        Command::new("sh")
            .args(["-c", &script])
            .current_dir("/")
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
    }

    /// The URL of the database `arbiter`: `postgres://arbiter@127.0.0.1:PORT/arbiter`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder of the server's Unix socket (also usable in a URL: `host=` that folder).
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// Create a fresh database `name` (letters, digits, `_`; one per test) and return its URL.
    pub fn new_database(&self, name: &str) -> String {
        assert!(
            !name.is_empty() && name.len() < 60 && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "a test database's name is lowercase letters, digits and _: {name:?}"
        );
        let out = Command::new(self.bindir.join("createdb"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", ROLE, name])
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run createdb: {e}"));
        assert!(out.status.success(), "createdb {name} failed: {}", shown(&out));
        format!("postgres://{ROLE}@127.0.0.1:{}/{name}", self.port)
    }

    /// Run SQL through `psql` against database `db` (a test editing rows behind the store's
    /// back); returns its output (unaligned, tuples only).
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = Command::new(self.bindir.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                ROLE,
                "-d",
                db,
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ])
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run psql: {e}"));
        assert!(out.status.success(), "psql {sql:?} failed: {}", shown(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Stop the server at once (as a crash would: `pg_ctl stop -m immediate`) and start it
    /// again on the same port: connections made before are closed.
    pub fn restart(&self) {
        let out = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .args(["-w", "-t", "60", "-m", "immediate", "restart"])
            .output()
            .unwrap_or_else(|e| panic!("cannot run pg_ctl: {e}"));
        assert!(out.status.success(), "pg_ctl restart failed: {}", shown(&out));
    }

    fn stop(&self) {
        let started = Instant::now();
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["stop", "-m", "immediate"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // `pg_ctl stop` waits for the server to go; the folder goes after it.
        while self.data.join("postmaster.pid").exists() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server starts, answers on its port, makes databases, and is gone once dropped.
    #[test]
    fn a_server_starts_serves_and_goes() {
        let Some(server) = PgServer::start() else { return };
        assert!(server.url().starts_with("postgres://arbiter@127.0.0.1:"));
        assert_eq!(server.psql("arbiter", "SELECT 1 + 1"), "2");
        let url = server.new_database("second");
        assert!(url.ends_with("/second"));
        assert_eq!(server.psql("second", "SELECT current_database()"), "second");
        let dir = server.dir.clone();
        let port = server.port();
        drop(server);
        assert!(!dir.exists(), "the folder is removed");
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the server is stopped");
    }
}
