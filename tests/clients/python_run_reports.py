"""A failed recipe's report, read through rein serve by the official MCP Python SDK: the
`run_reports` tool and the `rein://runs/<run-id>/report.md|json` resources.

Usage: python_run_reports.py REIN WORKSPACE HOME RUN_ID

Prints one `ok <what>` line per check and exits non-zero on the first failure.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from python_sdk import check


async def main(rein, workspace, home, run_id):
    server = StdioServerParameters(command=rein, args=["--workspace", workspace, "--home", home, "serve"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.capabilities.resources is not None, "resources capability declared", init.capabilities)

            names = [t.name for t in (await session.list_tools()).tools]
            check("run_reports" in names, "run_reports is listed", names)
            listed = await session.call_tool("run_reports", {})
            runs = (listed.structured_content or {}).get("runs", [])
            check(not listed.is_error and runs and runs[0]["run_id"] == run_id, "the latest run is listed", listed)
            shown = await session.call_tool("run_reports", {"run_id": run_id})
            text = shown.content[0].text if shown.content else ""
            check(not shown.is_error and "BUILD_FAILED" in text, "the tool shows why the run failed", shown)
            check("declare REIN_X before using it" in text, "and what to do next", text)

            uri = f"rein://runs/{run_id}/report.md"
            resources = [str(r.uri) for r in (await session.list_resources()).resources]
            check(uri in resources, "the report is a listed resource", resources)
            templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
            check("rein://runs/{run_id}/report.md" in templates, "the report's resource template", templates)
            markdown = (await session.read_resource(uri)).contents[0].text
            check(markdown == text, "resources/read gives the same report", markdown)
            data = json.loads((await session.read_resource("rein://runs/last/report.json")).contents[0].text)
            check(data["failure"]["code"] == "BUILD_FAILED", "report.json as data", data)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
