//! Tool groups and what `tools/list` shows: [`Toolset`], the curated [`DEFAULT_TOOLS`], and
//! the [`Selection`] that `--toolsets`, the config file and `enable_toolsets` change.

use webext_mcp_host::protocol::ErrorBody;

use super::ToolDef;

/// A group of tools, by topic. `tools/list` shows the default tools (a curated few from
/// several groups, [`DEFAULT_TOOLS`]) plus every group the user turned on with `--toolsets`,
/// the config file or the `enable_toolsets` tool. Hidden tools stay callable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Toolset {
    /// The server itself and its installation: versions, configuration, doctor, install.
    Core,
    /// Template catalogs and creating projects.
    Templates,
    /// Building, validating and packaging the extension under development.
    Build,
    /// Dev sessions: run the extension in a browser, wait, stop, look inside.
    Dev,
    /// Installed and managed browsers: detect, list, install, remove.
    Browsers,
    /// Connected browsers and their tabs.
    Pages,
    /// Snapshots with refs.
    Snapshot,
    /// Acting on pages: clicks, fills, keys, waits, scripts.
    Input,
    /// Screenshots of pages and elements.
    Capture,
    /// Cookies and web storage.
    Storage,
    /// What pages logged and fetched: console messages and network requests.
    Observe,
    /// Diagnostics for developing webext-mcp.
    Debug,
}

/// Earlier names of groups, still accepted by `--toolsets`, config files and
/// `enable_toolsets`.
const ALIASES: [(&str, &[Toolset]); 2] = [
    ("extension", &[Toolset::Templates, Toolset::Build, Toolset::Dev]),
    (
        "browser",
        &[
            Toolset::Pages,
            Toolset::Snapshot,
            Toolset::Input,
            Toolset::Capture,
            Toolset::Storage,
            Toolset::Observe,
        ],
    ),
];

/// The tools `tools/list` shows when no group is turned on: what a first session needs for
/// both powers, within the 16 KB budget of a default `tools/list` (a test keeps it there).
pub const DEFAULT_TOOLS: &[&str] = &[
    "server_info",
    "get_config",
    "doctor",
    "enable_toolsets",
    "extension_list_templates",
    "extension_get_template_source",
    "extension_create",
    "extension_build",
    "extension_dev",
    "extension_wait",
    "extension_stop",
    "list_connected_browsers",
    "list_pages",
    "new_page",
    "navigate_page",
    "select_page",
    "take_snapshot",
    "click_by_uid",
    "fill_by_uid",
    "fill_form_by_uid",
    "press_key",
    "wait_for",
    "evaluate_script",
];

impl Toolset {
    pub const ALL: [Toolset; 12] = [
        Toolset::Core,
        Toolset::Templates,
        Toolset::Build,
        Toolset::Dev,
        Toolset::Browsers,
        Toolset::Pages,
        Toolset::Snapshot,
        Toolset::Input,
        Toolset::Capture,
        Toolset::Storage,
        Toolset::Observe,
        Toolset::Debug,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Toolset::Core => "core",
            Toolset::Templates => "templates",
            Toolset::Build => "build",
            Toolset::Dev => "dev",
            Toolset::Browsers => "browsers",
            Toolset::Pages => "pages",
            Toolset::Snapshot => "snapshot",
            Toolset::Input => "input",
            Toolset::Capture => "capture",
            Toolset::Storage => "storage",
            Toolset::Observe => "observe",
            Toolset::Debug => "debug",
        }
    }

    /// One line for `enable_toolsets` and `server_info`.
    pub const fn about(self) -> &'static str {
        match self {
            Toolset::Core => "server info, config, doctor, install/uninstall",
            Toolset::Templates => {
                "template catalogs, template sources, create a project, add a feature surface"
            }
            Toolset::Build => "build per browser, validate the manifest, inspect a build",
            Toolset::Dev => {
                "dev/start/preview sessions, wait, stop, source inspection; the session extension's logs, reload, eval, storage, pages"
            }
            Toolset::Browsers => "detect installed browsers, install and list managed ones",
            Toolset::Pages => {
                "connected browsers, tabs, navigation, Firefox containers, viewport size and emulation"
            }
            Toolset::Snapshot => "snapshots with refs, page text, find by text, ref to selector",
            Toolset::Input => "click, hover, fill, type, drag, keys, scroll, uploads, wait, scripts",
            Toolset::Capture => {
                "screenshots of a tab or an element, background tabs included, within a size budget"
            }
            Toolset::Storage => {
                "cookies (values hidden by default) and a tab's localStorage, sessionStorage, IndexedDB"
            }
            Toolset::Observe => {
                "console messages and network requests of a tab (both browsers, no debug port)"
            }
            Toolset::Debug => "echo and ping, for checking a client's wiring",
        }
    }

    /// The groups a name means: a group, an alias, or `all`.
    fn named(name: &str) -> Option<Vec<Toolset>> {
        if name == "all" {
            return Some(Toolset::ALL.to_vec());
        }
        if let Some(t) = Toolset::ALL.into_iter().find(|t| t.name() == name) {
            return Some(vec![t]);
        }
        ALIASES.iter().find(|(alias, _)| *alias == name).map(|(_, groups)| groups.to_vec())
    }

    fn unknown(name: &str) -> ErrorBody {
        let known: Vec<&str> = Toolset::ALL.iter().map(|t| t.name()).collect();
        ErrorBody::invalid_argument(format!("unknown toolset `{name}`"))
            .with_hint(format!("use `default`, `all` or any of: {}", known.join(", ")))
    }
}

