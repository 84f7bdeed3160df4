"""With the official Python MCP SDK: a long `wait_for` reports progress, and a cancelled one is
dropped by the server.

usage: progress_client.py WEBEXT_MCP_BINARY HOME_DIR RUNTIME_DIR SESSION TAB_ID SERVER_LOG
"""
import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary, home, runtime, session, tab, log_path):
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH")}
    env["WEBEXT_MCP_RUNTIME_DIR"] = runtime
    env["WEBEXT_MCP_LOG"] = "info"
    params = StdioServerParameters(
        command=binary, args=["--home", home, "serve", "--browser", session], env=env
    )
    with open(log_path, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                seen = []

                async def on_progress(progress, total, message):
                    seen.append((progress, message))

                args = {"tabId": int(tab), "text": "text that never appears", "timeoutMs": 3500}
                r = await s.call_tool("wait_for", args, progress_callback=on_progress)
                assert r.is_error, r
                assert r.structured_content["error"]["code"] == "TIMEOUT", r.structured_content
                print("progress", len(seen), seen[-1][1] if seen else "")

                long = {"tabId": int(tab), "text": "text that never appears", "timeoutMs": 30000}
                try:
                    await s.call_tool("wait_for", long, read_timeout_seconds=1.5)
                    print("cancel: the call returned")
                except Exception as e:  # the SDK raises on its timeout and sends notifications/cancelled
                    print("cancel: raised", type(e).__name__)
                # The server is free for the next call at once.
                info = await s.call_tool("server_info", {})
                assert not info.is_error, info
                print("after cancel ok")
                await asyncio.sleep(0.5)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))
