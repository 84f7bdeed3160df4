//! Renaming a big CommonJS file on the second core while the first one links it
//! (production builds).
//!
//! A package's prebuilt file (react-dom's 610 KB client) is most of a React popup's build:
//! linked (parse, `require` calls rewritten), then minified (parse, renaming, printing), one
//! after the other on one core while the other waits. Here the file, as read, is renamed on
//! a thread of its own *before* it is linked, so the renaming and the link run at once.
//!
//! Renaming commutes with linking: the linker rewrites only free names (`require(…)`,
//! `process.env`, `module`, `exports`), which renaming leaves alone, and the bundle makes the
//! file's top level the body of the module's function, so renaming that level too is safe.
//! Big files are only renamed, never compressed (see [`emit::COMPRESS_MAX_BYTES`]), so the
//! renamed tree still has every node the linker edited, at the same spans. So:
//!
//! - when the link's only edits were `require("…")` arguments (react-dom's three), the link
//!   hands them over and the renaming thread replaces the same arguments in its tree before
//!   printing: no second parse;
//! - otherwise (env replacement, dead branches) the renamed text is linked again when the
//!   graph is complete, with the first link's imports;
//! - and whenever that does not come out as the first link (an ES module, other imports, an
//!   issue, a leftover `process.env`), the result is dropped and the module is minified the
//!   usual way.
//!
//! The first attempt (session 5) renamed only after the link and always linked again:
//! nothing overlapped the renaming and the build got slower.

use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;

use oxc_allocator::Allocator;
use oxc_ast::ast::{Argument, CallExpression, Program};
use oxc_ast::builder::AstBuilder;
use oxc_ast_visit::{VisitMut, walk_mut};
use oxc_span::{GetSpan, Span};
use oxc_syntax::number::NumberBase;

use super::super::emit::{self, COMPRESS_MAX_BYTES};
use super::super::link::{self, Linked};
use super::super::resolve::Unresolved;
use super::super::{Graph, Module};
use crate::build::env::PublicEnv;

/// Each `require("…")` argument's span in the file's text → the module id it became.
type RequireIds = Vec<(Span, usize)>;

/// What a renaming thread gives back.
enum Renamed {
    /// The module's minified function, its requires already rewritten.
    Function(String),
    /// The renamed text, to be linked again.
    Text(String),
}

/// A renaming under way.
pub(in crate::build::bundle) struct Renaming {
    id: usize,
    thread: JoinHandle<Option<Renamed>>,
    /// Where the link sends its require ids (`None`: link the renamed text again). Dropped
    /// unsent, the thread takes it as `None`.
    ids: Option<Sender<Option<RequireIds>>>,
}

impl Renaming {
    pub(in crate::build::bundle) fn id(&self) -> usize {
        self.id
    }
}

impl Graph<'_> {
    /// Starts renaming module `id`'s text (`original`, as read, not compiled) when the build
    /// minifies and the file is big enough for that to be worth a thread; a thread that
    /// cannot start changes nothing.
    pub(super) fn start_renaming(&mut self, id: usize, original: &str) {
        if !self.settings.minify || self.settings.source_maps || original.len() <= COMPRESS_MAX_BYTES {
            return;
        }
        let source = original.to_owned();
        let (send, receive) = std::sync::mpsc::channel();
        let started =
            std::thread::Builder::new().name("bundle-rename".into()).spawn(move || rename(&source, receive));
        if let Ok(thread) = started {
            self.renaming.push(Renaming { id, thread, ids: Some(send) });
        }
    }

    /// Hands module `id`'s first link to its renaming, if one runs.
    pub(super) fn send_require_ids(&mut self, id: usize, linked: &Linked) {
        if let Some(r) = self.renaming.iter_mut().find(|r| r.id == id)
            && let Some(send) = r.ids.take()
        {
            let _ = send.send(linked.require_ids.clone().filter(|_| linked.leftovers.is_empty()));
        }
    }
}

/// The renaming thread: renames `source`, then, with the link's require ids, rewrites the
/// same arguments in the renamed tree and prints the module's function; without them,
/// prints the renamed text for a second link.
fn rename(source: &str, ids: Receiver<Option<RequireIds>>) -> Option<Renamed> {
    let (code, rewritten) = emit::minify_commonjs(source, move |alloc, program| {
        let ids = ids.recv().ok().flatten()?;
        rewrite_requires(alloc, program, &ids).then_some(())
    })?;
    Some(match rewritten {
        Some(()) => Renamed::Function(format!("function (module, exports, require) {{\n{code}\n}}")),
        None => Renamed::Text(code),
    })
}

/// Replaces each argument of `ids` by its module id; `false` when one of them is not in the
/// tree as a call's only argument (the tree is then not printed as a function).
fn rewrite_requires<'a>(alloc: &'a Allocator, program: &mut Program<'a>, ids: &[(Span, usize)]) -> bool {
    struct Rewrite<'a, 'i> {
        builder: AstBuilder<'a>,
        ids: &'i [(Span, usize)],
        done: usize,
    }
    impl<'a> VisitMut<'a> for Rewrite<'a, '_> {
        fn visit_call_expression(&mut self, it: &mut CallExpression<'a>) {
            if it.arguments.len() == 1
                && let Some(&(span, id)) = self.ids.iter().find(|(span, _)| *span == it.arguments[0].span())
            {
                it.arguments[0] =
                    Argument::new_numeric_literal(span, id as f64, None, NumberBase::Decimal, &self.builder);
                self.done += 1;
            }
            walk_mut::walk_call_expression(self, it);
        }
    }
    let mut r = Rewrite { builder: AstBuilder::new(alloc), ids, done: 0 };
    r.visit_program(program);
    r.done == ids.len()
}

/// Waits for each renaming; a module renamed with its requires rewritten gets that as its
/// minified function, a renamed text is linked again and kept when the second link gives
/// the same imports in the same order, with no issue and nothing left over (the others keep
/// none, and are minified as usual after this).
pub(in crate::build::bundle) fn finish(
    renaming: Vec<Renaming>,
    modules: &[Module],
    env: &PublicEnv,
    out: &str,
) {
    for Renaming { id, thread, ids } in renaming {
        drop(ids);
        let Ok(Some(renamed)) = thread.join() else { continue };
        let module = &modules[id];
        let Some(entry) = module.entry.as_ref() else { continue };
        if entry.esm || entry.minified.get().is_some() {
            continue;
        }
        let text = match renamed {
            Renamed::Function(function) => {
                let _ = entry.minified.set(Some(function));
                continue;
            }
            Renamed::Text(text) => text,
        };
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
        let Ok(linked) = link::link(&text, &module.path, &url, Some(env), &mut resolve) else { continue };
        if linked.esm || !linked.issues.is_empty() || !linked.leftovers.is_empty() || deps != module.deps {
            continue;
        }
        let _ = entry.minified.set(Some(linked.function));
    }
}
