//! The local test page: a small HTTP server on 127.0.0.1 (a port the system picks) that
//! serves the default page with its own stylesheet, or the caller's page and the files
//! beside it. It lives as long as its [`TestPage`].

use std::path::{Component, Path, PathBuf};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The default test page: plain elements with a stylesheet of its own, so that CSS an
/// extension leaks into the page shows in their computed styles.
pub const DEFAULT_PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>webext-mcp behaviour page</title>
<link rel="stylesheet" href="/page.css">
</head>
<body>
<main>
<h1>Behaviour check</h1>
<p>A paragraph of the host page, with <a href="#here">a link</a>.</p>
<button type="button">A button</button>
<div class="card"><p>A card of the host page.</p></div>
<ul><li>One</li><li>Two</li></ul>
</main>
</body>
</html>
"##;

/// The default page's own stylesheet.
pub const DEFAULT_CSS: &str = "body { margin: 16px; font-family: Georgia, serif; font-size: 17px; \
color: rgb(20, 20, 20); background-color: rgb(250, 250, 245); line-height: 1.4; }\n\
h1 { color: rgb(10, 60, 120); font-size: 28px; margin: 0 0 12px; }\n\
p { margin: 8px 0; }\n\
a { color: rgb(0, 90, 0); }\n\
button { font-size: 15px; padding: 4px 10px; }\n\
.card { border: 2px solid rgb(200, 200, 200); padding: 8px; }\n\
ul { padding-left: 24px; }\n";

/// Elements of the host page whose computed style is compared before and after.
pub const HOST_SELECTORS: &[&str] =
    &["html", "body", "main", "h1", "p", "a", "button", ".card", "ul", "li", "div", "span"];
/// Properties compared on them.
pub const HOST_PROPERTIES: &[&str] = &[
    "display",
    "position",
    "color",
    "background-color",
    "font-family",
    "font-size",
    "font-weight",
    "line-height",
    "margin-top",
    "margin-left",
    "padding-top",
    "border-top-width",
    "visibility",
    "opacity",
];

/// A test page being served.
pub struct TestPage {
    /// `http://127.0.0.1:<port>/`.
    pub url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestPage {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the server answers from.
enum Source {
    Default,
    /// The caller's page (served at `/`) and the folder whose files it may load.
    File {
        page: PathBuf,
        dir: PathBuf,
    },
}

/// Serves the default page, or `page` (an HTML file) and the files beside it.
pub async fn serve(page: Option<&Path>) -> std::io::Result<TestPage> {
    let source = match page {
        None => Source::Default,
        Some(p) => {
            let page = std::fs::canonicalize(p)?;
            if !page.is_file() {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file"));
            }
            let dir = page.parent().map(Path::to_path_buf).unwrap_or_default();
            Source::File { page, dir }
        }
    };
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let url = format!("http://127.0.0.1:{}/", listener.local_addr()?.port());
    let source = std::sync::Arc::new(source);
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let source = source.clone();
            tokio::spawn(async move {
                let _ = answer(stream, &source).await;
            });
        }
    });
    Ok(TestPage { url, task })
}

/// Bytes of a request head read at most.
const HEAD_MAX: usize = 8192;
/// Bytes of a file served at most.
const FILE_MAX: u64 = 16 * 1024 * 1024;

async fn answer(mut stream: tokio::net::TcpStream, source: &Source) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < HEAD_MAX {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read(&mut buf))
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head);
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let (status, kind, body) = match lookup(source, path) {
        Some((kind, body)) => ("200 OK", kind, body),
        None => ("404 Not Found", "text/plain", b"not found".to_vec()),
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    stream.write_all(&body).await?;
    stream.shutdown().await
}

/// The content type and bytes for a request path, or `None` (404).
fn lookup(source: &Source, path: &str) -> Option<(&'static str, Vec<u8>)> {
    match source {
        Source::Default => match path {
            "/" | "/index.html" => Some(("text/html; charset=utf-8", DEFAULT_PAGE.as_bytes().to_vec())),
            "/page.css" => Some(("text/css", DEFAULT_CSS.as_bytes().to_vec())),
            _ => None,
        },
        Source::File { page, dir } => {
            let file = if path == "/" { page.clone() } else { inside(dir, path)? };
            let meta = std::fs::metadata(&file).ok()?;
            if !meta.is_file() || meta.len() > FILE_MAX {
                return None;
            }
            Some((content_type(&file), std::fs::read(&file).ok()?))
        }
    }
}

/// `path` under `dir`, refusing `..`, and any symlink that leads out of `dir`.
fn inside(dir: &Path, path: &str) -> Option<PathBuf> {
    let rel = Path::new(path.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let real = std::fs::canonicalize(dir.join(rel)).ok()?;
    real.starts_with(dir).then_some(real)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_outside_the_page_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.css"), "x").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("link")).unwrap();
        assert_eq!(inside(&root, "/a.css"), Some(root.join("a.css")));
        assert_eq!(inside(&root, "/../secret"), None);
        assert_eq!(inside(&root, "/link"), None);
        assert_eq!(inside(&root, "//etc/passwd"), None);
    }

    #[tokio::test]
    async fn the_default_page_and_its_stylesheet_are_served() {
        let page = serve(None).await.unwrap();
        assert!(page.url.starts_with("http://127.0.0.1:"));
        let src = Source::Default;
        assert!(lookup(&src, "/").is_some());
        assert_eq!(lookup(&src, "/page.css").unwrap().0, "text/css");
        assert!(lookup(&src, "/nope").is_none());
    }
}
