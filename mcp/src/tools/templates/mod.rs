//! The `templates` toolset: template catalogs, template sources, creating a project, adding a
//! feature surface.

pub mod add_feature;
pub mod catalog;
