//! The upload rule: which files `upload_file_by_uid` / `upload_file` may send to a page.
//!
//! A page can ask the agent, in plain words, to "attach your SSH key"; the agent may comply.
//! So the server decides, not the agent: a file goes to a page only when
//!
//! 1. it is named by an absolute path (a relative one would resolve against the server's
//!    working directory, which MCP clients often leave at the user's home);
//! 2. its real path (symlinks resolved) lies under an allowed root: the folders of config
//!    `upload.roots`, the projects of running dev sessions, and the dedicated uploads folder
//!    (`<data dir>/uploads`, created on first use) — never the working directory alone. The
//!    user fixes the roots; the tools cannot widen them: a session's project counts only when
//!    it is neither the home folder nor holds a secret location (`extension_preview
//!    {projectPath: "~"}` would otherwise have made the whole home a root);
//! 3. no part of its path below that root starts with `.` (dotfiles, `.env*`, `.git/`);
//! 4. its real path is not inside a secret location, whatever the roots say: `~/.ssh`,
//!    `~/.gnupg`, cloud and cluster credentials, keyrings and keychains, password stores,
//!    every browser profile (the catalog's browsers, the running sessions' profiles, any
//!    `extension-js/profiles/` folder, webext-mcp's own profiles), and webext-mcp's own
//!    runtime and config folders;
//! 5. it is a regular file of at most `upload.maxMegabytes` (default 50), with one link: a
//!    hard link made inside a root to a file outside it (`~/.ssh/id_rsa`) cannot be told
//!    from the original, so a file with more than one link is refused with the hint to copy
//!    it (files a package manager links in from its store, as pnpm does, are refused too).
//!
//! Refusals are `PERMISSION_DENIED` (2–4), `NOT_FOUND`, `INVALID_ARGUMENT` or
//! `PAYLOAD_TOO_LARGE`, with what to do instead.

use std::path::{Component, Path, PathBuf};

use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

/// Default size cap of one upload (all its files together).
pub const DEFAULT_MAX_MEGABYTES: u64 = 50;

/// Locations under the home folder that hold secrets or browser profiles.
const SECRET_UNDER_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".password-store",
    ".config/gcloud",
    ".config/gh",
    ".local/share/keyrings",
    ".mozilla",
    ".zen",
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".var/app",
    "snap",
    "Library/Keychains",
    "Library/Application Support/Google",
    "Library/Application Support/Firefox",
    "Library/Application Support/BraveSoftware",
    "Library/Application Support/Microsoft Edge",
    "AppData",
];

/// System locations that are never uploaded.
const SECRET_SYSTEM: &[&str] = &["/etc", "/proc", "/sys", "/dev", "/root/.ssh", "/var/lib"];

/// The folder names that hold dev-session profiles under a project's output folder
/// (`dist/extension-js/profiles/<browser>/`): secret wherever they are, running or not.
const PROFILES_UNDER_OUTPUT: [&str; 2] = ["extension-js", "profiles"];

/// A running dev session, as its ticket names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub project: PathBuf,
    /// The browser profile it runs in (a secret location).
    pub profile: Option<PathBuf>,
}

/// A file the rule admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// The real path (symlinks resolved).
    pub path: PathBuf,
    /// The name the page sees.
    pub name: String,
    pub mime: &'static str,
    pub size: u64,
}

/// The rule for one call: its roots (real paths), the secret locations and the cap.
#[derive(Debug, Clone)]
pub struct Rule {
    roots: Vec<PathBuf>,
    secrets: Vec<PathBuf>,
    /// The home folder's real path: never a root by a session.
    home: PathBuf,
    /// Session projects left out, with why (for the refusal's data).
    skipped: Vec<(PathBuf, String)>,
    pub max_bytes: u64,
    /// The dedicated uploads folder, for hints.
    pub uploads_dir: PathBuf,
}

