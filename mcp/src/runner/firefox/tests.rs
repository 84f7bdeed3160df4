use super::*;
use prefs::user_js;

#[test]
fn uuids_are_fixed_and_well_formed() {
    let u = uuid_for("t@example.test");
    assert_eq!(u, uuid_for("t@example.test"));
    assert_ne!(u, uuid_for("other@example.test"));
    let parts: Vec<usize> = u.split('-').map(str::len).collect();
    assert_eq!(parts, [8, 4, 4, 4, 12]);
    assert_eq!(&u[14..15], "4");
}

#[test]
fn xpi_gets_a_generated_gecko_id_when_missing() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("manifest.json"),
        r#"{"manifest_version":3,"name":"x","version":"1","background":{"scripts":["bg.js"]}}"#,
    )
    .unwrap();
    std::fs::create_dir(src.path().join("lib")).unwrap();
    std::fs::write(src.path().join("lib/bg.js"), "1").unwrap();
    let p = install_xpi(src.path(), out.path()).unwrap();
    assert!(p.gecko_id.ends_with("@webext-mcp.local"));
    assert_eq!(p.gecko_id, install_xpi(src.path(), out.path()).unwrap().gecko_id);
    let file = std::fs::File::open(out.path().join(format!("{}.xpi", p.gecko_id))).unwrap();
    let mut zip = zip::ZipArchive::new(file).unwrap();
    assert!(zip.by_name("lib/bg.js").is_ok());
    let mut text = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("manifest.json").unwrap(), &mut text).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(m["browser_specific_settings"]["gecko"]["id"], p.gecko_id.as_str());
    assert!(p.background_url.unwrap().ends_with(GENERATED_BACKGROUND));
}

#[test]
fn user_js_quotes_the_uuid_map() {
    let p: BTreeMap<String, String> = [("a@b".to_owned(), "u".to_owned())].into();
    let js = user_js(&p, false, false, &serde_json::Map::new());
    assert!(js.contains(r#"user_pref("extensions.webextensions.uuids", "{\"a@b\":\"u\"}");"#), "{js}");
    assert!(js.contains(r#"user_pref("xpinstall.signatures.required", false);"#));
    assert!(!js.contains("marionette") && !js.contains("devtools.debugger"), "{js}");
    assert!(
        user_js(&p, true, false, &serde_json::Map::new()).contains(r#"user_pref("marionette.port", 0);"#)
    );
    let debug = user_js(&p, false, true, &serde_json::Map::new());
    assert!(debug.contains(r#"user_pref("devtools.debugger.prompt-connection", false);"#), "{debug}");
    // A project's preferences (vetted elsewhere) come last, so they win.
    let mut extra = serde_json::Map::new();
    extra.insert("browser.startup.page".into(), json!(1));
    let js = user_js(&p, false, false, &extra);
    assert!(js.trim_end().ends_with(r#"user_pref("browser.startup.page", 1);"#), "{js}");
}

#[test]
fn planned_extensions_get_the_uuid_their_load_uses() {
    let with_id = tempfile::tempdir().unwrap();
    std::fs::write(
        with_id.path().join("manifest.json"),
        r#"{"manifest_version":3,"name":"x","version":"1","browser_specific_settings":{"gecko":{"id":"x@t"}}}"#,
    )
    .unwrap();
    let without = tempfile::tempdir().unwrap();
    std::fs::write(
        without.path().join("manifest.json"),
        r#"{"manifest_version":3,"name":"y","version":"1"}"#,
    )
    .unwrap();
    let unbuilt = without.path().join("not-built-yet");
    let got = planned_uuids(&[with_id.path().to_owned(), without.path().to_owned(), unbuilt]);
    let staged_id = generated_gecko_id(&std::fs::canonicalize(without.path()).unwrap());
    assert_eq!(got, [("x@t".to_owned(), uuid_for("x@t")), (staged_id.clone(), uuid_for(&staged_id))]);
}
