"""Drive webext-mcp with the official Python MCP SDK: an independent client implementation.

usage: interop_client.py WEBEXT_MCP_BINARY HOME_DIR
"""
import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str, home: str) -> None:
    params = StdioServerParameters(command=binary, args=["--home", home, "serve"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "webext-mcp", init.server_info
            print("initialized", init.server_info.name, init.server_info.version)

            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            assert "server_info" in names, names
            print("tools include server_info")

            info = await session.call_tool("server_info", {})
            assert not info.is_error, info
            assert info.structured_content["name"] == "webext-mcp", info.structured_content
            print("server_info ok")

            bad = await session.call_tool("get_config", {"key": 5})
            assert bad.is_error, bad
            assert bad.structured_content["error"]["code"] == "INVALID_ARGUMENT", bad.structured_content
            assert bad.content[0].text.startswith("INVALID_ARGUMENT: "), bad.content
            print("invalid argument ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
