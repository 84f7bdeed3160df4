//! The template catalog: where `extension_create` starts from.
//!
//! ```text
//!  sources (each implements TemplateSource)          Catalog
//!  ┌────────────────────────────────────┐     ┌────────────────────────────┐
//!  │ embedded: mcp/templates/ compiled  │──┐  │ lookup("slug" | "src:slug")│──▶ create: write aside,
//!  │   in by build.rs (works offline)   │  ├─▶│ search(filters, query)     │      rename into place
//!  │ remote: templates-meta.json v2     │──┘  │ read(template, path)       │──▶ get_template_source
//!  │   (later; same model, own source)  │     └────────────────────────────┘
//!  └────────────────────────────────────┘
//! ```
//!
//! Every template carries the name of its source, so a remote catalog sits beside the
//! embedded one without changing the tools: `source:slug` picks one explicitly, a bare slug
//! takes the first source that has it (the embedded one comes first).

pub mod create;
pub mod embedded;
pub mod install;
pub mod model;
pub mod remote;
pub mod search;

use std::borrow::Cow;
use std::sync::OnceLock;

pub use model::{Template, parse_catalog};

/// The embedded catalog's source name.
pub const EMBEDDED: &str = "embedded";
/// The template `extension_create` uses when none is named.
pub const DEFAULT_TEMPLATE: &str = "starter";

/// Why a catalog operation failed. Messages say what to do.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// No template has that slug; `closest` are the nearest names.
    #[error("no template `{name}`{}", closest_text(closest))]
    UnknownTemplate { name: String, closest: Vec<String> },
    /// The `source:` prefix names no catalog.
    #[error("no template catalog `{source_name}`; known: {}", known.join(", "))]
    UnknownSource { source_name: String, known: Vec<String> },
    /// The template exists but this source cannot hand out its files (yet).
    #[error("the `{source_name}` catalog cannot provide the files of `{slug}`")]
    FilesUnavailable { source_name: String, slug: String },
    /// A catalog document that is not `templates-meta.json` v2.
    #[error("catalog `{source_name}` is not a templates-meta.json v2 document: {message}")]
    BadCatalog { source_name: String, message: String },
    /// An argument that cannot be used as given.
    #[error("{message}")]
    InvalidArgument { message: String, hint: String },
    /// The destination already holds files; nothing was touched.
    #[error("{} already exists and is not empty", path.display())]
    AlreadyExists { path: std::path::PathBuf },
    /// The destination's parent folder is missing.
    #[error("the folder {} does not exist", path.display())]
    ParentMissing { path: std::path::PathBuf },
    /// A remote catalog or template archive could not be fetched.
    #[error("cannot fetch {url}: {reason}")]
    Network { url: String, reason: String },
    /// A template archive failed its hash check, or holds an entry that is refused.
    #[error("integrity check failed: {what}")]
    Integrity { what: String },
    /// A catalog named, or redirected to, a URL that its source rules forbid (plain http to
    /// another host, a loopback service that is not the configured mirror or source).
    #[error("refused {url}: {reason}")]
    Refused { url: String, reason: String },
    /// Writing the project failed; whatever was created has been removed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

fn closest_text(closest: &[String]) -> String {
    if closest.is_empty() { String::new() } else { format!("; closest: {}", closest.join(", ")) }
}

/// A place templates come from. The embedded catalog is one; a remote `templates-meta.json`
/// (with files fetched on demand) is another.
pub trait TemplateSource: Send + Sync {
    /// The name used in `source:slug` and in every template's `source` field.
    fn name(&self) -> &str;
    /// The templates, in the source's own order.
    fn templates(&self) -> &[Template];
    /// One file of a template, by its template-relative path; `Ok(None)` when absent.
    fn read(&self, slug: &str, path: &str) -> Result<Option<Cow<'static, [u8]>>, CatalogError>;
    /// Makes the template's files readable (a remote source downloads and verifies its
    /// archive once), reporting progress as text; says where the files came from. Sources
    /// that always have their files answer `Ok(None)`.
    fn prepare(
        &self,
        _slug: &str,
        _progress: &mut dyn FnMut(String),
    ) -> Result<Option<Provenance>, CatalogError> {
        Ok(None)
    }
    /// Every file of the template's folder, when the source holds the folder itself (a
    /// remote template after [`TemplateSource::prepare`]); `None`: the catalog's `files`.
    fn list_files(&self, _slug: &str) -> Option<Vec<String>> {
        None
    }
}

/// Where a remote template's files came from and why they are trusted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    pub source: String,
    pub archive_url: String,
    /// The commit the archive is of, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Whether the archive is of a fixed commit (else a branch, which moves).
    pub pinned: bool,
    pub sha256: String,
    pub bytes: u64,
    /// `catalog`: matched the catalog's own sha256; `first-use`: no hash known, this one is
    /// now recorded (trust on first use); `recorded`: matched the hash recorded on first
    /// use; `unpinned`: a branch archive, nothing to compare it with.
    pub trust: String,
}

/// Several sources, searched in order.
pub struct Catalog {
    sources: Vec<Box<dyn TemplateSource>>,
}

impl Catalog {
    pub fn new(sources: Vec<Box<dyn TemplateSource>>) -> Catalog {
        Catalog { sources }
    }

    /// The catalog compiled into this binary, parsed once per process.
    pub fn embedded() -> &'static Catalog {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(|| Catalog::new(vec![Box::new(embedded::EmbeddedSource::load())]))
    }

    pub fn sources(&self) -> impl Iterator<Item = &dyn TemplateSource> {
        self.sources.iter().map(|s| s.as_ref())
    }

    /// Every template of every source, in source order.
    pub fn templates(&self) -> impl Iterator<Item = &Template> {
        self.sources.iter().flat_map(|s| s.templates().iter())
    }

    /// Finds `slug` or `source:slug`.
    pub fn lookup(&self, name: &str) -> Result<(&dyn TemplateSource, &Template), CatalogError> {
        let name = name.trim();
        let (source, slug) = match name.split_once(':') {
            Some((source, slug)) => (Some(source), slug),
            None => (None, name),
        };
        let candidates: Vec<&dyn TemplateSource> = match source {
            Some(wanted) => {
                let found: Vec<_> = self.sources().filter(|s| s.name() == wanted).collect();
                if found.is_empty() {
                    return Err(CatalogError::UnknownSource {
                        source_name: wanted.to_owned(),
                        known: self.sources().map(|s| s.name().to_owned()).collect(),
                    });
                }
                found
            }
            None => self.sources().collect(),
        };
        for s in candidates {
            if let Some(t) = s.templates().iter().find(|t| t.slug == slug) {
                return Ok((s, t));
            }
        }
        Err(CatalogError::UnknownTemplate {
            name: name.to_owned(),
            closest: search::closest(self.templates().map(|t| t.slug.as_str()), slug, 3),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_accepts_source_prefix_and_suggests_closest() {
        let c = Catalog::embedded();
        let (s, t) = c.lookup("embedded:popup").unwrap();
        assert_eq!((s.name(), t.slug.as_str()), (EMBEDDED, "popup"));
        assert_eq!(c.lookup("sidebar").unwrap().1.source, EMBEDDED);
        match c.lookup("sidebarr") {
            Err(CatalogError::UnknownTemplate { closest, .. }) => assert_eq!(closest[0], "sidebar"),
            other => panic!("{other:?}", other = other.map(|(_, t)| &t.slug)),
        }
        assert!(matches!(c.lookup("remote:popup"), Err(CatalogError::UnknownSource { .. })));
    }
}
