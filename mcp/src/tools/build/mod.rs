//! The `build` toolset: building per browser, validating the manifest, inspecting a build.

pub mod extension_build;
pub mod validate;
