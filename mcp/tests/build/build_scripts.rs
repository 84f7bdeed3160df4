//! A `package.json` `build` script that cannot be used: one that runs `extension` where no
//! Extension.js is installed (it would exit 127), and one that runs `webext-mcp build` (it
//! would build the project again inside itself). Both go to the pinned Extension.js through
//! npx instead (a stand-in `npx` here), in the folder the script would have built, with the
//! reason and the command in the result and Extension.js's telemetry off.

use serde_json::Value;

use super::Project;
use super::delegation::executable;

/// A stand-in `npx`: records its folder, its arguments and the telemetry switch, then writes
/// `dist/<browser>/` for each browser of `--browser a,b`, as Extension.js would.
const FAKE_NPX: &str = r#"#!/bin/sh
set -e
echo "$(pwd)|$*|telemetry-disabled=$EXTENSION_TELEMETRY_DISABLED" >> "$RUNS_LOG"
list=""
while [ $# -gt 0 ]; do
  case "$1" in
    --browser=*) list="${1#--browser=}" ;;
    --browser) shift; list="$1" ;;
  esac
  shift
done
echo "Extension.js notice: telemetry is off"
for b in $(echo "$list" | tr ',' ' '); do
  mkdir -p "dist/$b"
  printf '{"manifest_version":3,"name":"Mono","version":"0.1.0"}' > "dist/$b/manifest.json"
done
"#;

const MANIFEST: &str = r#"{"manifest_version":3,"name":"Mono","version":"0.1.0","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"],"css":["look.less"]}]}"#;

/// The extension package at `dir`: a manifest in `src/`, a stylesheet only a toolchain
/// compiles (Less), and its own `build` script running Extension.js.
fn extension_package(p: &Project, dir: &str) {
    p.write(&format!("{dir}/src/manifest.json"), MANIFEST)
        .write(&format!("{dir}/src/content.js"), "console.log('mono');\n")
        .write(&format!("{dir}/src/look.less"), "@c: red;\nbody { color: @c }\n")
        .write(
            &format!("{dir}/package.json"),
            r#"{"name":"ext","private":true,"scripts":{"build":"extension build"}}"#,
        );
}

/// Runs with the stand-in npx and Node.js 22.12 on hand, npx allowed.
fn build_with_npx(p: &Project, npx_allowed: bool) -> super::Run {
    executable(p, "bin/node", "#!/bin/sh\necho v22.12.0\n");
    executable(p, "bin/npx", FAKE_NPX);
    let node = p.path().join("bin/node");
    let log = p.path().join("runs.log");
    let env = [
        ("WEBEXT_MCP_NODE", node.to_str().unwrap()),
        ("WEBEXT_MCP_BUILD_ALLOW_NPX", if npx_allowed { "true" } else { "false" }),
        ("RUNS_LOG", log.to_str().unwrap()),
    ];
    p.build_env(&["--browser", "chrome"], &env)
}

