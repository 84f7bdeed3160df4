//! Minifying a big CommonJS module while the rest of the graph loads (production builds).
//!
//! A package's prebuilt file (react-dom's 610 KB client) is most of a React popup's build:
//! linked, then minified, one after the other on one core. Here its source, as read, is
//! renamed on a thread of its own as soon as it has been linked (which gave its imports, so
//! the rest of the graph loads meanwhile); when the graph is complete the renamed source is
//! linked again — a third of the text, the same imports — and that becomes the module's
//! minified function. Renaming commutes with linking: the linker only rewrites free names
//! (`require(…)`, `process.env`), which renaming leaves alone, and the bundle makes the
//! module's top level the body of its function, so renaming that level too is safe. When the
//! second link does not come out the same (other imports, an issue, an ES module), the module
//! is minified the usual way, after linking.

use super::super::emit::{self, COMPRESS_MAX_BYTES};
use super::super::link;
use super::super::resolve::Unresolved;
use super::quote;
use crate::build::bundle::Graph;

impl Graph<'_> {
    /// Starts renaming module `id`'s source (`original`, as read) when it is big enough for
    /// that to be worth a thread; a thread that cannot start changes nothing.
    pub(super) fn start_early_minify(&mut self, id: usize, original: &str) {
        if !self.settings.minify || original.len() <= COMPRESS_MAX_BYTES {
            return;
        }
        let source = original.to_owned();
        let started = std::thread::Builder::new()
            .name("bundle-minify".into())
            .spawn(move || emit::minify_commonjs(&source));
        if let Ok(handle) = started {
            self.early.push((id, handle));
        }
    }

    /// Waits for the renamed sources and links each again; a module whose second link gives
    /// the same imports in the same order, with no issue, gets it as its minified function.
    pub(in crate::build::bundle) fn take_early_minified(&mut self) {
        for (id, handle) in std::mem::take(&mut self.early) {
            let Ok(Some(renamed)) = handle.join() else { continue };
            let Some(entry) = self.modules[id].entry.clone() else { continue };
            if entry.minified.get().is_some() {
                continue;
            }
            let mut deps: Vec<usize> = Vec::new();
            let mut resolve = |spec: &str| -> Result<usize, Unresolved> {
                let dep =
                    entry.calls.iter().find(|(s, _, _)| s == spec).and_then(|(_, _, dep)| *dep).ok_or_else(
                        || Unresolved::Other(format!("`{spec}` was not imported before renaming")),
                    )?;
                if !deps.contains(&dep) {
                    deps.push(dep);
                }
                Ok(dep)
            };
            let url = format!("$wx_r.u({})", quote(&self.out));
            let path = self.modules[id].path.clone();
            let again = link::link(&renamed, &path, &url, Some(self.settings.env), &mut resolve);
            let Ok(linked) = again else { continue };
            if linked.esm
                || !linked.issues.is_empty()
                || !linked.leftovers.is_empty()
                || deps != self.modules[id].deps
            {
                continue;
            }
            let _ = entry.minified.set(Some(linked.function));
        }
    }
}
