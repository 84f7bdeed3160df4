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
    /// Worth knowing, not a problem a store or browser would raise (validation only).
    Info,
}

/// One row per kind of manifest or project problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FindingCode {
    /// No `manifest.json` in `src/` or the project root.
    ManifestNotFound,
    /// `manifest.json` is not valid JSON (comments are allowed); line and column given.
    ManifestJson,
    /// The top level of `manifest.json` is not an object, a field has the wrong type or an
    /// invalid value, or a `declarative_net_request` rule set is malformed.
    ManifestShape,
    /// A required field (`manifest_version`, `name`, `version`) is missing.
    ManifestMissingField,
    /// A file the manifest or one of its pages references does not exist.
    ManifestMissingFile,
    /// `manifest_version` that this browser does not load: 2 in a Chromium browser (which only
    /// loads MV3), or anything but 2 and 3.
    ManifestVersionUnsupported,
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
    /// `manifest.json` or a `messages.json` is larger than 1 MiB: refused without parsing.
    ManifestTooLarge,
    /// A key the browser does not know (a typo, or a key of another browser): ignored.
    ManifestUnknownKey,
    /// A key given twice in one object: the last value wins and the first is silently lost.
    ManifestDuplicateKey,
    /// Comments or trailing commas that the browser refuses when it loads the folder
    /// unbuilt (Firefox accepts `//` comments only); builds remove them.
    ManifestJsonLenient,
    /// `version` is not 1–4 dot-separated integers 0–65535 without leading zeros.
    ManifestVersionInvalid,
    /// A key that only means something in another manifest version (ignored in this one).
    ManifestKeyWrongVersion,
    /// A match pattern with a bad scheme, host wildcard or path.
    ManifestMatchPattern,
    /// A host pattern in `permissions` of an MV3 manifest, where browsers ignore it.
    ManifestHostInPermissions,
    /// A permission no browser knows.
    ManifestBadPermission,
    /// The content security policy allows `unsafe-eval` (MV3 refuses it; AMO flags it in MV2).
    ManifestCspUnsafeEval,
    /// The content security policy allows remote or inline scripts, which MV3 refuses.
    ManifestCspRemoteScript,
    /// `web_accessible_resources` of the wrong shape for the manifest version, or entries
    /// without `matches`/`extension_ids`, or match patterns with a path other than `/*`.
    ManifestWebAccessibleResources,
    /// A command shortcut that browsers refuse, or more than 4 suggested shortcuts.
    ManifestCommands,
    /// An icon whose pixel size does not match its key, or that is not square.
    ManifestIconSize,
    /// `_locales/` exists but `default_locale` is not set (Chrome refuses to load).
    ManifestNoDefaultLocale,
    /// A `$placeholder$` used in a message but not declared in its `placeholders`, or
    /// declared and never used.
    ManifestPlaceholder,
    /// A key the browser does not support (MDN browser-compat-data): ignored there.
    ManifestKeyUnsupported,
    /// A permission the browser does not support (MDN browser-compat-data).
    ManifestPermissionUnsupported,
    /// The declared minimum browser version is lower than what the manifest or code uses.
    ManifestMinVersion,
    /// No `browser_specific_settings.gecko.id`: Firefox add-ons need one to be signed (MV3),
    /// and `storage.sync` and native messaging need it even unsigned.
    ManifestGeckoIdMissing,
    /// No `browser_specific_settings.gecko.data_collection_permissions`: required for new
    /// add-ons on addons.mozilla.org.
    ManifestDataCollectionMissing,
    /// A referenced file has the wrong kind (an image where a page belongs, …).
    ManifestFileKind,
    /// Extension code uses an API whose permission the manifest does not declare, or a key
    /// needs a permission it lacks (rule sets without `declarativeNetRequest`, `side_panel`
    /// without `sidePanel`).
    ManifestApiPermissionMissing,
    /// A permission the extension's code never uses (store review asks why it is there).
    ManifestPermissionUnused,
    /// Extension code uses an API the browser does not have.
    ManifestApiUnsupported,
    /// `eval`, `new Function` or a string passed to `setTimeout`/`setInterval`.
    ManifestDangerousEval,
    /// Code loaded from outside the package (a remote `<script src>`, `importScripts` or
    /// `import()` of a URL): refused by MV3 and by store review.
    ManifestRemoteCode,
    /// A script that does not parse: the browser would fail on it.
    ManifestScriptSyntax,
    /// An import the native bundler cannot resolve (a missing file, an uninstalled package).
    ManifestUnresolvedImport,
    /// A module the native bundler cannot bundle: a syntax error, top-level `await` in a
    /// classic context, a file too large.
    ManifestBundle,
    /// HTML built from a non-literal value (`innerHTML =`, `insertAdjacentHTML`,
    /// `document.write`), or an inline event handler in an MV3 page: store review flags the
    /// first, MV3's CSP blocks the second.
    ManifestUnsafeHtml,
    /// An MV2 build converted MV3-shaped keys the way Extension.js does: `host_permissions`
    /// into `permissions`, an object `content_security_policy` into its `extension_pages`
    /// string, object `web_accessible_resources` into their resource paths.
    ManifestConvertedForMv2,
}

