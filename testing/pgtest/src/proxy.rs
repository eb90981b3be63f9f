//! A TCP proxy between a client and a PostgreSQL server that can lose one `COMMIT`, the way a
//! network or a dying peer loses it: before forwarding it (the server never sees it, and rolls
//! back when its connection ends) or after the server answered it (the write is stored, the
//! client never hears so). It reads the frontend protocol's message boundaries (the untyped
//! start-up messages, then one type byte and a length each), so it acts on a `COMMIT` simple
//! query, never on bytes that merely contain the word, and at a point fixed by the protocol
//! rather than by timing.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What the proxy does with the next `COMMIT` a client sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Forward everything.
    Off,
    /// Close the client's connection and the server's without forwarding the `COMMIT`.
    BeforeCommit,
    /// Forward the `COMMIT`, wait for the server's answer (its `ReadyForQuery`), and close both
    /// connections without passing the answer on.
    AfterCommit,
    /// As [`Cut::AfterCommit`], then the proxy goes down (see [`CutProxy::down`]): the database
    /// cannot be reached when the client asks what became of its write.
    AfterCommitThenDown,
}

/// A proxy on a loopback port of its own, forwarding to `127.0.0.1:target`.
pub struct CutProxy {
    port: u16,
    armed: Arc<Mutex<Cut>>,
    cuts: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    shared: Arc<Shared>,
}

/// What every connection's threads share.
#[derive(Default)]
struct Shared {
    /// Down: every connection closed, new ones refused.
    down: AtomicBool,
    /// The clients' ends, to close them all.
    clients: Mutex<Vec<TcpStream>>,
    /// Statements run: simple queries ('Q') and executions of prepared ones ('E').
    statements: AtomicUsize,
}

impl Shared {
    fn down(&self) {
        self.down.store(true, Ordering::SeqCst);
        for c in self.clients.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }
}

impl CutProxy {
    /// Listen on a free loopback port and forward each connection to `127.0.0.1:target`.
    pub fn start(target: u16) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port for the proxy");
        let port = listener.local_addr().expect("the proxy's address").port();
        let (armed, cuts, stop) = (Arc::new(Mutex::new(Cut::Off)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let shared = Arc::new(Shared::default());
        let (a, c, s, sh) = (armed.clone(), cuts.clone(), stop.clone(), shared.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                if sh.down.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else { continue };
                if let Ok(c) = client.try_clone() {
                    sh.clients.lock().unwrap_or_else(|p| p.into_inner()).push(c);
                }
                let (a, c, sh) = (a.clone(), c.clone(), sh.clone());
                std::thread::spawn(move || pipe(client, server, a, c, sh));
            }
        });
        CutProxy { port, armed, cuts, stop, shared }
    }

    /// Close every connection and refuse new ones (the database unreachable) until [`up`].
    ///
    /// [`up`]: CutProxy::up
    pub fn down(&self) {
        self.shared.down();
    }

    /// Accept connections again.
    pub fn up(&self) {
        self.shared.down.store(false, Ordering::SeqCst);
    }

    /// The port clients connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `url` (a `postgres://…@127.0.0.1:PORT/…` URL of the server) with the proxy's port.
    pub fn url(&self, url: &str) -> String {
        let (head, rest) = url.rsplit_once(':').expect("a URL with a port");
        let tail = rest.find('/').map(|i| &rest[i..]).unwrap_or("");
        format!("{head}:{}{tail}", self.port)
    }

    /// Cut the next `COMMIT` any client sends this way (once; then [`Cut::Off`] again).
    pub fn arm(&self, cut: Cut) {
        *self.armed.lock().unwrap_or_else(|p| p.into_inner()) = cut;
    }

    /// How many statements clients ran through the proxy so far (simple queries and
    /// executions of prepared statements; preparing one is not counted): a test's measure of
    /// the round trips a call costs.
    pub fn statements(&self) -> usize {
        self.shared.statements.load(Ordering::SeqCst)
    }

    /// How many `COMMIT`s were cut so far.
    pub fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accepting thread so that it sees the flag and ends.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// The start-up codes of messages after which another untyped message follows (the server
/// answers them with one byte).
const SSL_REQUEST: u32 = 80877103;
const GSS_REQUEST: u32 = 80877104;

/// Read exactly `n` bytes, or `None` at the end of the stream.
fn read_n(r: &mut impl Read, n: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0; n];
    r.read_exact(&mut buf).ok()?;
    Some(buf)
}

