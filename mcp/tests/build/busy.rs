//! `BUSY` when another process holds the build lock, naming the holder.

use webext_mcp::lock::Lock;

use super::Project;

#[test]
fn busy_names_the_lock_holder_and_other_browsers_still_build() {
    let p = Project::fixture("popup-background");
    let dist = p.path().join("dist");
    let held = Lock::acquire(&dist, "chrome", Some("dev-session-7")).unwrap();

    let run = p.build(&["--browser", "chrome"]);
    let (code, err) = run.error();
    assert_eq!(code, "BUSY");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains(&format!("pid {}", std::process::id())), "{message}");
    assert!(message.contains("dev-session-7"), "{message}");
    assert_eq!(err["data"]["holder"]["session"], "dev-session-7");
    assert!(!dist.join("chrome").exists(), "nothing is written while the lock is held");

    // The lock is per browser.
    p.build(&["--browser", "firefox"]).builds();

    drop(held);
    p.build(&["--browser", "chrome"]).builds();
}