impl FindingCode {
    /// Every code, in table order.
    pub const ALL: [FindingCode; 49] = [
        FindingCode::ManifestNotFound,
        FindingCode::ManifestJson,
        FindingCode::ManifestShape,
        FindingCode::ManifestMissingField,
        FindingCode::ManifestMissingFile,
        FindingCode::ManifestVersionUnsupported,
        FindingCode::ManifestEsmInClassicScript,
        FindingCode::ManifestNeedsCompile,
        FindingCode::ManifestBundlerConfig,
        FindingCode::ManifestFrameworkDependency,
        FindingCode::ManifestLocaleMissing,
        FindingCode::ManifestMessageMissing,
        FindingCode::ManifestUnknownPrefix,
        FindingCode::ManifestPathOutside,
        FindingCode::ManifestBackgroundScriptsJoined,
        FindingCode::ManifestConvertedForMv2,
        FindingCode::ManifestConfigValue,
        FindingCode::ManifestProcessEnv,
        FindingCode::ManifestTooLarge,
        FindingCode::ManifestUnknownKey,
        FindingCode::ManifestDuplicateKey,
        FindingCode::ManifestJsonLenient,
        FindingCode::ManifestVersionInvalid,
        FindingCode::ManifestKeyWrongVersion,
        FindingCode::ManifestMatchPattern,
        FindingCode::ManifestHostInPermissions,
        FindingCode::ManifestBadPermission,
        FindingCode::ManifestCspUnsafeEval,
        FindingCode::ManifestCspRemoteScript,
        FindingCode::ManifestWebAccessibleResources,
        FindingCode::ManifestCommands,
        FindingCode::ManifestIconSize,
        FindingCode::ManifestNoDefaultLocale,
        FindingCode::ManifestPlaceholder,
        FindingCode::ManifestKeyUnsupported,
        FindingCode::ManifestPermissionUnsupported,
        FindingCode::ManifestMinVersion,
        FindingCode::ManifestGeckoIdMissing,
        FindingCode::ManifestDataCollectionMissing,
        FindingCode::ManifestFileKind,
        FindingCode::ManifestApiPermissionMissing,
        FindingCode::ManifestPermissionUnused,
        FindingCode::ManifestApiUnsupported,
        FindingCode::ManifestDangerousEval,
        FindingCode::ManifestRemoteCode,
        FindingCode::ManifestScriptSyntax,
        FindingCode::ManifestUnresolvedImport,
        FindingCode::ManifestBundle,
        FindingCode::ManifestUnsafeHtml,
    ];

