"""A small external agent for the gateway tests: an MCP client program, as another agent tool
on the machine would be. It reads its task from stdin, reaches orkas_nb's gateway through the
``mcpServers`` file it was given (``$ORKAS_GATEWAY_MCP_CONFIG``, the stdio bridge), runs the
calls the task names and prints what came back.

Task lines: ``list`` (tool names), ``call NAME JSON`` (one call), ``token WRONG|MISSING|KEEP``
(before the first call: use another credential, none, or save the real one to
``$KEEP_ENV_FILE`` for a later run to try), ``sleep S``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys


async def main() -> int:
    from mcp import Client, StdioServerParameters

    task = sys.stdin.read().strip().splitlines()
    config = json.loads(open(os.environ["ORKAS_GATEWAY_MCP_CONFIG"]).read())
    (name, entry), = config["mcpServers"].items()
    env = dict(entry["env"])
    for line in task:
        if line.startswith("token "):
            how = line.split()[1]
            if how == "WRONG":
                env["ORKAS_GATEWAY_TOKEN"] = "x" * 43
            elif how == "MISSING":
                env.pop("ORKAS_GATEWAY_TOKEN")
            elif how == "KEEP":
                with open(os.environ["KEEP_ENV_FILE"], "w") as f:
                    json.dump(env, f)
            elif how == "REUSE":
                with open(os.environ["KEEP_ENV_FILE"]) as f:
                    env = json.load(f)
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
    try:
        async with Client(params, read_timeout_seconds=20) as client:
            for line in task:
                verb, _, rest = line.partition(" ")
                if verb == "list":
                    tools = await client.list_tools()
                    print("TOOLS", " ".join(sorted(t.name for t in tools.tools)))
                elif verb == "call":
                    tool, _, args = rest.partition(" ")
                    result = await client.call_tool(tool, json.loads(args or "{}"))
                    text = "".join(getattr(c, "text", "") for c in result.content)
                    print(f"RESULT {tool} error={result.is_error}: {text}")
                    images = [c.mime_type for c in result.content if c.type == "image"]
                    structured = result.structured_content
                    if images or structured is not None:
                        print(f"EXTRAS {tool} images={images} structured={json.dumps(structured)}")
                elif verb == "sleep":
                    await asyncio.sleep(float(rest))
    except BaseException as exc:  # noqa: BLE001 - the refusal is what some tests look for
        print(f"GATEWAY-FAILED {type(exc).__name__}", flush=True)
        return 4
    print(f"DONE {name}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
