//! Which profile folder a dev browser may run in, and how it is kept private.
//!
//! A project's `profile` (Extension.js's `browser.<name>.profile`) is hostile input: pointed
//! at `~/.config/chromium` (or a symlink in the project that leads there) it would run the
//! untrusted extension in the user's daily profile, with its cookies and logins, and rewrite
//! it. So a profile from a project must resolve, symlinks and `..` followed, to a folder
//! inside the project (not the project itself) or inside webext-mcp's own profiles folder;
//! and no profile, from a project or a caller, may be or hold a browser's own profile folder
//! (the catalog's configuration folders, [`crate::browsers::locations::profile_dirs`]).
//!
//! A profile is created 0700 and made 0700 when it exists: Firefox writes `cookies.sqlite`
//! and `user.js` 0644 under the user's umask, so the folder's mode is what keeps another
//! local user out.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::browsers::Os;
use crate::browsers::locations::{Roots, profile_dirs};
use crate::paths::{Env, Paths};

/// How many symlinks one path may pass through (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Where profiles may live, for one session.
#[derive(Debug, Clone)]
pub struct ProfileRule {
    /// The project's real path.
    project: PathBuf,
    /// webext-mcp's own profiles folder (`<data dir>/profiles`), real path where it exists.
    managed: PathBuf,
    /// Browsers' own profile folders, as named and as resolved.
    browsers: Vec<PathBuf>,
}

impl ProfileRule {
    pub fn new(project: &Path, managed: &Path, browser_dirs: &[PathBuf]) -> ProfileRule {
        let mut browsers: Vec<PathBuf> = Vec::new();
        for dir in browser_dirs {
            for d in [dir.clone(), resolve(dir).unwrap_or_else(|_| dir.clone())] {
                if !browsers.contains(&d) {
                    browsers.push(d);
                }
            }
        }
        ProfileRule {
            project: resolve(project).unwrap_or_else(|_| project.to_path_buf()),
            managed: resolve(managed).unwrap_or_else(|_| managed.to_path_buf()),
            browsers,
        }
    }

    /// The rule for `project` on this machine: webext-mcp's own profiles folder
    /// (`<data dir>/profiles`) and the daily profiles of the catalog's browsers, under the
    /// home webext-mcp uses and, when `--home` moved it, under the user's `HOME` too.
    pub fn for_user(paths: &Paths, env: &Env, project: &Path) -> ProfileRule {
        ProfileRule::new(project, &paths.data_dir.join("profiles"), &daily_profiles(paths, env))
    }

    /// The real folder for `asked`, an absolute path a project's config names; `Err(why)`
    /// when a project may not choose it.
    pub fn from_project(&self, asked: &Path) -> Result<PathBuf, String> {
        let real = self.not_a_browsers(asked)?;
        let inside_project = real.starts_with(&self.project) && real != self.project;
        if inside_project || real.starts_with(&self.managed) {
            Ok(real)
        } else {
            Err(format!(
                "a project's profile must be a folder inside the project or in {} (it resolves to {})",
                self.managed.display(),
                real.display()
            ))
        }
    }

    /// The real folder for `asked`, an absolute path the caller names; `Err(why)` when it is
    /// a browser's own profile.
    pub fn from_caller(&self, asked: &Path) -> Result<PathBuf, String> {
        self.not_a_browsers(asked)
    }

    fn not_a_browsers(&self, asked: &Path) -> Result<PathBuf, String> {
        let real = resolve(asked)?;
        for dir in &self.browsers {
            if real.starts_with(dir) {
                return Err(format!(
                    "it is a browser's own profile folder ({}): the dev browser never runs in your daily profile",
                    dir.display()
                ));
            }
            if dir.starts_with(&real) {
                return Err(format!(
                    "it holds a browser's own profile folder ({}): the dev browser never runs in your daily profile",
                    dir.display()
                ));
            }
        }
        Ok(real)
    }
}

/// The daily profile folders of the catalog's browsers, under the home webext-mcp uses and,
/// when `--home` moved it, under the user's `HOME` too.
pub fn daily_profiles(paths: &Paths, env: &Env) -> Vec<PathBuf> {
    let os = Os::current();
    let mut homes = vec![paths.home.clone()];
    homes.extend(env.get("HOME").map(PathBuf::from).filter(|h| h.is_absolute() && !homes.contains(h)));
    homes.iter().flat_map(|home| profile_dirs(os, &Roots::of(home, env, &paths.data_dir))).collect()
}

