"""With the official Python MCP SDK: console:// and network:// resources of a tab are listed as
templates, read (the same entries as the list tools), subscribed, paced (at most 4
notifications a second however fast the page logs), unsubscribed, and ended when the tab
closes; the same through a 2026-07-28 `subscriptions/listen` stream.

usage: subscriptions_client.py WEBEXT_MCP_BINARY HOME_DIR RUNTIME_DIR SESSION TAB_ID LISTEN_TAB_ID SERVER_LOG
Prints one `key value` line per finding; the Rust test asserts on them.
"""
import asyncio
import json
import os
import sys
import time
import warnings

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.subscriptions import listen
from mcp.shared.subscriptions import ResourceUpdated

warnings.simplefilter("ignore")  # the SDK marks resources/subscribe as 2025-era: that is the point


def params(binary, home, runtime, session):
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH")}
    env["WEBEXT_MCP_RUNTIME_DIR"] = runtime
    env["WEBEXT_MCP_LOG"] = "debug"
    return StdioServerParameters(command=binary, args=["--home", home, "serve", "--browser", session], env=env)


async def legacy(binary, home, runtime, session, tab, log):
    updates = []

    async def on_message(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append((time.monotonic(), str(root.params.uri)))

    console = f"console://{tab}"
    network = f"network://{tab}"
    async with stdio_client(params(binary, home, runtime, session), errlog=log) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            init = await s.initialize()
            print("protocol", init.protocol_version)
            caps = init.capabilities.resources
            print("subscribe-capability", bool(caps and caps.subscribe))
            templates = await s.list_resource_templates()
            print("templates", " ".join(sorted(t.uri_template for t in templates.resource_templates)))

            # A read is the list tool's answer.
            r = await s.read_resource(console)
            as_json = json.loads(next(c.text for c in r.contents if c.mime_type == "application/json"))
            tool = await s.call_tool("list_console_messages", {"tabId": int(tab)})
            print("read-entries", len(as_json["entries"]), "tool-entries", len(tool.structured_content["entries"]))
            print("read-has-burst", any("burst" in e["text"] for e in as_json["entries"]))
            text = next(c.text for c in r.contents if c.mime_type == "text/plain")
            print("read-text-bounded", text.count("---") >= 2)
            r = await s.read_resource(f"{console}?level=error")
            print("filtered-levels", sorted({e["level"] for e in json.loads(r.contents[1].text)["entries"]}))

            # Bad URIs and unknown tabs: errors, not hangs.
            for bad in ("console://abc", "cookies://1", f"console://{tab}?tabId=3"):
                try:
                    await s.read_resource(bad)
                    print("bad-uri-accepted", bad)
                except Exception as e:
                    print("bad-uri-refused", getattr(getattr(e, "error", None), "code", "?"))
            try:
                await s.subscribe_resource("console://987654321")
                print("unknown-tab-subscribed")
            except Exception as e:
                print("unknown-tab-refused", getattr(getattr(e, "error", None), "code", "?"))

            await s.subscribe_resource(console)
            await s.subscribe_resource(network)
            started = time.monotonic()
            await asyncio.sleep(4.0)
            window = time.monotonic() - started
            got_console = [t for t, u in updates if u == console]
            got_network = [t for t, u in updates if u == network]
            print("console-updates", len(got_console), "window", f"{window:.2f}")
            print("network-updates", len(got_network))
            # The page's bursts are ~30 batches a second: the pace is the server's.
            print("console-rate-ok", len(got_console) <= 4 * window + 2)
            r = await s.read_resource(f"{console}?contains=burst")
            print("burst-entries", len(json.loads(r.contents[1].text)["entries"]))

            # Unsubscribed: network falls silent while console goes on.
            await s.unsubscribe_resource(network)
            await asyncio.sleep(0.5)
            mark = len(updates)
            await asyncio.sleep(3.0)
            after = updates[mark:]
            print("after-unsubscribe-console", sum(1 for _, u in after if u == console))
            print("after-unsubscribe-network", sum(1 for _, u in after if u == network))

            # The tab closes: one last update, then the read says the tab is gone.
            await s.call_tool("close_page", {"tabId": int(tab)})
            await asyncio.sleep(1.5)
            mark = len(updates)
            await asyncio.sleep(1.5)
            print("after-close-updates", len(updates) - mark)
            try:
                await s.read_resource(console)
                print("closed-tab-read-ok")
            except Exception as e:
                print("closed-tab-read-refused", getattr(getattr(e, "error", None), "code", "?"))


async def modern(binary, home, runtime, session, tab, log):
    uri = f"console://{tab}"
    async with stdio_client(params(binary, home, runtime, session), errlog=log) as (read, write):
        async with ClientSession(read, write) as s:
            found = await s.discover()
            print("modern-protocol", s.protocol_version, bool(found))
            async with listen(s, resource_subscriptions=[uri, "bogus://1"]) as sub:
                print("honored", " ".join(sub.honored.resource_subscriptions or []))
                seen = 0
                started = time.monotonic()
                async for event in sub:
                    if isinstance(event, ResourceUpdated) and str(event.uri) == uri:
                        seen += 1
                    if seen >= 3 or time.monotonic() - started > 30:
                        break
                print("listen-updates", seen)
            r = await s.read_resource(uri)
            print("modern-read-entries", len(json.loads(r.contents[1].text)["entries"]) > 0)


async def main(binary, home, runtime, session, tab, listen_tab, log_path):
    with open(log_path, "w") as log:
        await legacy(binary, home, runtime, session, tab, log)
        await modern(binary, home, runtime, session, listen_tab, log)
    print("done")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:8]))