fn runs(p: &Project) -> Vec<String> {
    std::fs::read_to_string(p.path().join("runs.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn delegation(run: &super::Run) -> Value {
    let b = run.build_for("chrome");
    assert_eq!(b["pipeline"], "delegated", "{b:#}");
    b["delegation"].clone()
}

#[test]
fn an_npm_monorepo_whose_script_runs_an_uninstalled_extension_builds_with_the_pinned_one() {
    let p = Project::empty();
    p.write(
        "package.json",
        r#"{"name":"mono","private":true,"workspaces":["packages/*"],"scripts":{"build":"extension build packages/extension"}}"#,
    );
    extension_package(&p, "packages/extension");
    let run = build_with_npx(&p, true);
    let pkg = p.path().join("packages/extension");
    assert_eq!(
        runs(&p),
        [format!("{}|--yes extension@4.1.x build --browser chrome|telemetry-disabled=1", pkg.display())]
    );
    let d = delegation(&run);
    assert_eq!(d["toolchain"], "Extension.js (through npx)", "{d:#}");
    assert!(
        d["command"].as_str().unwrap().ends_with("--yes extension@4.1.x build --browser chrome"),
        "{d:#}"
    );
    let reason = d["reason"].as_str().unwrap();
    assert!(reason.contains("packages/extension") && reason.contains("exit 127"), "{reason}");
    assert!(d["outputTail"].to_string().contains("Extension.js notice"), "{d:#}");
    assert!(p.path().join("dist/chrome/manifest.json").is_file());

    // Without npx it says why the script is not run, and how to allow npx.
    let off = build_with_npx(&p, false);
    let (code, err) = off.error();
    assert_eq!(code, "BUILD_FAILED", "{err:#}");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("not installed") && message.contains("allowNpx"), "{message}");
}

#[test]
fn a_pnpm_monorepo_whose_root_runs_an_uninstalled_task_runner_builds_the_extension_package() {
    let p = Project::empty();
    p.write("package.json", r#"{"name":"mono","private":true,"scripts":{"build":"nx build ext"}}"#)
        .write("pnpm-workspace.yaml", "packages:\n  - 'apps/*'\n")
        .write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
    extension_package(&p, "apps/ext");
    let run = build_with_npx(&p, true);
    let pkg = p.path().join("apps/ext");
    let got = runs(&p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with(&format!("{}|--yes extension@4.1.x build", pkg.display())), "{got:?}");
    assert!(delegation(&run)["reason"].as_str().unwrap().contains("`nx`"), "{:#}", delegation(&run));
}

#[test]
fn a_build_script_that_is_webext_mcp_build_is_never_run() {
    let p = Project::empty();
    extension_package(&p, ".");
    p.write(
        "package.json",
        r#"{"name":"ext","private":true,"scripts":{"build":"touch script-ran && webext-mcp build . --browser chrome"}}"#,
    );
    let run = build_with_npx(&p, true);
    assert!(!p.path().join("script-ran").exists(), "the build script ran");
    assert_eq!(runs(&p).len(), 1);
    let reason = delegation(&run)["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("runs webext-mcp itself"), "{reason}");

    // The plain text (the CLI's, the MCP text) says why and what ran.
    let log = p.path().join("runs.log");
    let out = std::process::Command::new(super::bin())
        .arg("--home")
        .arg(p.home.path())
        .arg("build")
        .arg(p.path())
        .args(["--browser", "chrome"])
        .env("WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS", "1")
        .env("WEBEXT_MCP_BUILD_ALLOW_NPX", "true")
        .env("WEBEXT_MCP_NODE", p.path().join("bin/node"))
        .env("RUNS_LOG", &log)
        .env("WEBEXT_MCP_RUNTIME_DIR", p.home.path().join("run"))
        .env_remove("WEBEXT_MCP_DELEGATED")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("delegated to Extension.js (through npx) because"), "{text}");
    assert!(
        text.contains("ran: ") && text.contains("--yes extension@4.1.x build --browser chrome"),
        "{text}"
    );

    let off = build_with_npx(&p, false);
    let (code, err) = off.error();
    assert_eq!(code, "BUILD_FAILED", "{err:#}");
    assert!(err["message"].as_str().unwrap().contains("runs webext-mcp itself"), "{err:#}");
    assert!(!p.path().join("script-ran").exists(), "the build script ran");
}

/// The text an MCP client and the CLI print carries the toolchain's error, not only
/// `outputTail` of the JSON.
#[test]
fn a_failed_toolchain_shows_its_output_in_the_plain_text() {
    let p = super::delegation::esm_project();
    p.write("package.json", r#"{"name":"esm-project","scripts":{"build":"sh ./fail.sh"}}"#);
    executable(
        &p,
        "fail.sh",
        "#!/bin/sh\necho 'compiling…'\nprintf '\\033[31mboom: cannot resolve ./lib.js\\033[0m\\n' >&2\nexit 3\n",
    );
    let out = std::process::Command::new(super::bin())
        .arg("--home")
        .arg(p.home.path())
        .arg("build")
        .arg(p.path())
        .env("WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS", "1")
        .env("WEBEXT_MCP_BUILD_ALLOW_NPX", "false")
        .env("WEBEXT_MCP_RUNTIME_DIR", p.home.path().join("run"))
        .env_remove("WEBEXT_MCP_DELEGATED")
        .output()
        .unwrap();
    let shown = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_ne!(out.status.code(), Some(0));
    assert!(shown.contains("boom: cannot resolve ./lib.js"), "{shown}");
    assert!(!shown.contains("\u{1b}["), "colours are taken out: {shown}");
    assert!(!shown.contains("read outputTail"), "{shown}");
}
