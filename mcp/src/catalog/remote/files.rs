//! A remote template's files: the archive that holds them, downloaded once, verified and
//! unpacked into the cache.
//!
//! ```text
//! template ─▶ archive: its own (catalog `archive` with sha256)
//!                   or the repository's at a commit (codeload.github.com/<repo>/zip/<commit>;
//!                      commit = config pin > the catalog's commit id > branch resolved
//!                      through api.github.com > the branch itself, unpinned)
//!   tree in cache? ─▶ read from it (no network)
//!   else download aside ─▶ sha256 ─▶ catalog hash | recorded hash (pins.json) | record it
//!        ─▶ unpack (no absolute paths, `..`, links, devices; size caps) into a staging
//!           folder ─▶ rename into trees/<key>/
//! ```
//!
//! A mismatch or a refused entry is `INTEGRITY` and leaves nothing behind; a project is only
//! written after its template's files are all here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use webext_mcp_host::digest::sha256_hex;

use super::RemoteSource;
use super::cache::{store, unix};
use crate::browsers::managed::unpack::{self, Limits};
use crate::catalog::{CatalogError, Provenance, Template};

/// The most files a template may have: an archive with more is refused whole, and a tree
/// already in the cache is read up to this many.
pub const MAX_TEMPLATE_FILES: usize = 5000;

/// What a template archive may hold: templates are source files and a few images.
pub const TEMPLATE_LIMITS: Limits = Limits {
    max_total: 256 * 1024 * 1024,
    max_entry: 16 * 1024 * 1024,
    links: false,
    max_files: MAX_TEMPLATE_FILES,
};
/// The most one template file may be read into memory.
const MAX_FILE: u64 = 16 * 1024 * 1024;
/// The record written into each unpacked tree.
const RECORD: &str = ".webext-mcp-provenance.json";

/// Where a template's files are: an archive URL and the folder inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub url: String,
    pub folder: String,
    pub commit: Option<String>,
    pub pinned: bool,
    /// The catalog's own hash of the archive.
    pub sha256: Option<String>,
}

/// A hash recorded the first time an archive was fetched.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pin {
    sha256: String,
    bytes: u64,
    first_seen: u64,
}

/// The branch → commit lookup made for one catalog document.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Resolved {
    catalog_sha256: String,
    branch: String,
    commit: Option<String>,
}

pub fn is_commit_id(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `owner/name` of a GitHub repository, or `None` when the text is not one.
fn repo_name(repo: &str) -> Option<&str> {
    let (owner, name) = repo.split_once('/')?;
    let ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    (ok(owner) && ok(name)).then_some(repo)
}

/// The folder of the template in its repository: from `repositoryUrl`
/// (`…/tree/<branch>/examples/<slug>`), else `examples/<slug>`.
fn repo_folder(t: &Template) -> String {
    t.repository_url
        .split_once("/tree/")
        .and_then(|(_, rest)| rest.split_once('/'))
        .map(|(_, path)| path.trim_matches('/').to_owned())
        .filter(|p| unpack::safe_relative(p).is_ok())
        .unwrap_or_else(|| format!("examples/{}", t.slug))
}

/// Where `t`'s files come from. May ask the network which commit a branch is at (once per
/// catalog document).
pub fn origin(src: &RemoteSource, t: &Template) -> Result<Origin, CatalogError> {
    if let Some(a) = t.archive.as_ref().filter(|a| !a.url.is_empty()) {
        return Ok(Origin {
            url: a.url.clone(),
            folder: String::new(),
            commit: None,
            // The URL names the archive: trust on first use applies to it.
            pinned: true,
            sha256: a.sha256.as_ref().map(|h| h.to_ascii_lowercase()),
        });
    }
    let Some(repo) = src.header.repo.as_deref().and_then(repo_name) else {
        return Err(CatalogError::FilesUnavailable { source_name: src.name.clone(), slug: t.slug.clone() });
    };
    let branch = src.header.commit.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| "main".into());
    let (commit, pinned) = match (&src.pin, is_commit_id(&branch)) {
        (Some(pin), _) => (pin.clone(), is_commit_id(pin)),
        (None, true) => (branch.clone(), true),
        (None, false) => match resolve(src, repo, &branch) {
            Some(sha) => (sha, true),
            None => (branch.clone(), false),
        },
    };
    Ok(Origin {
        url: format!("https://codeload.github.com/{repo}/zip/{commit}"),
        folder: repo_folder(t),
        commit: Some(commit),
        pinned,
        sha256: None,
    })
}

