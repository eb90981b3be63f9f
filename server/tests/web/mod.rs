//! What every browser test needs: a browser and its WebDriver server, waiting for a page,
//! reading it. Shared by the browser test binaries (`tests/browser*.rs`), which run ignored
//! unless asked for (see `tests/browser.rs` for how to install the browsers).
#![allow(dead_code)]

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::future::Future;
use std::ops::Deref;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a page may take to show what the test waits for.
pub const PATIENCE: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug)]
pub enum Browser {
    Chromium,
    Firefox,
}

pub fn env_path(var: &str, default: impl Into<PathBuf>) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| default.into())
}

impl Browser {
    pub fn name(self) -> &'static str {
        match self {
            Browser::Chromium => "chromium",
            Browser::Firefox => "firefox",
        }
    }

    pub fn binary(self) -> PathBuf {
        match self {
            Browser::Chromium => env_path("CHROMIUM", "/usr/bin/chromium"),
            Browser::Firefox => env_path("FIREFOX", "/usr/bin/firefox-esr"),
        }
    }

    pub fn driver(self) -> PathBuf {
        match self {
            Browser::Chromium => env_path("CHROMEDRIVER", "/usr/bin/chromedriver"),
            // CARGO_TARGET_TMPDIR is `tmp` in the target folder, wherever that is.
            Browser::Firefox => env_path("GECKODRIVER", Path::new(env!("CARGO_TARGET_TMPDIR")).join("../tools/bin/geckodriver")),
        }
    }

    /// How to get what is missing.
    pub fn install_hint(self) -> &'static str {
        match self {
            Browser::Chromium => "install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
            Browser::Firefox => {
                "install Debian's firefox-esr (apt-get install -y firefox-esr) and build geckodriver \
                 (cargo install geckodriver --locked --root target/tools), or set FIREFOX and GECKODRIVER"
            }
        }
    }
}

/// A WebDriver server (chromedriver, geckodriver) started by the test on a free loopback port,
/// killed when dropped (a failing test too).
pub struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The browser it started too, should a failed test leave its session open: the driver
        // runs in a process group of its own.
        let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", self.child.id())]).stderr(Stdio::null()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub async fn start_driver(browser: Browser) -> Driver {
    let (bin, exe) = (browser.driver(), browser.binary());
    assert!(bin.exists(), "{} is missing: {}", bin.display(), browser.install_hint());
    assert!(exe.exists(), "{} is missing: {}", exe.display(), browser.install_hint());
    let port = free_port();
    let mut cmd = Command::new(&bin);
    cmd.arg(format!("--port={port}"));
    if let Browser::Firefox = browser {
        // Its WebDriver BiDi port: geckodriver's default, 9222, would be shared by every session.
        cmd.arg(format!("--websocket-port={}", free_port()));
    }
    let child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
    let driver = Driver { child, url: format!("http://127.0.0.1:{port}") };
    let t = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(t.elapsed() < Duration::from_secs(20), "{} did not listen on port {port} within 20 s", bin.display());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    driver
}

/// A browser session with the WebDriver server of its own that drives it (geckodriver drives one
/// session only), both ended by `close`, or killed when dropped.
pub struct Session {
    pub client: Client,
    _driver: Driver,
    /// Firefox's WebDriver BiDi connection, which holds its viewport's size.
    _bidi: Option<Ws>,
}

impl Deref for Session {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Session {
    pub async fn close(self) {
        let Session { client, _driver, _bidi } = self;
        client.close().await.unwrap();
    }
}

/// The screens a page is tried at: the viewport's width and height in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// A desktop monitor, 1920x1080.
    Desktop,
    /// A small laptop, 1280x720.
    Laptop,
    /// The older tests' window, 1280x800.
    Window,
    /// A phone, 390x844 at a device pixel ratio of 2.
    Phone,
}

impl Screen {
    pub const TRIED: [Screen; 3] = [Screen::Desktop, Screen::Laptop, Screen::Phone];

    pub fn size(self) -> (u32, u32) {
        match self {
            Screen::Desktop => (1920, 1080),
            Screen::Laptop => (1280, 720),
            Screen::Window => (1280, 800),
            Screen::Phone => (390, 844),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Screen::Desktop => "desktop",
            Screen::Laptop => "laptop",
            Screen::Window => "window",
            Screen::Phone => "phone",
        }
    }

