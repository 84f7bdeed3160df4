//! `uninstall`: removes exactly what the install record says `install` wrote (files it
//! created, files it replaced restored, registry keys), then the record, then the
//! directories it made that are empty by then. A dry run decides the same way.

use std::path::PathBuf;

use serde_json::json;
use webext_mcp_host::digest::sha256_hex;

use super::journal::write_atomic;
use super::{InstallError, Setup, UninstallReport, io, read_existing, read_record, registry};

/// Removes what the record says install wrote, and the record itself.
pub fn uninstall(setup: &Setup, dry_run: bool) -> Result<UninstallReport, InstallError> {
    let record_path = setup.record_path();
    let mut report = UninstallReport {
        dry_run,
        record: record_path.clone(),
        installed: false,
        removed: Vec::new(),
        restored: Vec::new(),
        kept: Vec::new(),
        removed_dirs: Vec::new(),
        kept_dirs: Vec::new(),
        registry: Vec::new(),
        helper_dir: setup.paths.helper_dir.clone(),
    };
    let Some(record) = read_record(&record_path)? else { return Ok(report) };
    report.installed = true;
    for f in &record.files {
        let Some(bytes) = read_existing(&f.path)? else { continue };
        if sha256_hex(&bytes) != f.sha256 {
            report.kept.push(json!({ "path": f.path, "reason": "changed since install" }));
            continue;
        }
        match &f.previous {
            Some(old) => {
                if !dry_run {
                    write_atomic(&f.path, old.as_bytes())?;
                }
                report.restored.push(f.path.clone());
            }
            None => {
                if !dry_run {
                    std::fs::remove_file(&f.path).map_err(io("cannot remove", &f.path))?;
                }
                report.removed.push(f.path.clone());
            }
        }
    }
    for r in &record.registry {
        if !dry_run {
            registry::restore(&r.key, r.previous.as_deref())
                .map_err(|reason| InstallError::Registry { key: r.key.clone(), reason })?;
        }
        report.registry.push(r.key.clone());
    }
    if !dry_run {
        std::fs::remove_file(&record_path).map_err(io("cannot remove", &record_path))?;
    }
    report.removed.push(record_path);
    // Deepest first; a directory that holds anything else stays, and says what. A dry run
    // decides the same way, counting what the real run would have removed by then as gone.
    let mut dirs = record.dirs.clone();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    let mut gone: std::collections::HashSet<PathBuf> = report.removed.iter().cloned().collect();
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        let others: Vec<String> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| !gone.contains(p))
            .map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
            .collect();
        if others.is_empty() && (dry_run || std::fs::remove_dir(&d).is_ok()) {
            gone.insert(d.clone());
            report.removed_dirs.push(d);
        } else {
            report.kept_dirs.push(json!({ "path": d, "reason": kept_reason(&others) }));
        }
    }
    Ok(report)
}

/// Why a directory stays: the first few things left in it (files install did not write, or
/// directories that stay themselves).
fn kept_reason(others: &[String]) -> String {
    let mut names: Vec<&str> = others.iter().map(String::as_str).collect();
    names.sort_unstable();
    match names.len() {
        0 => "could not be removed".to_owned(),
        n if n <= 3 => format!("still holds {}", names.join(", ")),
        n => format!("still holds {} and {} more", names[..3].join(", "), n - 3),
    }
}