/// The commit `branch` is at, asked once per catalog document and remembered.
fn resolve(src: &RemoteSource, repo: &str, branch: &str) -> Option<String> {
    let path = src.dir.join("resolved.json");
    if let Ok(bytes) = std::fs::read(&path)
        && let Ok(r) = serde_json::from_slice::<Resolved>(&bytes)
        && r.catalog_sha256 == src.catalog_sha256
        && r.branch == branch
    {
        return r.commit;
    }
    let url = format!("https://api.github.com/repos/{repo}/commits/{branch}");
    let commit = src
        .fetch
        .document(&url)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("sha").and_then(|s| s.as_str()).map(str::to_owned))
        .filter(|s| is_commit_id(s));
    // A failed lookup is not remembered: the next create tries again.
    if commit.is_some() {
        let r = Resolved {
            catalog_sha256: src.catalog_sha256.clone(),
            branch: branch.to_owned(),
            commit: commit.clone(),
        };
        let _ = store(&path, &serde_json::to_vec(&r).unwrap_or_default());
    }
    commit
}

/// The tree folder of an origin. An unpinned archive (a branch) gets a new tree with each
/// catalog document, so a moved branch is fetched again.
pub fn tree_of(src: &RemoteSource, o: &Origin) -> PathBuf {
    let key = if o.pinned { o.url.clone() } else { format!("{}#{}", o.url, src.catalog_sha256) };
    src.dir.join("trees").join(&sha256_hex(key.as_bytes())[..16])
}

/// Makes `t`'s files present in the cache; says where they came from and returns the
/// template's folder.
pub fn prepare(
    src: &RemoteSource,
    t: &Template,
    progress: &mut dyn FnMut(String),
) -> Result<(Provenance, PathBuf), CatalogError> {
    let o = origin(src, t)?;
    let tree = tree_of(src, &o);
    if let Ok(bytes) = std::fs::read(tree.join(RECORD))
        && let Ok(p) = serde_json::from_slice::<Provenance>(&bytes)
    {
        return Ok((p, tree.join(&o.folder)));
    }
    let io =
        |what: &str, e| CatalogError::Io { context: format!("{what} in {}", src.dir.display()), source: e };
    let trees = src.dir.join("trees");
    std::fs::create_dir_all(&trees).map_err(|e| io("cannot create the template cache", e))?;
    let archive = tempfile::Builder::new()
        .prefix(".download-")
        .tempfile_in(&trees)
        .map_err(|e| io("cannot write", e))?;
    let archive_path = archive.path().to_path_buf();
    // `download` creates the file itself (create_new): hand it a free name.
    drop(archive);
    let _cleanup = Remove(archive_path.clone());
    progress(format!("downloading {}", o.url));
    let bytes = src.fetch.download(&o.url, &archive_path, &mut |done, total| {
        progress(match total {
            Some(t) => format!("downloading {}: {} of {} KB", o.url, done / 1024, t / 1024),
            None => format!("downloading {}: {} KB", o.url, done / 1024),
        })
    })?;
    let sha256 = sha256_of_file(&archive_path).map_err(|e| io("cannot read the download", e))?;
    let mut pins = read_pins(&src.dir);
    let trust = match (&o.sha256, pins.get(&o.url)) {
        (Some(want), _) if *want != sha256 => {
            return Err(CatalogError::Integrity {
                what: format!("{} has sha256 {sha256}, but the catalog says {want}", o.url),
            });
        }
        (Some(_), _) => "catalog",
        (None, Some(pin)) if pin.sha256 != sha256 => {
            return Err(CatalogError::Integrity {
                what: format!(
                    "{} has sha256 {sha256}, but it was {} when first fetched; the same commit must not change",
                    o.url, pin.sha256
                ),
            });
        }
        (None, Some(_)) => "recorded",
        (None, None) if o.pinned => "first-use",
        (None, None) => "unpinned",
    };
    let staging =
        tempfile::Builder::new().prefix(".unpack-").tempdir_in(&trees).map_err(|e| io("cannot unpack", e))?;
    progress(format!("unpacking {} KB", bytes / 1024));
    unpack::zip_with(&archive_path, staging.path(), TEMPLATE_LIMITS).map_err(super::fetch::from_managed)?;
    let root = single_folder(staging.path()).unwrap_or_else(|| staging.path().to_path_buf());
    let folder = root.join(&o.folder);
    if !folder.is_dir() {
        return Err(CatalogError::Integrity { what: format!("{} has no folder {}", o.url, o.folder) });
    }
    let provenance = Provenance {
        source: src.name.clone(),
        archive_url: o.url.clone(),
        commit: o.commit.clone(),
        pinned: o.pinned,
        sha256: sha256.clone(),
        bytes,
        trust: trust.to_owned(),
    };
    let record = serde_json::to_vec_pretty(&provenance).unwrap_or_default();
    std::fs::write(root.join(RECORD), record).map_err(|e| io("cannot write", e))?;
    match std::fs::rename(&root, &tree) {
        Ok(()) => {}
        // Another process unpacked the same archive first: its tree is as good.
        Err(_) if tree.join(RECORD).is_file() => {}
        Err(e) => return Err(io("cannot move the unpacked template into place", e)),
    }
    if trust == "first-use" {
        pins.insert(o.url.clone(), Pin { sha256, bytes, first_seen: unix(std::time::SystemTime::now()) });
        let _ = store(&src.dir.join("pins.json"), &serde_json::to_vec_pretty(&pins).unwrap_or_default());
    }
    Ok((provenance, tree.join(&o.folder)))
}

