"""rein serve, driven by the official MCP Python SDK (package `mcp`), as a real client would.

Usage: python_sdk.py REIN WORKSPACE HOME OUTSIDE_FILE

Checks, printing one `ok <what>` line each and exiting non-zero on the first failure:
initialize (server info, logging capability), tools/list (every name a client accepts, the
pack's mapped name present), tools/call of a built-in and of a pack tool by its MCP name,
logging/setLevel, a refusal as an isError result with its code, and a person's "no"
(declined elicitation) as APPROVAL_DENIED.
"""

import asyncio
import re
import sys

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def check(condition, what, detail=""):
    if not condition:
        print(f"FAILED {what}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok {what}", flush=True)


async def main(rein, workspace, home, outside_file):
    questions = []

    async def elicitation(context, params):
        questions.append(params.message)
        return types.ElicitResult(action="decline")

    logs = []

    async def logging(params):
        logs.append(params)

    server = StdioServerParameters(command=rein, args=["--workspace", workspace, "--home", home, "serve"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation, logging_callback=logging) as session:
            init = await session.initialize()
            check(init.server_info.name == "rein", "initialize", init.server_info)
            check(init.capabilities.logging is not None, "logging capability declared")

            tools = (await session.list_tools()).tools
            names = [t.name for t in tools]
            bad = [n for n in names if not NAME.match(n)]
            check(not bad, "every tool name matches ^[a-zA-Z0-9_-]{1,64}$", bad)
            check("team_kit__greet" in names, "the pack tool is listed by its MCP name", names)

            await session.set_logging_level("error")
            check(True, "logging/setLevel answered")

            result = await session.call_tool("list_dir", {})
            check(not result.is_error and "entries" in (result.structured_content or {}), "tools/call list_dir", result)
            result = await session.call_tool("team_kit__greet", {})
            check(
                not result.is_error and (result.structured_content or {}).get("text") == "from the kit",
                "tools/call of the pack tool by its MCP name",
                result,
            )
            result = await session.call_tool("read_file", {"path": "missing.txt"})
            text = result.content[0].text if result.content else ""
            check(result.is_error and text.startswith("FILE_NOT_FOUND"), "a refusal is an isError result", result)

            result = await session.call_tool("write_file", {"path": outside_file, "content": "no\n"})
            code = (result.structured_content or {}).get("code")
            check(result.is_error and code == "APPROVAL_DENIED", "a declined question is APPROVAL_DENIED", result)
            check(len(questions) == 1 and outside_file in questions[0], "the person was asked once", questions)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
