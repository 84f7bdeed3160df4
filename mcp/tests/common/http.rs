//! A tiny HTTP/1.1 server on 127.0.0.1 for test pages. It serves the routes it was given,
//! answers 404 otherwise, records every requested path, and stops when dropped.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

type Routes = Arc<Mutex<HashMap<String, (String, Vec<u8>)>>>;

pub struct TestServer {
    addr: SocketAddr,
    routes: Routes,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    pub fn start() -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local addr");
        let routes: Routes = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (routes, requests, stop) = (routes.clone(), requests.clone(), stop.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (routes, requests) = (routes.clone(), requests.clone());
                    std::thread::spawn(move || serve(conn, &routes, &requests));
                }
            })
        };
        TestServer { addr, routes, requests, stop, thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn route(&self, path: &str, content_type: &str, body: impl Into<Vec<u8>>) {
        self.routes.lock().unwrap().insert(path.to_owned(), (content_type.to_owned(), body.into()));
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

fn serve(mut conn: TcpStream, routes: &Routes, requests: &Mutex<Vec<String>>) {
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
    let route = routes.lock().unwrap().get(path.split('?').next().unwrap_or("")).cloned();
    let (status, ctype, body) = match route {
        Some((ctype, body)) => ("200 OK", ctype, body),
        None => ("404 Not Found", "text/plain".to_owned(), b"not found".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(&body);
}
