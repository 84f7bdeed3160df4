//! The manifest findings table: every `MANIFEST_*` code, what it means and whether it stops
//! a build. A namespace of its own, separate from the error codes of DESIGN.md "Errors": an
//! error says a call failed (`BUILD_FAILED`), findings say why, with the JSON path and the fix.
//!
//! Codes are added, never reused for another meaning.

use serde::Serialize;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The extension would not load or not work: a build stops.
    Error,
    /// Worth fixing; the build goes on.
    Warning,
}

/// One row per kind of manifest or project problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FindingCode {
    /// No `manifest.json` in `src/` or the project root.
    ManifestNotFound,
    /// `manifest.json` is not valid JSON (comments are allowed); line and column given.
    ManifestJson,
    /// The top level of `manifest.json` is not an object, or a field has the wrong type.
    ManifestShape,
    /// A required field (`manifest_version`, `name`, `version`) is missing.
    ManifestMissingField,
    /// A file the manifest or one of its pages references does not exist.
    ManifestMissingFile,
    /// `manifest_version` 2 for a Chromium target, which only loads MV3.
    ManifestMv2OnChromium,
    /// A script loaded as a classic script uses `import`/`export`/`import.meta`.
    ManifestEsmInClassicScript,
    /// A referenced file needs compiling first (TypeScript, JSX, Sass, Vue, Svelte…).
    ManifestNeedsCompile,
    /// The project has a bundler configuration (`extension.config.js`, `wxt.config.ts`…).
    ManifestBundlerConfig,
    /// The project depends on a UI framework or CSS toolchain that needs a bundler.
    ManifestFrameworkDependency,
    /// `default_locale` is set but `_locales/<locale>/messages.json` is missing or broken.
    ManifestLocaleMissing,
    /// A `__MSG_name__` placeholder has no message in the default locale.
    ManifestMessageMissing,
    /// A key prefix names no browser known to the resolver; the key is dropped.
    ManifestUnknownPrefix,
    /// A referenced path leaves the extension folder or is absolute, or a file the build would
    /// copy or read resolves (through a symlink) outside the project.
    ManifestPathOutside,
    /// Several Chromium MV3 background scripts were joined by a generated service worker.
    ManifestBackgroundScriptsJoined,
    /// A run-time value in `extension.config.*` cannot be read without running the config.
    ManifestConfigValue,
    /// A `process.env.*` reference would remain in the output, where browsers have no
    /// `process` (a `ReferenceError` at run time).
    ManifestProcessEnv,
    /// An import the native bundler cannot resolve (a missing file, an uninstalled package).
    ManifestUnresolvedImport,
    /// A module the native bundler cannot bundle: a syntax error, top-level `await` in a
    /// classic context, a file too large.
    ManifestBundle,
}

impl FindingCode {
    /// Every code, in table order.
    pub const ALL: [FindingCode; 19] = [
        FindingCode::ManifestNotFound,
        FindingCode::ManifestJson,
        FindingCode::ManifestShape,
        FindingCode::ManifestMissingField,
        FindingCode::ManifestMissingFile,
        FindingCode::ManifestMv2OnChromium,
        FindingCode::ManifestEsmInClassicScript,
        FindingCode::ManifestNeedsCompile,
        FindingCode::ManifestBundlerConfig,
        FindingCode::ManifestFrameworkDependency,
        FindingCode::ManifestLocaleMissing,
        FindingCode::ManifestMessageMissing,
        FindingCode::ManifestUnknownPrefix,
        FindingCode::ManifestPathOutside,
        FindingCode::ManifestBackgroundScriptsJoined,
        FindingCode::ManifestConfigValue,
        FindingCode::ManifestProcessEnv,
        FindingCode::ManifestUnresolvedImport,
        FindingCode::ManifestBundle,
    ];

