//! The launcher seam: a session boots on whatever browser its [`Launcher`] gives it.

use std::sync::Mutex;

use super::super::fakes::{Calls, FakeRunner, NoHelper, calls};
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

#[tokio::test]
async fn preview_boots_on_the_launched_browser_and_loads_dist() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    let out_dir = project.join("dist");
    let dist = out_dir.join("chromium");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("manifest.json"), r#"{"manifest_version":3,"name":"x","version":"1"}"#).unwrap();
    let spec = Spec {
        command: Command::Preview,
        project: project.clone(),
        browser: "chromium".into(),
        binary: PathBuf::from("/fake/chromium"),
        out_dir: out_dir.clone(),
        profile: tmp.path().join("profile"),
        headless: true,
        starting_url: None,
        session_id: "s-test".into(),
        owned: false,
        runtime_dir: tmp.path().join("rt"),
        node: None,
        allow_delegation: false,
        allow_npx: false,
        home: tmp.path().to_owned(),
        allow_eval: false,
        consent: Default::default(),
        run_config: RunConfig {
            file: Some("extension.config.mjs".into()),
            browser_flags: vec!["--lang=de".into()],
            exclude_browser_flags: vec!["--window-size".into()],
            ..RunConfig::default()
        },
    };
    let calls_seen = Calls::default();
    let ext = ExtensionHandle::detached(dist.clone(), "abcdefghijklmnopabcdefghijklmnop", false);
    let launcher = std::sync::Arc::new(FakeLauncher {
        runner: Mutex::new(Some(FakeRunner {
            calls: calls_seen.clone(),
            home: tmp.path().to_owned(),
            pages: Vec::new(),
            refuse_load: false,
            ext: ext.clone(),
        })),
        asked: Mutex::new(Vec::new()),
    });
    let helper = Box::new(NoHelper);
    let mut session = Session::open(spec, Box::new(launcher.clone()), helper).unwrap();
    session.boot().await.unwrap();
    let asked = launcher.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].binary.as_deref(), Some(Path::new("/fake/chromium")));
    assert_eq!(asked[0].profile_dir.as_deref(), Some(tmp.path().join("profile").as_path()));
    assert_eq!(asked[0].session.as_deref(), Some("s-test"));
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
    let project = tmp.path().join("p");
    let out_dir = project.join("dist");
    let dist = out_dir.join("firefox");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("manifest.json"), r#"{"manifest_version":3,"name":"x","version":"1"}"#).unwrap();
    let spec = Spec {
        command: Command::Preview,
        project: project.clone(),
        browser: "firefox".into(),
        binary: PathBuf::from("/fake/firefox"),
        out_dir: out_dir.clone(),
        profile: tmp.path().join("profile"),
        headless: true,
        starting_url: None,
        session_id: "s-ff".into(),
        owned: false,
        runtime_dir: tmp.path().join("rt"),
        node: None,
        allow_delegation: false,
        allow_npx: false,
        home: tmp.path().to_owned(),
        allow_eval: false,
        consent: Default::default(),
        // A project's Gecko preferences reach the browser's profile.
        run_config: RunConfig {
            file: Some("extension.config.js".into()),
            preferences: serde_json::Map::from_iter([(
                "browser.startup.page".to_owned(),
                serde_json::json!(1),
            )]),
            ..RunConfig::default()
        },
    };
    let calls_seen = Calls::default();
    let ext = ExtensionHandle::detached(dist.clone(), "x@example.test", false);
    let launcher = std::sync::Arc::new(FakeLauncher {
        runner: Mutex::new(Some(FakeRunner {
            calls: calls_seen.clone(),
            home: tmp.path().join("browser-home"),
            pages: Vec::new(),
            refuse_load: false,
            ext,
        })),
        asked: Mutex::new(Vec::new()),
    });
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
