//! The launcher seam: a session boots on whatever browser its [`Launcher`] gives it.

use std::sync::Mutex;

use super::super::fakes::{AnsweringHelper, Calls, FakeRunner, NoHelper, calls};
use super::*;
use crate::runner::ExtensionHandle;
use crate::session::run_config::RunConfig;

/// Hands out one [`FakeRunner`] and records the options it was asked to launch with.
struct FakeLauncher {
    runner: Mutex<Option<FakeRunner>>,
    asked: Mutex<Vec<RunnerOptions>>,
}

impl Launcher for FakeLauncher {
    fn launch(
        &self,
        _engine: Engine,
        opts: RunnerOptions,
    ) -> BoxFuture<'_, Result<Box<dyn Runner>, RunnerError>> {
        self.asked.lock().unwrap().push(opts);
        let runner = self.runner.lock().unwrap().take();
        Box::pin(async move {
            match runner {
                Some(r) => Ok(Box::new(r) as Box<dyn Runner>),
                None => Err(RunnerError::Script { message: "launched twice".into() }),
            }
        })
    }
}

impl Launcher for std::sync::Arc<FakeLauncher> {
    fn launch(
        &self,
        engine: Engine,
        opts: RunnerOptions,
    ) -> BoxFuture<'_, Result<Box<dyn Runner>, RunnerError>> {
        self.as_ref().launch(engine, opts)
    }
}

/// A session of `command` in `browser` for the project `tmp/p` (output in `tmp/p/dist`).
fn spec(tmp: &Path, command: Command, browser: &str, run_config: RunConfig) -> Spec {
    let project = tmp.join("p");
    Spec {
        command,
        out_dir: project.join("dist"),
        project,
        browser: browser.into(),
        binary: PathBuf::from(format!("/fake/{browser}")),
        profile: tmp.join("profile"),
        headless: true,
        starting_url: None,
        session_id: format!("s-{browser}"),
        owned: false,
        runtime_dir: tmp.join("rt"),
        node: None,
        allow_delegation: false,
        allow_npx: false,
        home: tmp.to_owned(),
        allow_eval: false,
        consent: Default::default(),
        run_config,
    }
}

/// A production build of `tmp/p` for `browser`: the output folder and the build in it.
fn production_build(tmp: &Path, browser: &str) -> (PathBuf, PathBuf) {
    let out_dir = tmp.join("p/dist");
    let dist = out_dir.join(browser);
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("manifest.json"), r#"{"manifest_version":3,"name":"x","version":"1"}"#).unwrap();
    (out_dir, dist)
}

/// A launcher handing out one fake browser whose `HOME` is `home`.
fn launcher(calls: &Calls, home: &Path, ext: ExtensionHandle) -> std::sync::Arc<FakeLauncher> {
    std::sync::Arc::new(FakeLauncher {
        runner: Mutex::new(Some(FakeRunner {
            calls: calls.clone(),
            home: home.to_owned(),
            pages: Vec::new(),
            refuse_load: false,
            ext,
        })),
        asked: Mutex::new(Vec::new()),
    })
}

#[tokio::test]
async fn preview_boots_on_the_launched_browser_and_loads_dist() {
    let tmp = tempfile::tempdir().unwrap();
    let (out_dir, dist) = production_build(tmp.path(), "chromium");
    let run_config = RunConfig {
        file: Some("extension.config.mjs".into()),
        browser_flags: vec!["--lang=de".into()],
        exclude_browser_flags: vec!["--window-size".into()],
        ..RunConfig::default()
    };
    let spec = spec(tmp.path(), Command::Preview, "chromium", run_config);
    let calls_seen = Calls::default();
    let ext = ExtensionHandle::detached(dist.clone(), "abcdefghijklmnopabcdefghijklmnop", false);
    let launcher = launcher(&calls_seen, tmp.path(), ext.clone());
    let helper = Box::new(NoHelper);
    let mut session = Session::open(spec, Box::new(launcher.clone()), helper).unwrap();
    session.boot().await.unwrap();
    let asked = launcher.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].binary.as_deref(), Some(Path::new("/fake/chromium")));
    assert_eq!(asked[0].profile_dir.as_deref(), Some(tmp.path().join("profile").as_path()));
    assert_eq!(asked[0].session.as_deref(), Some("s-chromium"));
    assert!(asked[0].headless);
    // The project's extension.config.* run keys reach the browser and ready.json.
    assert_eq!(asked[0].extra_args, ["--lang=de"]);
    assert_eq!(asked[0].exclude_args, ["--window-size"]);
    assert_eq!(
        session.live.ready.run_config.as_ref().map(|c| c.browser_flags.clone()),
        Some(vec!["--lang=de".to_owned()])
    );
    // The built extension first, then the helper (when this build embeds one).
    let seen = calls(&calls_seen);
    assert_eq!(seen.first().map(String::as_str), Some("load chromium"), "{seen:?}");
    if crate::helper::is_embedded(Engine::Chromium) {
        assert_eq!(seen.get(1).map(String::as_str), Some("load helper"), "{seen:?}");
    }
    assert_eq!(session.live.ready.status, Status::Ready);
    assert_eq!(session.live.ready.browser_pid, Some(4242));
    assert_eq!(session.live.ready.extension_id.as_deref(), Some(ext.id.as_str()));
    session.finish("test over").await;
    let ready = super::super::contract::read_ready(&contract_dir(&out_dir, "chromium")).unwrap();
    assert_eq!(ready.status, Status::Stopped);
}

