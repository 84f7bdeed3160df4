"""The first hour of a new user, through the official Python MCP SDK with its default
(stripped) environment: create -> build -> dev -> ready -> at once list_pages, take_snapshot,
evaluate_script and extension_source_inspect on the session (no wait, no retry) -> edit ->
the change shows -> fills of every field kind by ref and by locator -> a click that only
changes text reports it -> stop.

usage: first_hour_client.py WEBEXT_MCP_BINARY HOME_DIR WORK_DIR PAGE_URL SERVER_LOG

Prints `key value` lines the Rust test reads; any failed check raises (non-zero exit).
"""
import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def find(value, key):
    """The first value of `key` anywhere in a JSON value."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            got = find(v, key)
            if got is not None:
                return got
    return None


def ref_of(snapshot, needle):
    line = next(l for l in snapshot.splitlines() if needle in l)
    return line[line.index("[") + 1 : line.index("]")]


async def main(binary, home, work, page_url, log_path):
    # No `env`: the SDK passes its default environment (HOME, PATH, USER, …), nothing of ours.
    params = StdioServerParameters(command=binary, args=["--home", home, "serve"], cwd=work)
    with open(log_path, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()

                async def call(name, args):
                    r = await s.call_tool(name, args)
                    text = r.content[0].text if r.content else ""
                    assert not r.is_error, f"{name} {json.dumps(args)} failed: {text}"
                    return r.structured_content, text

                project = os.path.join(work, "first-hour")
                await call("extension_create", {"projectName": "first-hour", "projectPath": project,
                                                "template": "content", "install": False, "git": False})
                await call("extension_build", {"projectPath": project})
                production = open(os.path.join(project, "dist/chrome/manifest.json")).read()

                ready, _ = await call("extension_dev", {"projectPath": project, "headless": True,
                                                        "startingUrl": page_url})
                assert ready["status"] == "ready", ready
                sid = ready["sessionId"]
                print("browser", ready["browser"])
                print("distPath", ready["distPath"])
                print("pid", ready["pid"], "browserPid", ready["browserPid"])
                print("profile", ready["profilePath"])
                sys.stdout.flush()

                # At once, no wait, no retry: the session's tab is the current page.
                pages, _ = await call("list_pages", {"browser": sid})
                assert any(page_url in t["url"] for t in pages["tabs"]), pages
                snap, _ = await call("take_snapshot", {"browser": sid})
                assert "Your name" in snap["text"], snap["text"]
                title, _ = await call("evaluate_script", {"browser": sid, "function": "() => document.title"})
                assert json.loads(title["json"]) == "Fields", title
                inspected, _ = await call("extension_source_inspect", {"projectPath": project})
                print("readyState", find(inspected, "readyState"))
                print("extensionRoots", find(inspected, "extensionRoots"))
                assert open(os.path.join(project, "dist/chrome/manifest.json")).read() == production, \
                    "the dev session rewrote the production build"

                # Edit: the open tab shows the new text.
                script = os.path.join(project, "src/content/content.js")
                with open(script) as f:
                    source = f.read()
                with open(script, "w") as f:
                    f.write(source.replace("words on this page", "words, edited"))
                panel = ("() => document.getElementById('webext-content-root')?.shadowRoot"
                         "?.textContent.includes('words, edited') ?? false")
                deadline = time.monotonic() + 30
                while True:
                    seen, _ = await call("evaluate_script", {"browser": sid, "function": panel})
                    if json.loads(seen["json"]):
                        break
                    assert time.monotonic() < deadline, "the edit never showed in the tab"
                    await asyncio.sleep(0.2)
                print("edit seen")

                # Fills of every kind, by ref and by locator.
                snap, _ = await call("take_snapshot", {"browser": sid})
                text = snap["text"]

                async def value(js):
                    out, _ = await call("evaluate_script", {"browser": sid, "function": f"() => {js}"})
                    return json.loads(out["json"])

                get = "document.getElementById"
                await call("fill_by_uid", {"browser": sid, "uid": ref_of(text, '"I agree"'), "value": True})
                assert await value(f"{get}('tos').checked") is True
                await call("fill", {"browser": sid, "locator": "#tos", "value": False})
                assert await value(f"{get}('tos').checked") is False
                await call("fill_by_uid", {"browser": sid, "uid": ref_of(text, '"Large"'), "value": True})
                assert await value(f"{get}('large').checked") is True
                await call("fill", {"browser": sid, "locator": "#small", "value": True})
                assert await value(f"[{get}('small').checked, {get}('large').checked]") == [True, False]
                await call("fill_by_uid", {"browser": sid, "uid": ref_of(text, '"Colour"'), "value": "Green"})
                assert await value(f"{get}('colour').value") == "g"
                await call("fill", {"browser": sid, "locator": "#colour", "value": "Red"})
                assert await value(f"{get}('colour').value") == "r"
                await call("fill_by_uid", {"browser": sid, "uid": ref_of(text, '"Note"'), "value": "by ref"})
                assert await value(f"{get}('note').textContent") == "by ref"
                await call("fill", {"browser": sid, "locator": "#note", "value": "by locator"})
                assert await value(f"{get}('note').textContent") == "by locator"
                await call("fill_by_uid", {"browser": sid, "uid": ref_of(text, '"Day"'), "value": "2024-05-06"})
                assert await value(f"{get}('when').value") == "2024-05-06"
                await call("fill", {"browser": sid, "locator": "#when", "value": "2025-01-02"})
                assert await value(f"{get}('when').value") == "2025-01-02"
                await call("fill_by_uid", {"browser": sid, "uid": ref_of(text, '"Volume"'), "value": "7"})
                assert await value(f"{get}('vol').value") == "7"
                await call("fill", {"browser": sid, "locator": "#vol", "value": 3})
                assert await value(f"{get}('vol').value") == "3"
                form, form_text = await call("fill_form_by_uid", {"browser": sid, "fields": [
                    {"uid": ref_of(text, '"Your name"'), "value": "ada"},
                    {"uid": ref_of(text, '"I agree"'), "value": True},
                ]})
                assert [f["value"] for f in form["filled"]] == ["ada", True], form
                print("fills ok")

                clicked, click_text = await call("click", {"browser": sid, "locator": "#say"})
                changed = (clicked.get("changes") or {}).get("changed") or []
                assert any('"hello"' in line for line in changed), clicked
                assert "no change" not in click_text, click_text
                print("click change", changed[0])

                stopped, _ = await call("extension_stop", {"projectPath": project})
                print("stopped", stopped["status"])


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