fn close(a: &TcpStream, b: &TcpStream) {
    let _ = a.shutdown(Shutdown::Both);
    let _ = b.shutdown(Shutdown::Both);
}

/// Forward one connection both ways, message by message from the client, acting on an armed
/// `COMMIT`.
fn pipe(mut client: TcpStream, mut server: TcpStream, armed: Arc<Mutex<Cut>>, cuts: Arc<AtomicUsize>, shared: Arc<Shared>) {
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    // Set before the `COMMIT` is forwarded: the server's next bytes are its answer to it.
    let swallow = Arc::new(AtomicBool::new(false));
    let answered = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let back = {
        let (Ok(mut from), Ok(mut to)) = (server.try_clone(), client.try_clone()) else { return close(&client, &server) };
        let (swallow, answered) = (swallow.clone(), answered.clone());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            let mut buf = [0u8; 8192];
            let mut answer_held = false;
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if !swallow.load(Ordering::SeqCst) {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    continue;
                }
                // The answer to the `COMMIT`, kept back until its `ReadyForQuery` ('Z').
                held.extend_from_slice(&buf[..n]);
                if ready_for_query(&held) {
                    answer_held = true;
                    break;
                }
            }
            // The server gone: the client's side ends too. An answer held back: the client's
            // side is the pipe's to end, once it has counted the cut (and taken the database
            // down): a client that saw its connection end first could count the cuts too early,
            // or reconnect before the database went down (seen under load).
            if answer_held {
                let _ = from.shutdown(Shutdown::Both);
            } else {
                close(&from, &to);
            }
            // Answered, or the server gone: either way the client's side may be cut now.
            let (done, wake) = &*answered;
            *done.lock().unwrap_or_else(|p| p.into_inner()) = true;
            wake.notify_all();
        })
    };
    let mut typed = false;
    loop {
        let message = if typed {
            let Some(head) = read_n(&mut client, 5) else { break };
            let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
            let Some(body) = read_n(&mut client, len.saturating_sub(4)) else { break };
            if matches!(head[0], b'Q' | b'E') {
                shared.statements.fetch_add(1, Ordering::SeqCst);
            }
            let is_commit = head[0] == b'Q' && body.strip_suffix(&[0]).is_some_and(|q| q.trim_ascii().eq_ignore_ascii_case(b"COMMIT"));
            if is_commit {
                let cut = std::mem::replace(&mut *armed.lock().unwrap_or_else(|p| p.into_inner()), Cut::Off);
                match cut {
                    Cut::Off => {}
                    Cut::BeforeCommit => {
                        cuts.fetch_add(1, Ordering::SeqCst);
                        break;
                    }
                    Cut::AfterCommit | Cut::AfterCommitThenDown => {
                        swallow.store(true, Ordering::SeqCst);
                        if server.write_all(&head).and_then(|()| server.write_all(&body)).is_err() {
                            break;
                        }
                        let (done, wake) = &*answered;
                        let mut done = done.lock().unwrap_or_else(|p| p.into_inner());
                        while !*done {
                            done = wake.wait(done).unwrap_or_else(|p| p.into_inner());
                        }
                        // Counted before the client can see its connection end.
                        cuts.fetch_add(1, Ordering::SeqCst);
                        if cut == Cut::AfterCommitThenDown {
                            shared.down();
                        }
                        break;
                    }
                }
            }
            [head, body].concat()
        } else {
            let Some(len) = read_n(&mut client, 4) else { break };
            let n = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
            let Some(body) = read_n(&mut client, n.saturating_sub(4)) else { break };
            let code = body.get(..4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
            typed = !matches!(code, Some(SSL_REQUEST | GSS_REQUEST));
            [len, body].concat()
        };
        if server.write_all(&message).is_err() {
            break;
        }
    }
    close(&client, &server);
    let _ = back.join();
}

/// Whether `bytes` (whole backend messages from a boundary) hold a `ReadyForQuery`.
fn ready_for_query(bytes: &[u8]) -> bool {
    let mut at = 0;
    while at + 5 <= bytes.len() {
        let len = u32::from_be_bytes([bytes[at + 1], bytes[at + 2], bytes[at + 3], bytes[at + 4]]) as usize;
        if bytes[at] == b'Z' && at + 1 + len <= bytes.len() {
            return true;
        }
        at += 1 + len;
    }
    false
}