/// `path` (absolute) with every symlink and `..` resolved, like `realpath`, except that the
/// folders that do not exist yet are kept as named (a profile is often created by the run).
pub fn resolve(path: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err(format!("{} is not an absolute path", path.display()));
    }
    let mut out = PathBuf::new();
    let mut pending: VecDeque<OsString> = VecDeque::new();
    let mut links = 0;
    push_front(&mut pending, &mut out, path);
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(format!("{} passes through too many symlinks", path.display()));
                }
                let target = std::fs::read_link(&next)
                    .map_err(|e| format!("cannot read the symlink {}: {e}", next.display()))?;
                push_front(&mut pending, &mut out, &target);
            }
            _ => out = next,
        }
    }
    Ok(out)
}

/// Puts `path`'s parts before the ones still to resolve; an absolute `path` restarts at its
/// root.
fn push_front(pending: &mut VecDeque<OsString>, out: &mut PathBuf, path: &Path) {
    if path.has_root() {
        *out = path
            .components()
            .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
            .collect();
    }
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir | Component::CurDir => {}
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::Normal(n) => parts.push(n.to_os_string()),
        }
    }
    for part in parts.into_iter().rev() {
        pending.push_front(part);
    }
}

/// Creates `dir` (and missing parents) private to the user, and makes an existing one so.
pub fn create_private(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder a rule gives, or a word of its reason.
    type Expect = Result<PathBuf, &'static str>;

    #[cfg(unix)]
    #[test]
    fn a_project_profile_stays_in_the_project_and_off_the_daily_profiles() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let home = resolve(tmp.path()).unwrap();
        let project = home.join("proj");
        let chromium = home.join(".config/chromium");
        let firefox = home.join(".mozilla");
        let managed = home.join("data/profiles");
        for d in [&project, &chromium, &firefox.join("firefox/x.default"), &home.join("elsewhere")] {
            std::fs::create_dir_all(d).unwrap();
        }
        symlink(&chromium, project.join("daily")).unwrap();
        symlink(firefox.join("firefox/x.default"), project.join("ff")).unwrap();
        symlink("../elsewhere", project.join("out")).unwrap();
        symlink(project.join("loop-b"), project.join("loop-a")).unwrap();
        symlink(project.join("loop-a"), project.join("loop-b")).unwrap();
        // A dangling link: what it names is where a run would create the profile.
        symlink(home.join(".config/google-chrome"), project.join("later")).unwrap();
        let rule = ProfileRule::new(
            &project,
            &managed,
            &[chromium.clone(), firefox.clone(), home.join(".config/google-chrome")],
        );

        // (asked, from a project, from a caller), Err as a word of the reason.
        let cases: &[(PathBuf, Expect, Expect)] = &[
            (project.join("dist/p"), Ok(project.join("dist/p")), Ok(project.join("dist/p"))),
            (project.join("a/../b"), Ok(project.join("b")), Ok(project.join("b"))),
            (managed.join("mine"), Ok(managed.join("mine")), Ok(managed.join("mine"))),
            (project.clone(), Err("inside the project"), Ok(project.clone())),
            (project.join("daily"), Err("own profile"), Err("own profile")),
            (project.join("daily/Default"), Err("own profile"), Err("own profile")),
            (project.join("ff"), Err("own profile"), Err("own profile")),
            (project.join("later"), Err("own profile"), Err("own profile")),
            (project.join("../.config/chromium"), Err("own profile"), Err("own profile")),
            (home.join(".config"), Err("holds"), Err("holds")),
            (home.clone(), Err("holds"), Err("holds")),
            (project.join("out/p"), Err("inside the project"), Ok(home.join("elsewhere/p"))),
            (home.join("elsewhere"), Err("inside the project"), Ok(home.join("elsewhere"))),
            (project.join("loop-a"), Err("too many symlinks"), Err("too many symlinks")),
        ];
        for (asked, project_says, caller_says) in cases {
            for (got, want) in
                [(rule.from_project(asked), project_says), (rule.from_caller(asked), caller_says)]
            {
                match (got, want) {
                    (Ok(g), Ok(w)) => assert_eq!(&g, w, "{}", asked.display()),
                    (Err(g), Err(w)) => assert!(g.contains(w), "{}: {g} (expected {w:?})", asked.display()),
                    (g, w) => panic!("{}: got {g:?}, expected {w:?}", asked.display()),
                }
            }
        }
        assert!(resolve(Path::new("rel/p")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn profiles_are_created_private_and_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("a/b/profile");
        create_private(&fresh).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&fresh), 0o700);
        let old = tmp.path().join("old");
        std::fs::create_dir(&old).unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_private(&old).unwrap();
        assert_eq!(mode(&old), 0o700);
    }
}