impl Rule {
    /// `roots`: the folders the user configured (missing ones are skipped); `private`:
    /// webext-mcp's own folders that hold tokens, settings and profiles, and the browsers'
    /// own profile folders. Running sessions are added by [`Rule::with_sessions`].
    pub fn new(
        roots: &[PathBuf],
        uploads_dir: &Path,
        home: &Path,
        private: &[PathBuf],
        max_bytes: u64,
    ) -> Rule {
        let mut secrets: Vec<PathBuf> = SECRET_UNDER_HOME.iter().map(|s| home.join(s)).collect();
        secrets.extend(SECRET_SYSTEM.iter().map(PathBuf::from));
        secrets.extend(private.iter().cloned());
        let secrets = secrets.into_iter().map(|p| p.canonicalize().unwrap_or(p)).collect();
        let mut all: Vec<PathBuf> = roots.iter().filter_map(|r| r.canonicalize().ok()).collect();
        if std::fs::create_dir_all(uploads_dir).is_ok()
            && let Ok(real) = uploads_dir.canonicalize()
        {
            all.push(real);
        }
        all.sort();
        all.dedup();
        let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
        Rule {
            roots: all,
            secrets,
            home,
            skipped: Vec::new(),
            max_bytes,
            uploads_dir: uploads_dir.to_path_buf(),
        }
    }

    /// Adds the running dev sessions: each profile becomes a secret location, and each
    /// project a root unless it is the home folder or holds a secret location (judged
    /// against the fixed secrets, not its own profile, which sits inside it by default).
    pub fn with_sessions(mut self, sessions: &[Session]) -> Rule {
        let fixed = self.secrets.clone();
        for profile in sessions.iter().filter_map(|s| s.profile.as_ref()) {
            let real = profile.canonicalize().unwrap_or_else(|_| lexical(profile));
            if !self.secrets.contains(&real) {
                self.secrets.push(real);
            }
        }
        for s in sessions {
            let Ok(project) = s.project.canonicalize() else { continue };
            if let Some(why) = session_root_refusal(&project, &self.home, &fixed) {
                self.skipped.push((project, why));
                continue;
            }
            if !self.roots.contains(&project) {
                self.roots.push(project);
            }
        }
        self.roots.sort();
        self
    }

    /// The allowed roots, as the error messages list them.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The secret location `path` is in (by name, `..` resolved), if any: for callers that
    /// judge a path before or without resolving it (screenshots' `savePath`).
    pub fn secret_containing(&self, path: &Path) -> Option<PathBuf> {
        let lexical = lexical(path);
        self.secret_of(&lexical).map(Path::to_path_buf)
    }

    /// The secret location `path` lies in: a listed one, or the `extension-js/profiles`
    /// folder it is under (returned as that folder).
    fn secret_of<'a>(&'a self, path: &'a Path) -> Option<&'a Path> {
        if let Some(s) = self.secrets.iter().find(|s| path.starts_with(s)) {
            return Some(s.as_path());
        }
        path.ancestors().find(|a| {
            let mut up = a.components().rev();
            let (last, before) = (up.next(), up.next());
            matches!((before, last), (Some(Component::Normal(b)), Some(Component::Normal(l)))
                if b == PROFILES_UNDER_OUTPUT[0] && l == PROFILES_UNDER_OUTPUT[1])
        })
    }

    /// The innermost allowed root `path` is under (by name), if any.
    pub fn root_of(&self, path: &Path) -> Option<&Path> {
        let lexical = lexical(path);
        self.roots
            .iter()
            .filter(|r| lexical.starts_with(r))
            .max_by_key(|r| r.as_os_str().len())
            .map(PathBuf::as_path)
    }

