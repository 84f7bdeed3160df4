//! The command line, parsed and run in-process.

use std::collections::BTreeSet;

use clap::CommandFactory;
use serde_json::json;

use super::*;
use crate::tools::decode;

fn parse(argv: &[&str]) -> ToolCall {
    let cli = Cli::try_parse_from(std::iter::once("webext-mcp").chain(argv.iter().copied()))
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    cli.command.tool_call().unwrap_or_else(|| panic!("{argv:?} runs no tool"))
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Every flag and positional of a verb is one of its tool's listed arguments, and every
/// listed argument is a flag or positional: the verbs are the tools' own types, so only a
/// hand-made verb (or a field hidden from one side) can fail this.
#[test]
fn each_verb_takes_exactly_its_tools_arguments() {
    let app = Cli::command();
    let verbs: &[&[&str]] = &[
        &["build"],
        &["validate"],
        &["inspect-build"],
        &["templates"],
        &["create", "x"],
        &["add-feature", "popup"],
        &["install"],
        &["uninstall"],
        &["dev"],
        &["start"],
        &["preview"],
        &["wait"],
        &["stop"],
        &["inspect"],
        &["doctor"],
        &["browsers", "detect"],
        &["browsers", "list"],
        &["browsers", "install", "firefox"],
        &["browsers", "uninstall", "firefox"],
    ];
    for argv in verbs {
        let tool = parse(argv).tool;
        let def =
            tools::registry().iter().find(|t| t.name == tool).unwrap_or_else(|| panic!("no tool {tool}"));
        let schema = (def.input_schema)();
        let listed: BTreeSet<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
        // `start` waits exactly when it detaches; the flag would only contradict --detach.
        let set_by_the_verb: &[&str] = if tool == "extension_start" { &["wait"] } else { &[] };
        let listed: BTreeSet<String> =
            listed.into_iter().filter(|k| !set_by_the_verb.contains(&k.as_str())).collect();
        let mut sub = app.find_subcommand(argv[0]).unwrap();
        if argv[0] == "browsers" {
            sub = sub.find_subcommand(argv[1]).unwrap();
        }
        let flags: BTreeSet<String> = sub
            .get_arguments()
            // clap's own `--version` and `--help`; a tool's `version` argument stays.
            .filter(|a| !matches!(a.get_action(), clap::ArgAction::Help | clap::ArgAction::Version))
            .map(|a| camel(a.get_id().as_str()))
            .filter(|id| !["json", "home", "log"].contains(&id.as_str()))
            .collect();
        assert_eq!(flags, listed, "`{}` against `{tool}`", argv[0]);
    }
}

/// What each verb passes, spelled as its tool reads it, and decoded by the tool's type.
#[test]
fn verbs_pass_what_their_tools_decode() {
    let build = parse(&["build", "p", "--browser", "chrome,firefox", "--zip-source", "--out-dir", "out"]);
    let args = build.args.unwrap();
    assert_eq!(
        args,
        json!({"projectPath": "p", "browser": "chrome,firefox", "zip": false, "zipSource": true, "outDir": "out"})
    );
    decode::<BuildArgs>(args).unwrap();

    let create = parse(&["create", "named", "--path", "dir", "--no-git", "--json"]);
    assert!(create.json);
    let args = create.args.unwrap();
    assert_eq!(args, json!({"projectName": "named", "projectPath": "dir", "dryRun": false, "git": false}));
    decode::<CreateArgs>(args).unwrap();

    let added = parse(&["add-feature", "sidebar", "--project-path", "p", "--dry-run"]);
    let args = added.args.unwrap();
    assert_eq!(args, json!({"feature": "sidebar", "projectPath": "p", "dryRun": true}));
    decode::<AddFeatureArgs>(args).unwrap();

    let listed = parse(&["templates", "side panel", "--tag", "ai", "--tag", "chat", "--featured"]);
    let args = listed.args.unwrap();
    assert_eq!(args, json!({"query": "side panel", "tags": ["ai", "chat"], "featured": true}));
    decode::<ListArgs>(args).unwrap();

    let inspect =
        parse(&["inspect", "p", "--include", "html,page_meta", "--context", "popup", "--max-bytes", "100"]);
    let args = inspect.args.unwrap();
    assert_eq!(args["include"], json!(["html", "meta"]));
    assert_eq!(args["context"], "popup");
    assert_eq!(args["shadowDom"], "open-only");
    assert_eq!(args["maxBytes"], 100);
    decode::<InspectArgs>(args).unwrap();

    let wait = parse(&["wait", "--timeout", "5"]);
    let args = wait.args.unwrap();
    assert_eq!(args, json!({"projectPath": ".", "timeoutMs": 5}));
    decode::<WaitArgs>(args).unwrap();

    let start = parse(&["start", "p", "--detach", "--headless"]);
    assert_eq!(start.session, Some(true));
    let args = start.args.unwrap();
    assert_eq!(args["wait"], true);
    assert_eq!(args["headless"], true);
    decode::<StartArgs>(args).unwrap();

    let install = parse(&["browsers", "install", "chrome-for-testing", "--version", "131", "--timeout", "9"]);
    let args = install.args.unwrap();
    assert_eq!(
        args,
        json!({"browser": "chrome-for-testing", "version": "131", "via": "managed", "consent": false, "timeoutMs": 9})
    );
    decode::<InstallBrowserArgs>(args).unwrap();
    let detect = parse(&["browsers", "detect", "--browsers", "chromium,firefox"]);
    assert_eq!(detect.args.unwrap(), json!({"browsers": ["chromium", "firefox"]}));

    let logs = parse(&["logs", "p", "--context", "background,popup", "--level", "warn", "--follow"]);
    let args = logs.args.unwrap();
    assert_eq!(
        args,
        json!({"projectPath": "p", "context": ["background", "popup"], "level": "warn", "follow": true})
    );
    decode::<LogsArgs>(args).unwrap();

    let dev = parse(&["dev", "--browser", "chromium"]);
    assert_eq!(dev.session, Some(false));
    assert_eq!(dev.args.unwrap(), json!({"projectPath": ".", "browser": "chromium", "detach": false}));
}

/// Bad words are usage errors naming what is accepted, before any tool runs.
#[test]
fn bad_words_are_usage_errors() {
    let e = Cli::try_parse_from(["webext-mcp", "inspect", "--context", "nowhere"]).unwrap_err();
    assert!(e.to_string().contains("popup"), "{e}");
    assert!(Cli::try_parse_from(["webext-mcp", "build", "--bogus"]).is_err());
}
