"""Start webext-mcp the way the official Python MCP SDK does by default (its stdio client
passes only HOME, LOGNAME, PATH, SHELL, TERM and USER) and list the connected browsers.

usage: stripped_env.py WEBEXT_MCP_BINARY HOME_DIR
"""
import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str, home: str) -> None:
    # No `env`: the SDK's default environment, as a user's MCP config gives it.
    params = StdioServerParameters(command=binary, args=["--home", home, "serve"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listing = await session.call_tool("list_connected_browsers", {})
            assert not listing.is_error, listing
            for b in listing.structured_content["browsers"]:
                print("label", b["label"])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
