//! Store and source zips. Entries are sorted and carry a fixed timestamp, so the same input
//! gives the same bytes. Each zip is written to a temporary name and renamed into place.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::glob::Gitignore;

/// Writes `entries` (archive name, file on disk) to `dest`, atomically.
pub fn write_zip(dest: &Path, entries: &[(String, PathBuf)]) -> std::io::Result<u64> {
    let tmp = dest.with_extension(format!("zip.tmp-{}", std::process::id()));
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut zip = ZipWriter::new(BufWriter::new(file));
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .unix_permissions(0o644)
            .last_modified_time(zip::DateTime::default());
        let mut sorted: Vec<&(String, PathBuf)> = entries.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, path) in sorted {
            zip.start_file(name.as_str(), options).map_err(std::io::Error::other)?;
            let bytes = std::fs::read(path)?;
            zip.write_all(&bytes)?;
        }
        let mut out = zip.finish().map_err(std::io::Error::other)?;
        out.flush()?;
        drop(out.into_inner().map_err(|e| e.into_error())?);
        std::fs::rename(&tmp, dest)?;
        std::fs::metadata(dest).map(|m| m.len())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether a project-relative path may never be in a source zip, whatever `.gitignore` says:
/// `.git`, `node_modules`, `.extension-js` at any depth, the output folder, `.env*`, `*.pem`,
/// and webext-mcp's own staging folders.
pub fn denied_in_source(rel: &str, out_dir_rel: Option<&str>) -> bool {
    let segments: Vec<&str> = rel.split('/').collect();
    if segments
        .iter()
        .any(|s| matches!(*s, ".git" | "node_modules" | ".extension-js") || s.starts_with(".webext-mcp-"))
    {
        return true;
    }
    let name = segments.last().copied().unwrap_or("");
    if name.starts_with(".env") || name.ends_with(".pem") {
        return true;
    }
    if rel == "dist" || rel.starts_with("dist/") {
        return true;
    }
    matches!(out_dir_rel, Some(o) if !o.is_empty() && (rel == o || rel.starts_with(&format!("{o}/"))))
}

/// The files of a source zip: every file under `project` not denied and not ignored by the
/// `.gitignore` files on the way (each applies to its own folder and below). Sorted. Symlinks
/// are never followed nor archived, so nothing from outside the project gets in.
pub fn source_files(project: &Path, out_dir_rel: Option<&str>) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, Vec<(String, Gitignore)>)> = vec![(String::new(), Vec::new())];
    while let Some((dir_rel, mut rules)) = stack.pop() {
        let dir = if dir_rel.is_empty() { project.to_path_buf() } else { project.join(&dir_rel) };
        // A `.gitignore` is read only when it is a regular file: never through a symlink (out
        // of the project, or to /dev/zero).
        let gitignore = dir.join(".gitignore");
        if std::fs::symlink_metadata(&gitignore).is_ok_and(|m| m.is_file())
            && let Ok(text) = std::fs::read_to_string(&gitignore)
        {
            rules.push((dir_rel.clone(), Gitignore::parse(&text)));
        }
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if dir_rel.is_empty() { name } else { format!("{dir_rel}/{name}") };
            let ft = entry.file_type()?;
            let is_dir = ft.is_dir();
            if ft.is_symlink() || denied_in_source(&rel, out_dir_rel) || ignored(&rules, &rel, is_dir) {
                continue;
            }
            if is_dir {
                stack.push((rel, rules.clone()));
            } else if ft.is_file() {
                out.push(rel);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn ignored(rules: &[(String, Gitignore)], rel: &str, is_dir: bool) -> bool {
    let mut verdict = false;
    for (base, g) in rules {
        let local = if base.is_empty() {
            Some(rel)
        } else {
            rel.strip_prefix(base.as_str()).and_then(|r| r.strip_prefix('/'))
        };
        if let Some(local) = local
            && let Some(v) = g.matched(local, is_dir)
        {
            verdict = v;
        }
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denied_paths() {
        for p in [
            ".git/config",
            "a/.git",
            "node_modules/x/index.js",
            "pkg/node_modules/y",
            ".extension-js/cache",
            ".env",
            ".env.local",
            "sub/.env.production",
            "key.pem",
            "certs/dev.pem",
            "dist/chrome/manifest.json",
            "dist",
            "out/chrome/x",
            ".webext-mcp-staging-chrome-1/x",
        ] {
            assert!(denied_in_source(p, Some("out")), "{p}");
        }
        for p in ["manifest.json", "src/popup.js", "distinct.txt", "environment.md", "pem.txt"] {
            assert!(!denied_in_source(p, Some("out")), "{p}");
        }
    }

    #[test]
    fn source_listing_honours_nested_gitignores() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str| {
            let f = d.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, p).unwrap();
        };
        for p in [
            "manifest.json",
            "a.log",
            "keep.log",
            "sub/x.tmp",
            "sub/y.js",
            "build/out.js",
            ".env",
            "node_modules/m/i.js",
        ] {
            w(p);
        }
        std::fs::write(d.path().join(".gitignore"), "*.log\n!keep.log\n/build/\n").unwrap();
        std::fs::write(d.path().join("sub/.gitignore"), "*.tmp\n").unwrap();
        let files = source_files(d.path(), None).unwrap();
        assert_eq!(files, [".gitignore", "keep.log", "manifest.json", "sub/.gitignore", "sub/y.js"]);
    }
}