    fn pixel_ratio(self) -> u32 {
        match self {
            Screen::Phone => 2,
            Screen::Desktop | Screen::Laptop | Screen::Window => 1,
        }
    }
}

/// A headless browser with a fresh profile in `profile`, its window 1280x800; `phone` gives a
/// phone-sized screen (390x844) instead.
pub async fn open(browser: Browser, profile: &Path, phone: bool) -> Session {
    open_at(browser, profile, if phone { Screen::Phone } else { Screen::Window }).await
}

/// A headless browser with a fresh profile in `profile`, its viewport the screen's size.
pub async fn open_at(browser: Browser, profile: &Path, screen: Screen) -> Session {
    let driver = start_driver(browser).await;
    let (width, height) = screen.size();
    let phone = screen == Screen::Phone;
    let mut caps = serde_json::Map::new();
    match browser {
        Browser::Chromium => {
            let mut options = json!({
                "binary": browser.binary(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", profile.display()),
                    format!("--window-size={width},{height}"),
                ],
            });
            // The viewport exactly the screen's size (a headless window's size includes a frame);
            // the older tests' window as it was, resizable.
            if screen != Screen::Window {
                options["mobileEmulation"] = json!({ "deviceMetrics": {
                    "width": width, "height": height, "pixelRatio": screen.pixel_ratio(), "mobile": phone, "touch": phone,
                } });
            }
            caps.insert("goog:chromeOptions".into(), options);
        }
        Browser::Firefox => {
            std::fs::create_dir_all(profile).unwrap();
            let mut prefs = json!({
                "browser.shell.checkDefaultBrowser": false,
                "datareporting.policy.dataSubmissionEnabled": false,
                "app.update.enabled": false,
            });
            if phone {
                // A phone's scrollbars take no width (Chromium's mobile emulation does the same).
                prefs["ui.useOverlayScrollbars"] = json!(1);
            }
            caps.insert("webSocketUrl".into(), json!(true));
            let options = json!({ "binary": browser.binary(), "args": ["-headless", "-profile", profile], "prefs": prefs });
            caps.insert("moz:firefoxOptions".into(), options);
        }
    }
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .unwrap_or_else(|e| panic!("cannot start a {} session through {}: {e}", browser.name(), browser.driver().display()));
    let mut bidi = None;
    if let Browser::Firefox = browser {
        client.set_window_size(width.max(500), height).await.unwrap();
        if screen != Screen::Window {
            bidi = Some(firefox_viewport(&client, screen).await);
        }
    }
    let session = Session { client, _driver: driver, _bidi: bidi };
    if screen != Screen::Window {
        // Chromium's phone lays a blank page out at 980 px (it has no viewport tag): its screen
        // is what counts there.
        let script = match browser {
            Browser::Chromium if phone => "return [screen.width, screen.height]",
            Browser::Chromium | Browser::Firefox => "return [window.innerWidth, window.innerHeight]",
        };
        let inner = js(&session, script).await;
        assert_eq!(inner, json!([width, height]), "{} at the {} size: its viewport", browser.name(), screen.name());
    }
    session
}

pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One WebDriver BiDi command: its result, or a panic with its error.
pub async fn bidi(ws: &mut Ws, id: u64, method: &str, params: Value) -> Value {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let cmd = json!({ "id": id, "method": method, "params": params });
    ws.send(Message::Text(cmd.to_string().into())).await.unwrap();
    loop {
        let msg = tokio::time::timeout(PATIENCE, ws.next()).await.unwrap_or_else(|_| panic!("no answer to {cmd}"));
        let Some(Ok(Message::Text(t))) = msg else { panic!("WebDriver BiDi closed: {msg:?}") };
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["id"] == json!(id) {
            assert_eq!(v["type"], "success", "{cmd}: {v}");
            return v["result"].clone();
        }
    }
}

