//! A tiny HTTP/1.1 server on 127.0.0.1 for test pages. It serves the routes it was given,
//! answers 404 otherwise, records every requested path, and stops when dropped.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Path → (content type, extra header lines, body).
type Routes = Arc<Mutex<HashMap<String, (String, String, Vec<u8>)>>>;
/// URL prefix → directory served under it.
type Dirs = Arc<Mutex<Vec<(String, PathBuf)>>>;
/// Path → how its response misbehaves.
type Quirks = Arc<Mutex<HashMap<String, Quirk>>>;

/// A response that misbehaves on purpose: announces a length other than its body's (a cut
/// download) or pauses before the body (a slow one).
#[derive(Debug, Clone, Copy, Default)]
pub struct Quirk {
    pub declared_len: Option<usize>,
    pub pause: Duration,
    /// Another status line than `200 OK`, e.g. `302 Found` (with a `Location` header given
    /// to [`TestServer::route_with_headers`]).
    pub status: Option<&'static str>,
}

pub struct TestServer {
    addr: SocketAddr,
    routes: Routes,
    dirs: Dirs,
    quirks: Quirks,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    pub fn start() -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local addr");
        let routes: Routes = Arc::default();
        let dirs: Dirs = Arc::default();
        let quirks: Quirks = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (routes, dirs, quirks, requests, stop) =
                (routes.clone(), dirs.clone(), quirks.clone(), requests.clone(), stop.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (routes, dirs, quirks, requests) =
                        (routes.clone(), dirs.clone(), quirks.clone(), requests.clone());
                    std::thread::spawn(move || serve(conn, &routes, &dirs, &quirks, &requests));
                }
            })
        };
        TestServer { addr, routes, dirs, quirks, requests, stop, thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn route(&self, path: &str, content_type: &str, body: impl Into<Vec<u8>>) {
        self.route_with_headers(path, content_type, &[], body);
    }

    /// A route whose response carries extra headers, e.g. `("Content-Security-Policy", "…")`.
    pub fn route_with_headers(
        &self,
        path: &str,
        content_type: &str,
        headers: &[(&str, &str)],
        body: impl Into<Vec<u8>>,
    ) {
        let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
        self.routes.lock().unwrap().insert(path.to_owned(), (content_type.to_owned(), extra, body.into()));
    }

    /// Serves the files under `dir` at `prefix` (e.g. `/doc/` → `dir/…`), types by extension.
    pub fn serve_dir(&self, prefix: &str, dir: &Path) {
        self.dirs.lock().unwrap().push((prefix.to_owned(), dir.to_owned()));
    }

    /// Answers `path` with `302 Found` and `Location: <to>`.
    pub fn redirect(&self, path: &str, to: &str) {
        self.route_with_headers(path, "text/plain", &[("Location", to)], "moved");
        self.quirk(path, Quirk { status: Some("302 Found"), ..Quirk::default() });
    }

    /// Makes the response of `path` misbehave as `quirk` says.
    pub fn quirk(&self, path: &str, quirk: Quirk) {
        self.quirks.lock().unwrap().insert(path.to_owned(), quirk);
    }

    pub fn page(&self, path: &str, html: &str) {
        self.route(path, "text/html; charset=utf-8", html);
    }

    /// Every path requested so far (with query), in arrival order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// Waits until `path` (query ignored) has been requested.
    pub async fn wait_for_request(&self, path: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.requests().iter().any(|p| p.split('?').next() == Some(path)) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "css" => "text/css",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

fn from_dirs(dirs: &Dirs, path: &str) -> Option<(String, String, Vec<u8>)> {
    let dirs = dirs.lock().unwrap().clone();
    for (prefix, dir) in dirs {
        let Some(rel) = path.strip_prefix(&prefix) else { continue };
        if rel.split('/').any(|c| c == "..") {
            return None;
        }
        let file = dir.join(rel);
        if let Ok(body) = std::fs::read(&file) {
            return Some((content_type(&file).to_owned(), String::new(), body));
        }
    }
    None
}

fn serve(mut conn: TcpStream, routes: &Routes, dirs: &Dirs, quirks: &Quirks, requests: &Mutex<Vec<String>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(clone) = conn.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    requests.lock().unwrap().push(path.clone());
    let bare = path.split(['?', '#']).next().unwrap_or("");
    let route = routes.lock().unwrap().get(bare).cloned().or_else(|| from_dirs(dirs, bare));
    let (status, ctype, extra, body) = match route {
        Some((ctype, extra, body)) => ("200 OK", ctype, extra, body),
        None => ("404 Not Found", "text/plain".to_owned(), String::new(), b"not found".to_vec()),
    };
    let quirk = quirks.lock().unwrap().get(bare).copied().unwrap_or_default();
    let status = quirk.status.unwrap_or(status);
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n{extra}\
         Access-Control-Allow-Origin: *\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        quirk.declared_len.unwrap_or(body.len())
    );
    let _ = conn.write_all(head.as_bytes());
    std::thread::sleep(quirk.pause);
    let _ = conn.write_all(&body);
}