/// Which tools `tools/list` shows: the default tools (unless `--toolsets` leaves out
/// `default`) and every tool of the groups turned on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub defaults: bool,
    pub groups: Vec<Toolset>,
}

impl Selection {
    /// Resolves names from `--toolsets` / config: `default`, `all`, group names and aliases.
    pub fn parse(names: &[String]) -> Result<Selection, ErrorBody> {
        let mut sel = Selection { defaults: names.is_empty(), groups: Vec::new() };
        for name in names {
            if name == "default" {
                sel.defaults = true;
            } else {
                sel.groups.extend(Toolset::named(name).ok_or_else(|| Toolset::unknown(name))?);
            }
        }
        sel.groups.sort();
        sel.groups.dedup();
        Ok(sel)
    }

    /// Turns on the groups `names` name. Returns the groups that were off.
    pub fn enable(&mut self, names: &[String]) -> Result<Vec<Toolset>, ErrorBody> {
        let mut wanted = Vec::new();
        for name in names {
            wanted.extend(Toolset::named(name).ok_or_else(|| Toolset::unknown(name))?);
        }
        let added: Vec<Toolset> = wanted.into_iter().filter(|t| !self.groups.contains(t)).collect();
        self.groups.extend(added.iter().copied());
        self.groups.sort();
        self.groups.dedup();
        let mut added = added;
        added.sort();
        added.dedup();
        Ok(added)
    }

    pub fn shows(&self, t: &ToolDef) -> bool {
        self.groups.contains(&t.toolset) || (self.defaults && DEFAULT_TOOLS.contains(&t.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolset_lists_resolve_with_the_old_names_as_aliases() {
        let parse =
            |names: &[&str]| Selection::parse(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        assert_eq!(parse(&[]).unwrap(), Selection { defaults: true, groups: vec![] });
        assert_eq!(parse(&["all"]).unwrap().groups, Toolset::ALL.to_vec());
        assert_eq!(
            parse(&["debug", "core"]).unwrap(),
            Selection { defaults: false, groups: vec![Toolset::Core, Toolset::Debug] }
        );
        assert_eq!(
            parse(&["default", "extension"]).unwrap(),
            Selection { defaults: true, groups: vec![Toolset::Templates, Toolset::Build, Toolset::Dev] }
        );
        assert_eq!(
            parse(&["browser"]).unwrap().groups,
            vec![
                Toolset::Pages,
                Toolset::Snapshot,
                Toolset::Input,
                Toolset::Capture,
                Toolset::Storage,
                Toolset::Observe
            ]
        );
        let err = parse(&["pages2"]).unwrap_err();
        assert!(err.message.contains("pages2") && err.hint.unwrap().contains("core"));
        let mut sel = parse(&[]).unwrap();
        assert_eq!(
            sel.enable(&["dev".into(), "extension".into()]).unwrap(),
            vec![Toolset::Templates, Toolset::Build, Toolset::Dev]
        );
        assert_eq!(sel.enable(&["dev".into()]).unwrap(), vec![]);
        assert!(sel.enable(&["nope".into()]).is_err());
    }
}
