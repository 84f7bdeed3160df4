//! Where a native build may read from: builds never follow a symlink out of the project
//! (DESIGN "Trust model": a project on disk is hostile until proven otherwise, and a link to
//! `~/.ssh/id_ed25519` must not end up in a store zip).
//!
//! ```text
//! file the build copies or reads ──canonicalize──▶ real path
//!     inside the project's real path                          → fine
//!     reached through a `node_modules` folder and inside
//!     <workspace root>/node_modules (pnpm links
//!     node_modules/<pkg> into <workspace>/node_modules/.pnpm)  → fine
//!     anything else                                           → MANIFEST_PATH_OUTSIDE
//! ```
//!
//! The workspace root is the nearest folder at or above the project holding
//! `pnpm-workspace.yaml` or a `package.json` with a `workspaces` field (npm, Yarn, Bun); the
//! project itself when there is none. A `.git` folder does not make a workspace: a repository
//! (a dotfiles repository in `~`, say) is not a package manager's store. Only the workspace's
//! own `node_modules` is allowed, not the whole workspace: a `package.json` with `workspaces`
//! in `~` must not open `~/.ssh` to a project's `node_modules` link.

use std::path::{Path, PathBuf};

use crate::manifest::{self, Finding, FindingCode, Json};

/// The project's real path and its workspace root.
#[derive(Debug, Clone)]
pub struct Boundary {
    /// The project as the caller named it (to tell which paths go through `node_modules`).
    project: PathBuf,
    real: PathBuf,
    workspace: PathBuf,
    /// `<workspace>/node_modules`, where `node_modules` links may lead.
    store: PathBuf,
}

impl Boundary {
    pub fn new(project: &Path) -> Boundary {
        let real = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let workspace = workspace_root(&real);
        let store = workspace.join("node_modules");
        Boundary { project: project.to_path_buf(), real, workspace, store }
    }

    /// `None` when `path` (a file under the project) really is inside; otherwise the finding
    /// naming the symlink on the way and where it leads. A path that cannot be resolved is
    /// left to the caller (it reports missing files itself).
    pub fn check(&self, path: &Path) -> Option<Finding> {
        let real = std::fs::canonicalize(path).ok()?;
        let lexical = path.strip_prefix(&self.project).ok();
        let through_node_modules =
            lexical.is_some_and(|rel| rel.components().any(|c| c.as_os_str() == "node_modules"));
        if real.starts_with(&self.real) || (through_node_modules && real.starts_with(&self.store)) {
            return None;
        }
        let shown = |p: &Path| p.to_string_lossy().replace('\\', "/");
        let rel = lexical.map_or_else(|| shown(path), shown);
        let link = lexical.and_then(|rel| first_symlink(&self.project, rel));
        let how = match &link {
            Some((at, target)) if at.as_path() == Path::new(&rel) => {
                format!("is a symlink to {}", target.display())
            }
            Some((at, target)) => format!("goes through the symlink `{}` → {}", shown(at), target.display()),
            None => "resolves".to_owned(),
        };
        let allowed = if self.workspace == self.real {
            format!("outside the project {}", self.real.display())
        } else {
            format!(
                "outside the project {} (and, for node_modules, outside the workspace's {})",
                self.real.display(),
                self.store.display()
            )
        };
        Some(
            Finding::new(
                FindingCode::ManifestPathOutside,
                format!(
                    "`{rel}` {how}, so its real path {} is {allowed}; a build never copies files from outside the project",
                    real.display()
                ),
                format!("copy the file into the project instead of linking to it (or remove the link `{}`)", link.map_or(rel.clone(), |(at, _)| shown(&at))),
            )
            .in_file(rel),
        )
    }
}

impl Boundary {
    /// Whether a module the bundler resolved (its real path) may be read: inside the project,
    /// or, when it was reached as a package (`via_package`: a bare import, or an import from a
    /// file already in the store), inside the workspace's `node_modules` store.
    pub fn allows_module(&self, real: &Path, via_package: bool) -> bool {
        real.starts_with(&self.real) || (via_package && real.starts_with(&self.store))
    }