    /// The stable spelling, e.g. `MANIFEST_JSON`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingCode::ManifestNotFound => "MANIFEST_NOT_FOUND",
            FindingCode::ManifestJson => "MANIFEST_JSON",
            FindingCode::ManifestShape => "MANIFEST_SHAPE",
            FindingCode::ManifestMissingField => "MANIFEST_MISSING_FIELD",
            FindingCode::ManifestMissingFile => "MANIFEST_MISSING_FILE",
            FindingCode::ManifestVersionUnsupported => "MANIFEST_VERSION_UNSUPPORTED",
            FindingCode::ManifestEsmInClassicScript => "MANIFEST_ESM_IN_CLASSIC_SCRIPT",
            FindingCode::ManifestNeedsCompile => "MANIFEST_NEEDS_COMPILE",
            FindingCode::ManifestBundlerConfig => "MANIFEST_BUNDLER_CONFIG",
            FindingCode::ManifestFrameworkDependency => "MANIFEST_FRAMEWORK_DEPENDENCY",
            FindingCode::ManifestLocaleMissing => "MANIFEST_LOCALE_MISSING",
            FindingCode::ManifestMessageMissing => "MANIFEST_MESSAGE_MISSING",
            FindingCode::ManifestUnknownPrefix => "MANIFEST_UNKNOWN_PREFIX",
            FindingCode::ManifestPathOutside => "MANIFEST_PATH_OUTSIDE",
            FindingCode::ManifestBackgroundScriptsJoined => "MANIFEST_BACKGROUND_SCRIPTS_JOINED",
            FindingCode::ManifestConvertedForMv2 => "MANIFEST_CONVERTED_FOR_MV2",
            FindingCode::ManifestConfigValue => "MANIFEST_CONFIG_VALUE",
            FindingCode::ManifestProcessEnv => "MANIFEST_PROCESS_ENV",
            FindingCode::ManifestTooLarge => "MANIFEST_TOO_LARGE",
            FindingCode::ManifestUnknownKey => "MANIFEST_UNKNOWN_KEY",
            FindingCode::ManifestDuplicateKey => "MANIFEST_DUPLICATE_KEY",
            FindingCode::ManifestJsonLenient => "MANIFEST_JSON_LENIENT",
            FindingCode::ManifestVersionInvalid => "MANIFEST_VERSION_INVALID",
            FindingCode::ManifestKeyWrongVersion => "MANIFEST_KEY_WRONG_VERSION",
            FindingCode::ManifestMatchPattern => "MANIFEST_MATCH_PATTERN",
            FindingCode::ManifestHostInPermissions => "MANIFEST_HOST_IN_PERMISSIONS",
            FindingCode::ManifestBadPermission => "MANIFEST_BAD_PERMISSION",
            FindingCode::ManifestCspUnsafeEval => "MANIFEST_CSP_UNSAFE_EVAL",
            FindingCode::ManifestCspRemoteScript => "MANIFEST_CSP_REMOTE_SCRIPT",
            FindingCode::ManifestWebAccessibleResources => "MANIFEST_WEB_ACCESSIBLE_RESOURCES",
            FindingCode::ManifestCommands => "MANIFEST_COMMANDS",
            FindingCode::ManifestIconSize => "MANIFEST_ICON_SIZE",
            FindingCode::ManifestNoDefaultLocale => "MANIFEST_NO_DEFAULT_LOCALE",
            FindingCode::ManifestPlaceholder => "MANIFEST_PLACEHOLDER",
            FindingCode::ManifestKeyUnsupported => "MANIFEST_KEY_UNSUPPORTED",
            FindingCode::ManifestPermissionUnsupported => "MANIFEST_PERMISSION_UNSUPPORTED",
            FindingCode::ManifestMinVersion => "MANIFEST_MIN_VERSION",
            FindingCode::ManifestGeckoIdMissing => "MANIFEST_GECKO_ID_MISSING",
            FindingCode::ManifestDataCollectionMissing => "MANIFEST_DATA_COLLECTION_MISSING",
            FindingCode::ManifestFileKind => "MANIFEST_FILE_KIND",
            FindingCode::ManifestApiPermissionMissing => "MANIFEST_API_PERMISSION_MISSING",
            FindingCode::ManifestPermissionUnused => "MANIFEST_PERMISSION_UNUSED",
            FindingCode::ManifestApiUnsupported => "MANIFEST_API_UNSUPPORTED",
            FindingCode::ManifestDangerousEval => "MANIFEST_DANGEROUS_EVAL",
            FindingCode::ManifestRemoteCode => "MANIFEST_REMOTE_CODE",
            FindingCode::ManifestScriptSyntax => "MANIFEST_SCRIPT_SYNTAX",
            FindingCode::ManifestUnresolvedImport => "MANIFEST_UNRESOLVED_IMPORT",
            FindingCode::ManifestBundle => "MANIFEST_BUNDLE",
            FindingCode::ManifestUnsafeHtml => "MANIFEST_UNSAFE_HTML",
        }
    }

    /// Default severity of the code.
    pub const fn severity(self) -> Severity {
        match self {
            FindingCode::ManifestMessageMissing
            | FindingCode::ManifestUnknownPrefix
            | FindingCode::ManifestBackgroundScriptsJoined
            | FindingCode::ManifestConvertedForMv2
            | FindingCode::ManifestConfigValue
            | FindingCode::ManifestUnknownKey
            | FindingCode::ManifestDuplicateKey
            | FindingCode::ManifestJsonLenient
            | FindingCode::ManifestKeyWrongVersion
            | FindingCode::ManifestBadPermission
            | FindingCode::ManifestIconSize
            | FindingCode::ManifestKeyUnsupported
            | FindingCode::ManifestPermissionUnsupported
            | FindingCode::ManifestMinVersion
            | FindingCode::ManifestGeckoIdMissing
            | FindingCode::ManifestDataCollectionMissing
            | FindingCode::ManifestPermissionUnused
            | FindingCode::ManifestApiUnsupported
            | FindingCode::ManifestUnsafeHtml => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// Whether an error of this code stops `extension_build`: the manifest rules that make a
    /// browser refuse the extension at load time (the build's blocking subset of what
    /// `extension_manifest_validate` reports, under the same codes). Code-level findings
    /// (permissions, eval) and store-review findings never stop a build.
    pub const fn blocks_build(self) -> bool {
        matches!(
            self,
            FindingCode::ManifestShape
                | FindingCode::ManifestMissingField
                | FindingCode::ManifestVersionUnsupported
                | FindingCode::ManifestVersionInvalid
                | FindingCode::ManifestMatchPattern
                | FindingCode::ManifestCspUnsafeEval
                | FindingCode::ManifestCspRemoteScript
                | FindingCode::ManifestWebAccessibleResources
                | FindingCode::ManifestCommands
                | FindingCode::ManifestTooLarge
        )
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
    /// The browsers the finding applies to, when not every browser checked (validation).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub browsers: Vec<String>,
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
            browsers: Vec::new(),
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

    /// The same finding with another severity (a rule whose severity depends on context).
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
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

    /// docs/manifest-findings.md lists every code exactly once, and nothing else.
    #[test]
    fn every_finding_code_is_documented_once() {
        let doc = include_str!("../../../docs/manifest-findings.md");
        let listed: Vec<&str> = doc
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .filter(|c| c.starts_with("MANIFEST_"))
            .collect();
        let mut seen = std::collections::HashSet::new();
        for c in &listed {
            assert!(seen.insert(*c), "{c} is documented twice");
            assert!(FindingCode::ALL.iter().any(|k| k.as_str() == *c), "{c} is documented but is no code");
        }
        for code in FindingCode::ALL {
            assert!(seen.contains(code.as_str()), "{code} is not in docs/manifest-findings.md");
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
