"""With the official Python MCP SDK and the 60 s request timeout MCP clients use by default:
`extension_wait` reports progress while it waits, and a wait asked for longer than that
(65000 ms) answers with the session's status in time instead of the client's own timeout.

usage: wait_client.py WEBEXT_MCP_BINARY HOME_DIR PROJECT_DIR
"""
import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary, home, project):
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "WEBEXT_MCP_RUNTIME_DIR")}
    params = StdioServerParameters(command=binary, args=["--home", home, "serve"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            seen = []

            async def on_progress(progress, total, message):
                seen.append((progress, message))

            args = {"projectPath": project, "timeoutMs": 65000}
            try:
                r = await s.call_tool(
                    "extension_wait", args, read_timeout_seconds=60, progress_callback=on_progress
                )
            except Exception as e:  # what a client sees when the server outlives its deadline
                print("wait: the client gave up:", type(e).__name__, e)
                return
            error = (r.structured_content or {}).get("error", {})
            print("wait: answered", error.get("code"), "|", error.get("message"))
            print("progress", len(seen))
            increasing = all(b[0] > a[0] for a, b in zip(seen, seen[1:]))
            print("progress increasing", increasing)
            if seen:
                print("last progress:", seen[-1][1])
            # The wait's own status lines (a loaded machine may fill a second with the
            # server's generic heartbeat instead, even the last one).
            for _, message in seen:
                if message and "still working" not in message:
                    print("status progress:", message)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