/// Firefox's viewport set to the screen's size through WebDriver BiDi (its window cannot be
/// narrower than 500 px, and a window's size includes its frame), at the screen's device pixel
/// ratio, as its responsive design mode does. The connection stays open with the session. Touch
/// is not emulated: Firefox ESR answers BiDi's `emulation.setTouchOverride` with "unknown
/// command" and its touch-events preference does not turn them on in a desktop build; the client
/// has no touch-only code, and a tap is a WebDriver click as in Chromium. What the phone checks
/// is the layout at a phone's width.
pub async fn firefox_viewport(client: &Client, screen: Screen) -> Ws {
    let url = client.capabilities().and_then(|c| c.get("webSocketUrl")).and_then(Value::as_str).expect("geckodriver gave no webSocketUrl");
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap_or_else(|e| panic!("WebDriver BiDi at {url}: {e}"));
    let tree = bidi(&mut ws, 1, "browsingContext.getTree", json!({})).await;
    let context = tree["contexts"][0]["context"].clone();
    let (width, height) = screen.size();
    bidi(
        &mut ws,
        2,
        "browsingContext.setViewport",
        json!({ "context": context, "viewport": { "width": width, "height": height }, "devicePixelRatio": screen.pixel_ratio() }),
    )
    .await;
    ws
}

/// Poll `f` until it gives `Some`, for `PATIENCE` at most.
pub async fn until<T, F, Fut>(what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let t = Instant::now();
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(t.elapsed() < PATIENCE, "waited {PATIENCE:?} for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap_or_else(|e| panic!("script failed: {script}: {e}"))
}

pub async fn attr(c: &Client, css: &str, name: &str) -> Option<String> {
    c.find(Locator::Css(css)).await.ok()?.attr(name).await.ok()?
}

/// A country's Influence as the page shows it: the number in the box (and its data attribute,
/// read at the same moment).
pub async fn influence(c: &Client, country: &str, side: &str) -> u32 {
    let script = format!(
        r#"const e = document.querySelector('#map [data-country="{country}"]');
           return [e.querySelector(".inf.{side}").textContent, e.dataset.{side}];"#
    );
    let v = js(c, &script).await;
    let (text, data) = (v[0].as_str().unwrap(), v[1].as_str().unwrap());
    assert_eq!(text, data, "{country}: the box shows {text}, its data says {data}");
    text.parse().unwrap()
}

pub async fn wait_connected(c: &Client, who: &str) {
    until(&format!("the {who} page to connect and render"), || async move {
        let connected = attr(c, "#conn", "data-state").await.as_deref() == Some("connected");
        let rendered = attr(c, "[data-country=\"Poland\"]", "data-ussr").await.is_some();
        (connected && rendered).then_some(())
    })
    .await;
}

/// The cards shown in the page's hand.
pub async fn hand(c: &Client) -> Vec<String> {
    let mut out = Vec::new();
    for e in c.find_all(Locator::Css("#hand [data-card]")).await.unwrap() {
        out.push(e.attr("data-card").await.unwrap().unwrap());
    }
    out
}

/// Everything the page holds as text, hidden parts included: its text and every attribute but
/// `title` (a card's text there is public data and may name other cards).
pub async fn everything(c: &Client) -> String {
    let v = js(
        c,
        r#"const parts = [document.body.textContent];
           for (const e of document.querySelectorAll("*"))
             for (const a of e.attributes) if (a.name !== "title") parts.push(a.value);
           return parts.join("\n");"#,
    )
    .await;
    v.as_str().unwrap().to_string()
}

/// The page does not scroll sideways: no wider than the window less its vertical scrollbar.
pub async fn no_sideways_scroll(c: &Client, what: &str) {
    let v = js(c, "return [document.documentElement.scrollWidth, document.documentElement.clientWidth, document.body.scrollWidth]").await;
    let (doc, inner, body) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap(), v[2].as_u64().unwrap());
    assert!(doc <= inner && body <= inner, "{what}: the page is {doc}/{body} px wide in a {inner} px wide window");
}

pub async fn screenshot(c: &Client, kind: Browser, name: &str) {
    if let Some(dir) = std::env::var_os("ARBITER_SCREENSHOTS") {
        let png = c.screenshot().await.unwrap();
        let path = Path::new(&dir).join(format!("{}-{name}", kind.name()));
        std::fs::write(&path, png).unwrap();
        eprintln!("screenshot: {}", path.display());
    }
}

pub async fn get(http: &reqwest::Client, url: String) -> Value {
    let r = http.get(&url).send().await.unwrap();
    assert!(r.status().is_success(), "{url}: {}", r.status());
    r.json().await.unwrap()
}
