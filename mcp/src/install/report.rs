//! What `install` and `uninstall` tell the user: the reports they return (JSON for MCP) and
//! their human form (the CLI).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Location, Os};

/// What install writes for one browser.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserEntry {
    pub id: &'static str,
    pub name: &'static str,
    pub family: &'static str,
    /// Its config dir exists.
    pub detected: bool,
    #[serde(flatten)]
    pub location: Location,
    /// The unpacked helper (or, for Gecko, the xpi) the user loads.
    pub helper: PathBuf,
    /// What the user must do next, in order.
    pub next_steps: Vec<String>,
}

/// A known browser install did not write for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub id: &'static str,
    pub name: &'static str,
    pub reason: String,
}

/// One file install writes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileWrite {
    pub path: PathBuf,
    /// `manifest`, `helper`, `xpi` or `record`.
    pub kind: &'static str,
    /// `create`, `replace` or `unchanged`.
    pub action: &'static str,
    #[serde(skip)]
    pub(super) bytes: Vec<u8>,
    #[serde(skip)]
    pub(super) existing: Option<Vec<u8>>,
}

/// The outcome of `install` (or what it would do, with `dry_run`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallReport {
    pub dry_run: bool,
    pub os: Os,
    pub binary: PathBuf,
    pub browsers: Vec<BrowserEntry>,
    pub skipped: Vec<Skipped>,
    pub writes: Vec<FileWrite>,
    pub registry: Vec<RegistryWrite>,
    /// Where the list of written files is kept (absent when nothing was installed).
    pub record: Option<PathBuf>,
}

/// A Windows registry value install sets.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RegistryWrite {
    pub key: String,
    pub value: String,
    /// The default value the key had before, restored by `uninstall`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// The outcome of `uninstall`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UninstallReport {
    pub dry_run: bool,
    pub record: PathBuf,
    /// False when no record exists: nothing was installed for this home.
    pub installed: bool,
    pub removed: Vec<PathBuf>,
    pub restored: Vec<PathBuf>,
    /// Files changed since install, left in place.
    pub kept: Vec<Value>,
    pub removed_dirs: Vec<PathBuf>,
    /// Directories install created that stay because they hold something else
    /// (`{path, reason}`); a dry run predicts the same list the real run gives.
    pub kept_dirs: Vec<Value>,
    pub registry: Vec<String>,
    #[serde(skip)]
    pub(super) helper_dir: PathBuf,
}

/// The human form of an install report.
pub fn install_text(r: &InstallReport) -> String {
    let mut out = String::new();
    if r.browsers.is_empty() {
        out.push_str("no browser detected, nothing installed. Looked for:\n");
        for s in &r.skipped {
            out.push_str(&format!("  {:<28} {}\n", s.name, s.reason));
        }
        out.push_str("pass --browser NAME (e.g. --browser chromium) to install for a browser anyway\n");
        return out;
    }
    let verb = if r.dry_run { "would write" } else { "wrote" };
    for w in &r.writes {
        if w.kind == "helper" {
            continue;
        }
        let note = if w.action == "unchanged" { " (unchanged)" } else { "" };
        out.push_str(&format!("{verb} {} {}{note}\n", w.kind, w.path.display()));
    }
    let helper_files = r.writes.iter().filter(|w| w.kind == "helper").count();
    if helper_files > 0 {
        out.push_str(&format!("{verb} the helper extension ({helper_files} files) under its data dir\n"));
    }
    for k in &r.registry {
        out.push_str(&format!("{verb} HKCU\\{} = {}\n", k.key, k.value));
    }
    for b in &r.browsers {
        let how = if b.detected { "" } else { " (forced)" };
        out.push_str(&format!("\n{}{how}: host manifest {}\n", b.name, b.location.manifest.display()));
        for (i, step) in b.next_steps.iter().enumerate() {
            out.push_str(&format!("  {}. {step}\n", i + 1));
        }
    }
    if r.dry_run {
        out.push_str("\ndry run: nothing was written\n");
    }
    out
}

/// The human form of an uninstall report.
pub fn uninstall_text(r: &UninstallReport) -> String {
    if !r.installed {
        return format!("nothing to uninstall: no install record at {}\n", r.record.display());
    }
    let verb = if r.dry_run { "would remove" } else { "removed" };
    let mut out = String::new();
    let in_helper = |p: &&PathBuf| p.starts_with(&r.helper_dir);
    let helper_files = r.removed.iter().filter(in_helper).count();
    for p in r.removed.iter().filter(|p| !in_helper(p)) {
        out.push_str(&format!("{verb} {}\n", p.display()));
    }
    if helper_files > 0 {
        out.push_str(&format!(
            "{verb} the helper extension and its xpi ({helper_files} files) from {}\n",
            r.helper_dir.display()
        ));
    }
    for p in &r.restored {
        out.push_str(&format!(
            "{} {} (the file that was there before install)\n",
            if r.dry_run { "would restore" } else { "restored" },
            p.display()
        ));
    }
    for k in &r.kept {
        out.push_str(&format!(
            "kept {} ({})\n",
            k["path"].as_str().unwrap_or(""),
            k["reason"].as_str().unwrap_or("")
        ));
    }
    for k in &r.registry {
        out.push_str(&format!("{verb} HKCU\\{k}\n"));
    }
    let dirs = crate::text::counted(r.removed_dirs.len(), "directory", "directories");
    out.push_str(&format!("{verb} {dirs} install had created\n"));
    for k in &r.kept_dirs {
        out.push_str(&format!(
            "{} {} ({})\n",
            if r.dry_run { "would keep" } else { "kept" },
            k["path"].as_str().unwrap_or(""),
            k["reason"].as_str().unwrap_or("")
        ));
    }
    out
}