    /// Checks one path the agent passed.
    pub fn check(&self, asked: &str) -> Result<Admitted, ErrorBody> {
        let path = Path::new(asked);
        if !path.is_absolute() {
            return Err(ErrorBody::invalid_argument(format!("`{asked}` is not an absolute path"))
                .with_hint("pass the file's absolute path, under an allowed upload root"));
        }
        let real = match path.canonicalize() {
            Ok(real) => real,
            // Whether a file exists outside the roots is not the page's business: judged by
            // its path alone first.
            Err(e) => {
                let lexical = lexical(path);
                if self.secret_of(&lexical).is_some() || !self.roots.iter().any(|r| lexical.starts_with(r)) {
                    return Err(self.outside(asked));
                }
                return Err(
                    ErrorBody::not_found(format!("cannot open `{asked}`: {e}")).with_hint("check the path")
                );
            }
        };
        if let Some(secret) = self.secret_of(&real) {
            return Err(ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!(
                    "`{asked}` is inside {}, a location that holds secrets or browser data: never uploaded",
                    secret.display()
                ),
            )
            .with_hint("upload a copy of a file meant for this page, from the uploads folder"));
        }
        let Some(root) =
            self.roots.iter().filter(|r| real.starts_with(r)).max_by_key(|r| r.as_os_str().len())
        else {
            return Err(self.outside(asked));
        };
        let below = real.strip_prefix(root).unwrap_or(&real);
        if below
            .components()
            .any(|c| matches!(c, Component::Normal(n) if n.to_string_lossy().starts_with('.')))
        {
            return Err(ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!("`{asked}` is a dotfile or inside a dot folder (`.env`, `.git`, …): never uploaded"),
            )
            .with_hint("rename a copy without the leading dot if the page really needs it"));
        }
        let meta = std::fs::metadata(&real)
            .map_err(|e| ErrorBody::not_found(format!("cannot read `{asked}`: {e}")))?;
        if !meta.is_file() {
            return Err(ErrorBody::invalid_argument(format!("`{asked}` is not a regular file"))
                .with_hint("pass files, not folders or devices"));
        }
        if links(&meta) > 1 {
            return Err(ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!(
                    "`{asked}` has {} hard links: a linked file cannot be told from its original elsewhere, so it is never uploaded",
                    links(&meta)
                ),
            )
            .with_hint(format!(
                "copy it (`cp {asked} {}/`) and upload the copy",
                self.uploads_dir.display()
            )));
        }
        if meta.len() > self.max_bytes {
            return Err(too_large(asked, meta.len(), self.max_bytes));
        }
        let name = real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mime = mime_of(&name);
        Ok(Admitted { path: real, name, mime, size: meta.len() })
    }

    fn outside(&self, asked: &str) -> ErrorBody {
        let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        ErrorBody::new(ErrorCode::PermissionDenied, format!("`{asked}` is outside the allowed upload roots"))
            .with_hint(format!(
                "copy the file into {} (or a running dev session's project), or add its folder to `upload.roots` in the config file",
                self.uploads_dir.display()
            ))
            .with_data(serde_json::json!({ "roots": roots, "notRoots": self.skipped_data() }))
    }

    fn skipped_data(&self) -> Vec<serde_json::Value> {
        self.skipped
            .iter()
            .map(|(p, why)| serde_json::json!({ "project": p.display().to_string(), "why": why }))
            .collect()
    }
}

/// Why a running session's `project` (a real path) is not an upload root, if it is not.
fn session_root_refusal(project: &Path, home: &Path, secrets: &[PathBuf]) -> Option<String> {
    if project == home {
        return Some("it is the home folder".into());
    }
    if home.starts_with(project) {
        return Some("it holds the home folder".into());
    }
    secrets
        .iter()
        .find(|s| s.starts_with(project))
        .map(|s| format!("it holds {}, a location that holds secrets or browser data", s.display()))
}

/// How many names the file has (`st_nlink`); 1 where the platform does not say.
#[cfg(unix)]
fn links(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn links(_meta: &std::fs::Metadata) -> u64 {
    1
}

/// `path` with `.` and `..` resolved by name (for a path that does not exist).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `PAYLOAD_TOO_LARGE` for `bytes` over `cap`.
pub fn too_large(what: &str, bytes: u64, cap: u64) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::PayloadTooLarge,
        format!("`{what}` is {bytes} bytes; uploads are capped at {cap} bytes"),
    )
    .with_hint("raise `upload.maxMegabytes` in the config file, or upload a smaller file")
}

/// The MIME type a browser would give a file of this name (its extension), else
/// `application/octet-stream`.
pub fn mime_of(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "bmp" => "image/bmp",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests;