/// Issue 25: a Firefox session reads host manifests only from its browser's own `HOME`
/// (`.mozilla/native-messaging-hosts/`), and the helper starts with the browser (an xpi in
/// the profile), so the manifest is among the files the runner writes there before the
/// start; a Chromium session's goes in the profile after the launch.
#[tokio::test]
async fn a_firefox_session_preloads_the_helper_with_its_host_manifest_in_home() {
    if !crate::helper::is_embedded(Engine::Gecko) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_, dist) = production_build(tmp.path(), "firefox");
    // A project's Gecko preferences reach the browser's profile.
    let run_config = RunConfig {
        file: Some("extension.config.js".into()),
        preferences: serde_json::Map::from_iter([("browser.startup.page".to_owned(), serde_json::json!(1))]),
        ..RunConfig::default()
    };
    let spec = spec(tmp.path(), Command::Preview, "firefox", run_config);
    let calls_seen = Calls::default();
    let ext = ExtensionHandle::detached(dist.clone(), "x@example.test", false);
    let launcher = launcher(&calls_seen, &tmp.path().join("browser-home"), ext);
    let helper = Box::new(NoHelper);
    let mut session = Session::open(spec, Box::new(launcher.clone()), helper).unwrap();
    session.boot().await.unwrap();
    let asked = launcher.asked.lock().unwrap()[0].clone();
    assert!(asked.devtools, "a session drives Firefox over its debugger");
    assert_eq!(asked.preferences.get("browser.startup.page"), Some(&serde_json::json!(1)));
    assert!(asked.extensions.iter().any(|d| d.ends_with("helper")), "{:?}", asked.extensions);
    let manifest = asked
        .home_files
        .iter()
        .find(|(rel, _)| rel.starts_with(".mozilla/native-messaging-hosts"))
        .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
        .expect("the host manifest for Firefox's HOME");
    assert!(
        manifest.contains("allowed_extensions")
            && manifest.contains(webext_mcp_host::protocol::HELPER_GECKO_ID),
        "{manifest}"
    );
    assert!(!tmp.path().join("profile/NativeMessagingHosts").exists());
    assert_eq!(calls(&calls_seen).first().map(String::as_str), Some("load firefox"));
    session.finish("test over").await;
}

/// Issue 47: a save made while a dev session starts (here: after its first build, before it
/// serves) is rebuilt and reloaded once the session is ready — the watcher's first picture
/// is taken before the build reads the sources, so the save cannot hide in it.
#[tokio::test]
async fn a_save_made_while_the_session_starts_is_rebuilt_once_it_is_ready() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("manifest.json"),
        r#"{"manifest_version":3,"name":"x","version":"1","background":{"service_worker":"background.js"}}"#,
    )
    .unwrap();
    std::fs::write(project.join("background.js"), "console.log('one')\n").unwrap();
    let spec = spec(tmp.path(), Command::Dev, "chromium", RunConfig::default());
    let calls_seen = Calls::default();
    let dist = project.join("dist/dev/chromium");
    let launcher =
        launcher(&calls_seen, tmp.path(), ExtensionHandle::detached(dist, "a".repeat(32).as_str(), false));
    let mut session = Session::open(spec, Box::new(launcher), Box::new(AnsweringHelper)).unwrap();
    session.boot().await.unwrap();
    assert_eq!(session.live.ready.status, Status::Ready, "{:?}", session.live.errors);
    std::fs::write(project.join("background.js"), "console.log('two, saved at once')\n").unwrap();
    let loads =
        || calls(&calls_seen).iter().filter(|c| c.starts_with("load ") && *c != "load helper").count();
    assert_eq!(loads(), 1, "{:?}", calls(&calls_seen));
    // Serve until the save was rebuilt and loaded again (or give up after 10 s).
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::select! {
            _ = session.serve() => {}
            _ = async { while loads() < 2 { tokio::time::sleep(Duration::from_millis(20)).await } } => {}
        }
    })
    .await;
    assert_eq!(loads(), 2, "the save was never rebuilt: {:?}", calls(&calls_seen));
    let built = std::fs::read_to_string(project.join("dist/dev/chromium/background.js")).unwrap_or_default();
    assert!(built.contains("two, saved at once"), "{built}");
    session.finish("test over").await;
}
