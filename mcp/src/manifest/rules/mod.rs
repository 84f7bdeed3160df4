//! The manifest's own rules, without looking at the project's files: which keys exist and
//! what kind each holds ([`keys`]), what their values may be per browser ([`values`], with
//! content security policies in [`csp`]). The build enforces their blocking subset
//! ([`blocking`]); `extension_manifest_validate` reports all of them beside its file, code,
//! locale and compatibility checks.

use super::{Finding, Json, Target};

pub mod csp;
pub mod keys;
pub mod values;

/// The build's blocking subset for one target: the manifest rules a browser enforces at load
/// time (`FindingCode::blocks_build`), same codes as validation.
pub fn blocking(m: &Json, t: Target) -> Vec<Finding> {
    let mut found = Vec::new();
    keys::check(m, &mut found);
    values::check(m, t, &mut found);
    found.retain(|f| f.is_error() && f.code.blocks_build());
    found
}
