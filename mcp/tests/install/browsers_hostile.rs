//! Archives from a mirror are hostile: entries climbing out with `../`, absolute names,
//! symlinks pointing out, entries written through a symlink. Each is refused with
//! `INTEGRITY`, nothing is written outside the cache, and nothing is left in it.

use std::io::Write;

use crate::Home;
use crate::mirror::{CFT, FIREFOX, Mirror, add_file, add_link, cache_entries, tar_xz};

/// A tar entry whose name the tar crate would refuse to write (`..`, absolute).
fn add_raw(b: &mut tar::Builder<Vec<u8>>, name: &str, data: &[u8]) {
    let mut h = tar::Header::new_old();
    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    h.set_size(data.len() as u64);
    h.set_mode(0o755);
    h.set_entry_type(tar::EntryType::Regular);
    h.set_cksum();
    b.append(&h, data).unwrap();
}

fn firefox_with(extra: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
    tar_xz(|b| {
        add_file(b, "firefox/firefox", 0o755, b"#!/bin/sh\necho Mozilla Firefox\n");
        extra(b);
    })
}

/// Installs `archive` as Firefox from a fresh mirror; the refusal and the home.
fn install_firefox(archive: Vec<u8>) -> (serde_json::Value, Home) {
    let m = Mirror::start();
    m.firefox(FIREFOX, archive, None);
    let home = Home::empty();
    m.configure(&home);
    let (code, r) = home.json(&["browsers", "install", "firefox"]);
    assert_eq!(code, 1, "{r}");
    (r, home)
}

fn assert_refused(r: &serde_json::Value, home: &Home, reason: &str) {
    assert_eq!(r["error"]["code"], "INTEGRITY", "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("refused archive entry") && message.contains(reason), "{message}");
    assert!(cache_entries(home).is_empty(), "left behind: {:?}", cache_entries(home));
}

#[test]
fn tar_entries_that_climb_out_or_are_absolute_are_refused() {
    let (r, home) = install_firefox(firefox_with(|b| add_raw(b, "firefox/../../../escaped", b"x")));
    assert_refused(&r, &home, "`..`");
    assert!(!home.data().join("escaped").exists() && !home.path().join(".local/escaped").exists());
    let (r, home) = install_firefox(firefox_with(|b| add_raw(b, "/tmp/webext-mcp-absolute-escape", b"x")));
    assert_refused(&r, &home, "absolute");
    assert!(!std::path::Path::new("/tmp/webext-mcp-absolute-escape").exists());
}

#[test]
fn tar_symlinks_out_and_entries_through_symlinks_are_refused() {
    let (r, home) = install_firefox(firefox_with(|b| add_link(b, "firefox/etc", "/etc")));
    assert_refused(&r, &home, "symlink points outside");
    let (r, home) = install_firefox(firefox_with(|b| add_link(b, "firefox/up", "../../..")));
    assert_refused(&r, &home, "symlink points outside");
    // A link that stays inside, then a file written through it.
    let (r, home) = install_firefox(firefox_with(|b| {
        add_link(b, "firefox/lib", "sub");
        add_file(b, "firefox/lib/x.so", 0o644, b"x");
    }));
    assert_refused(&r, &home, "below a symlink");
    // Two links that each stay inside, and together leave.
    let (r, home) = install_firefox(firefox_with(|b| {
        add_file(b, "firefox/a/b/keep", 0o644, b"x");
        add_link(b, "firefox/a/b/s", "../../..");
        add_link(b, "firefox/out", "a/b/s/..");
    }));
    assert_refused(&r, &home, "resolves outside");
    let (r, home) = install_firefox(firefox_with(|b| add_link(b, "firefox/nowhere", "missing/file")));
    assert_refused(&r, &home, "points at nothing");
}

#[test]
fn zip_entries_that_climb_out_or_link_out_are_refused() {
    for (case, build) in [
        (
            "`..`",
            Box::new(|z: &mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>| {
                z.start_file("chrome-linux64/../../evil.txt", zip::write::SimpleFileOptions::default())
                    .unwrap();
                z.write_all(b"evil").unwrap();
            }) as Box<dyn Fn(&mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>)>,
        ),
        (
            "symlink points outside",
            Box::new(|z: &mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>| {
                z.add_symlink(
                    "chrome-linux64/passwd",
                    "/etc/passwd",
                    zip::write::SimpleFileOptions::default(),
                )
                .unwrap();
            }),
        ),
    ] {
        let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let exec = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
        z.start_file("chrome-linux64/chrome", exec).unwrap();
        z.write_all(b"#!/bin/sh\necho Google Chrome for Testing\n").unwrap();
        build(&mut z);
        let bytes = z.finish().unwrap().into_inner();
        let m = Mirror::start();
        m.chrome_for_testing(CFT, bytes);
        let home = Home::empty();
        m.configure(&home);
        let (code, r) = home.json(&["browsers", "install", "chrome-for-testing"]);
        assert_eq!(code, 1, "{case}: {r}");
        assert_refused(&r, &home, case);
        assert!(!home.data().join("evil.txt").exists());
    }
}