    /// The stable spelling, e.g. `MANIFEST_JSON`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingCode::ManifestNotFound => "MANIFEST_NOT_FOUND",
            FindingCode::ManifestJson => "MANIFEST_JSON",
            FindingCode::ManifestShape => "MANIFEST_SHAPE",
            FindingCode::ManifestMissingField => "MANIFEST_MISSING_FIELD",
            FindingCode::ManifestMissingFile => "MANIFEST_MISSING_FILE",
            FindingCode::ManifestMv2OnChromium => "MANIFEST_MV2_ON_CHROMIUM",
            FindingCode::ManifestEsmInClassicScript => "MANIFEST_ESM_IN_CLASSIC_SCRIPT",
            FindingCode::ManifestNeedsCompile => "MANIFEST_NEEDS_COMPILE",
            FindingCode::ManifestBundlerConfig => "MANIFEST_BUNDLER_CONFIG",
            FindingCode::ManifestFrameworkDependency => "MANIFEST_FRAMEWORK_DEPENDENCY",
            FindingCode::ManifestLocaleMissing => "MANIFEST_LOCALE_MISSING",
            FindingCode::ManifestMessageMissing => "MANIFEST_MESSAGE_MISSING",
            FindingCode::ManifestUnknownPrefix => "MANIFEST_UNKNOWN_PREFIX",
            FindingCode::ManifestPathOutside => "MANIFEST_PATH_OUTSIDE",
            FindingCode::ManifestBackgroundScriptsJoined => "MANIFEST_BACKGROUND_SCRIPTS_JOINED",
            FindingCode::ManifestConfigValue => "MANIFEST_CONFIG_VALUE",
            FindingCode::ManifestProcessEnv => "MANIFEST_PROCESS_ENV",
            FindingCode::ManifestUnresolvedImport => "MANIFEST_UNRESOLVED_IMPORT",
            FindingCode::ManifestBundle => "MANIFEST_BUNDLE",
        }
    }

    /// Default severity of the code.
    pub const fn severity(self) -> Severity {
        match self {
            FindingCode::ManifestMessageMissing
            | FindingCode::ManifestUnknownPrefix
            | FindingCode::ManifestBackgroundScriptsJoined
            | FindingCode::ManifestConfigValue => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// Whether the code says "this project needs its own toolchain" rather than "this
    /// project is broken": such findings route a build to delegation instead of failing it.
    pub const fn needs_toolchain(self) -> bool {
        matches!(
            self,
            FindingCode::ManifestEsmInClassicScript
                | FindingCode::ManifestNeedsCompile
                | FindingCode::ManifestBundlerConfig
                | FindingCode::ManifestFrameworkDependency
        )
    }
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem: its code, where it is, and how to fix it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: FindingCode,
    pub severity: Severity,
    pub message: String,
    /// JSON path into the manifest, e.g. `background.service_worker` or `content_scripts[0].js[1]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The file the finding is about, relative to the project root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What to do about it.
    pub fix: String,
}

impl Finding {
    pub fn new(code: FindingCode, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Finding {
            code,
            severity: code.severity(),
            message: message.into(),
            path: None,
            file: None,
            line: None,
            column: None,
            fix: fix.into(),
        }
    }

    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    pub fn at_position(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `CODE at path: message`, for logs and one-line summaries.
    pub fn line_text(&self) -> String {
        let mut s = self.code.as_str().to_owned();
        if let Some(p) = &self.path {
            s.push_str(&format!(" at {p}"));
        } else if let Some(f) = &self.file {
            s.push_str(&format!(" in {f}"));
        }
        s.push_str(": ");
        s.push_str(&self.message);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_prefixed_and_match_serde() {
        let mut seen = std::collections::HashSet::new();
        for code in FindingCode::ALL {
            assert!(code.as_str().starts_with("MANIFEST_"), "{code}");
            assert!(seen.insert(code.as_str()), "duplicate {code}");
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }

    #[test]
    fn finding_serializes_compactly() {
        let f = Finding::new(FindingCode::ManifestJson, "expected `,`", "add the comma")
            .in_file("manifest.json")
            .at_position(3, 5);
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["code"], "MANIFEST_JSON");
        assert_eq!(v["severity"], "error");
        assert_eq!(v["line"], 3);
        assert!(v.get("path").is_none());
    }
}