/// sha256 of a file, read in pieces (an archive is never held in memory whole).
fn sha256_of_file(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Removes a file when dropped (the downloaded archive, kept only while it is checked).
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn read_pins(dir: &Path) -> BTreeMap<String, Pin> {
    std::fs::read(dir.join("pins.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The one folder a folder holds, when it holds nothing else (GitHub archives wrap
/// everything in `<repo>-<commit>/`).
fn single_folder(dir: &Path) -> Option<PathBuf> {
    let mut entries = std::fs::read_dir(dir).ok()?;
    let first = entries.next()?.ok()?;
    if entries.next().is_some() || !first.file_type().ok()?.is_dir() {
        return None;
    }
    Some(first.path())
}

/// Reads `rel` under `root` without following a symlink anywhere on the way; `Ok(None)`
/// when it is not there.
pub fn read_file(root: &Path, rel: &str) -> Result<Option<Vec<u8>>, CatalogError> {
    let bad = |why: &str| CatalogError::Integrity { what: format!("template file `{rel}`: {why}") };
    let rel_path = unpack::safe_relative(rel).map_err(|_| bad("the path leaves the template folder"))?;
    let mut at = root.to_path_buf();
    for part in rel_path.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(bad("the path goes through a symlink")),
            Ok(_) => {}
            Err(_) => return Ok(None),
        }
    }
    if !at.is_file() {
        return Ok(None);
    }
    crate::manifest::read_capped(&at, MAX_FILE)
        .map_err(|e| CatalogError::Io { context: format!("cannot read {rel}"), source: e })?
        .map(Some)
        .ok_or_else(|| bad("the file is larger than 16 MiB"))
}

/// Where `t`'s files are: beside a local catalog (`public/<slug>/` or `examples/<slug>/`),
/// or in the tree [`prepare`] made in this process (reading never touches the network).
pub fn files_root(src: &RemoteSource, t: &Template) -> Option<PathBuf> {
    if let Some(local) = &src.local_root {
        return [local.join("public").join(&t.slug), local.join("examples").join(&t.slug)]
            .into_iter()
            .find(|p| p.is_dir());
    }
    src.prepared.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&t.slug).cloned()
}

/// [`prepare`], remembering the folder for [`files_root`].
pub fn prepare_and_remember(
    src: &RemoteSource,
    t: &Template,
    progress: &mut dyn FnMut(String),
) -> Result<Provenance, CatalogError> {
    let (p, folder) = prepare(src, t, progress)?;
    src.prepared.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(t.slug.clone(), folder);
    Ok(p)
}

/// Folders never copied out of a template: installed packages, VCS data, build output.
const SKIPPED: [&str; 4] = ["node_modules", ".git", "dist", ".extension-js"];

/// Every regular file under `root` (template-relative, `/`-separated, sorted), skipping
/// symlinks, [`SKIPPED`] folders and our record; at most [`MAX_TEMPLATE_FILES`] (an archive
/// with more was refused when it was unpacked).
pub fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            match e.file_type() {
                Ok(t) if t.is_dir() && !SKIPPED.contains(&name.as_str()) => stack.push((e.path(), rel)),
                Ok(t) if t.is_file() && name != RECORD => out.push(rel),
                _ => {}
            }
            if out.len() >= MAX_TEMPLATE_FILES {
                break;
            }
        }
    }
    out.sort();
    out
}