    /// The workspace root (the project's real path when there is no workspace): package
    /// lookups never climb above it.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Whether `real` lies in the workspace's package store (`<workspace>/node_modules`).
    pub fn in_store(&self, real: &Path) -> bool {
        real.starts_with(&self.store)
    }
}

/// The first symlink on `rel` below `project`, with what it points to.
fn first_symlink(project: &Path, rel: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut at = PathBuf::new();
    for c in rel.components() {
        at.push(c);
        let full = project.join(&at);
        if std::fs::symlink_metadata(&full).is_ok_and(|m| m.file_type().is_symlink()) {
            return std::fs::read_link(&full).ok().map(|t| (at, t));
        }
    }
    None
}

/// The nearest folder at or above `project` (a real path) that declares a package-manager
/// workspace; `project` itself when none does.
pub fn workspace_root(project: &Path) -> PathBuf {
    project.ancestors().find(|d| declares_workspace(d)).unwrap_or(project).to_path_buf()
}

fn declares_workspace(dir: &Path) -> bool {
    if dir.join("pnpm-workspace.yaml").is_file() {
        return true;
    }
    std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| manifest::parse_jsonc(&t).ok())
        .is_some_and(|pkg: Json| pkg.get("workspaces").is_some())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn workspace_root_is_the_nearest_declaring_folder() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let ext = root.join("apps/ext");
        std::fs::create_dir_all(&ext).unwrap();
        assert_eq!(workspace_root(&ext), ext, "no workspace: the project itself");
        std::fs::write(root.join("package.json"), r#"{"name":"mono","workspaces":["apps/*"]}"#).unwrap();
        assert_eq!(workspace_root(&ext), root);
        std::fs::write(root.join("apps/pnpm-workspace.yaml"), "packages:\n  - '*'\n").unwrap();
        assert_eq!(workspace_root(&ext), root.join("apps"));
        // A package.json without `workspaces`, or a repository, declares nothing.
        std::fs::remove_file(root.join("apps/pnpm-workspace.yaml")).unwrap();
        std::fs::write(root.join("apps/package.json"), r#"{"name":"apps"}"#).unwrap();
        std::fs::create_dir(root.join("apps/.git")).unwrap();
        assert_eq!(workspace_root(&ext), root);
    }

    #[test]
    fn links_inside_pass_and_links_out_name_the_link_and_its_target() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::write(p.join("a.js"), "a").unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        symlink("a.js", p.join("inside.js")).unwrap();
        symlink(outside.path().join("secret"), p.join("out.js")).unwrap();
        symlink(outside.path(), p.join("vendor")).unwrap();
        let b = Boundary::new(p);
        assert!(b.check(&p.join("a.js")).is_none());
        assert!(b.check(&p.join("inside.js")).is_none());
        assert!(b.check(&p.join("missing.js")).is_none(), "missing files are reported elsewhere");
        let f = b.check(&p.join("out.js")).unwrap();
        assert_eq!(f.code, FindingCode::ManifestPathOutside);
        assert_eq!(f.file.as_deref(), Some("out.js"));
        assert!(
            f.message.contains("`out.js` is a symlink to") && f.message.contains("secret"),
            "{}",
            f.message
        );
        let f = b.check(&p.join("vendor/secret")).unwrap();
        assert!(f.message.contains("through the symlink `vendor`"), "{}", f.message);
        assert!(f.fix.contains("`vendor`"), "{}", f.fix);
        // node_modules gets no exception without a workspace around the project.
        std::fs::create_dir(p.join("node_modules")).unwrap();
        symlink(outside.path(), p.join("node_modules/pkg")).unwrap();
        assert!(b.check(&p.join("node_modules/pkg/secret")).is_some());
    }
}
