//! Renaming a big CommonJS file on the second core while the first one links it
//! (production builds).
//!
//! A package's prebuilt file (react-dom's 610 KB client) is most of a React popup's build:
//! linked (parse, `require` calls rewritten), then minified (parse, renaming, printing), one
//! after the other on one core while the other waits. Here the file, as read, is renamed on
//! a thread of its own *before* it is linked, so the renaming and the link run at once; when
//! the graph is complete the renamed text — a third of the original — is linked again with
//! the first link's imports, and that becomes the module's minified function.
//!
//! Renaming commutes with linking: the linker rewrites only free names (`require(…)`,
//! `process.env`, `module`, `exports`), which renaming leaves alone, and the bundle makes the
//! file's top level the body of the module's function, so renaming that level too is safe.
//! Big files are only renamed, never compressed (see [`emit::COMPRESS_MAX_BYTES`]), so their
//! `process.env` tests are still there for the second link to replace. Whenever the second
//! link does not come out as the first (an ES module, other imports, an issue, a leftover
//! `process.env`), the result is dropped and the module is minified the usual way.
//!
//! The first attempt (session 5) started the renaming only after the link: nothing
//! overlapped it and the build got slower. Started at read time it overlaps the whole link.

use std::thread::JoinHandle;

use super::super::emit::{self, COMPRESS_MAX_BYTES};
use super::super::resolve::Unresolved;
use super::super::{Module, link};
use crate::build::bundle::Graph;
use crate::build::env::PublicEnv;

/// A renaming under way: the module's id and the thread that renames it.
pub(in crate::build::bundle) type Renaming = (usize, JoinHandle<Option<String>>);

impl Graph<'_> {
    /// Starts renaming module `id`'s text (`original`, as read, not compiled) when the build
    /// minifies and the file is big enough for that to be worth a thread; a thread that
    /// cannot start changes nothing.
    pub(super) fn start_renaming(&mut self, id: usize, original: &str) {
        if !self.settings.minify || self.settings.source_maps || original.len() <= COMPRESS_MAX_BYTES {
            return;
        }
        let source = original.to_owned();
        let started = std::thread::Builder::new()
            .name("bundle-rename".into())
            .spawn(move || emit::minify_commonjs(&source));
        if let Ok(handle) = started {
            self.renaming.push((id, handle));
        }
    }
}

/// Waits for each renaming and links its text again; a module whose second link gives the
/// same imports in the same order, with no issue and nothing left over, gets it as its
/// minified function (the others keep none, and are minified as usual after this).
pub(in crate::build::bundle) fn finish(
    renaming: Vec<Renaming>,
    modules: &[Module],
    env: &PublicEnv,
    out: &str,
) {
    for (id, handle) in renaming {
        let Ok(Some(renamed)) = handle.join() else { continue };
        let module = &modules[id];
        let Some(entry) = module.entry.as_ref() else { continue };
        if entry.esm || entry.minified.get().is_some() {
            continue;
        }
        let mut deps: Vec<usize> = Vec::new();
        let mut resolve =
            |spec: &str| -> Result<usize, Unresolved> {
                let dep =
                    entry.calls.iter().find(|(s, _, _)| s == spec).and_then(|(_, _, dep)| *dep).ok_or_else(
                        || Unresolved::Other(format!("`{spec}` was not imported before renaming")),
                    )?;
                if !deps.contains(&dep) {
                    deps.push(dep);
                }
                Ok(dep)
            };
        let url = format!("$wx_r.u({})", super::quote(out));
        let Ok(linked) = link::link(&renamed, &module.path, &url, Some(env), &mut resolve) else { continue };
        if linked.esm || !linked.issues.is_empty() || !linked.leftovers.is_empty() || deps != module.deps {
            continue;
        }
        let _ = entry.minified.set(Some(linked.function));
    }
}
