"""A scripted MCP client over stdio (the Python `mcp` SDK 2.x), for the
gateway tests.

    client.py [--elicit none|accept|session|decline|cancel|hang] [--roots DIR] STEPS_JSON -- CMD ARGS..
    client.py [--elicit ..] --url URL STEPS_JSON        (streamable HTTP)

STEPS_JSON is a list of steps: {"op": "list"}, {"op": "call", "name": ..,
"args": {..}}, {"op": "call_cancel", "name": .., "args": {..}, "after": s},
{"op": "wait_file", "path": .., "timeout": s}. Each step prints one JSON
line: a listing's tools, a call's isError and text. Elicitation requests
received are printed too ({"elicitation": {...}}), before the answer.
"""

import json
import os
import sys

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def out(obj):
    print(json.dumps(obj), flush=True)


async def main():
    args = sys.argv[1:]
    mode = "none"
    roots = None
    url = None
    while args[:1] in (["--elicit"], ["--roots"], ["--url"]):
        if args[0] == "--elicit":
            mode = args[1]
        elif args[0] == "--roots":
            roots = args[1]
        else:
            url = args[1]
        args = args[2:]
    steps = json.loads(args[0])
    cmd = args[args.index("--") + 1 :] if "--" in args else []

    async def elicit(ctx, params):
        out({"elicitation": params.model_dump(by_alias=True, mode="json", exclude_none=True)})
        if mode == "hang":
            await anyio.sleep(3600)
        if mode == "accept":
            return types.ElicitResult(action="accept", content={})
        if mode == "session":
            return types.ElicitResult(action="accept", content={"scope": "session"})
        return types.ElicitResult(action=mode)

    if url:
        transport = streamable_http_client(url)
    else:
        server = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
        transport = stdio_client(server)
    async with transport as (read, write):
        kwargs = {}
        if mode != "none":
            kwargs["elicitation_callback"] = elicit
        if roots is not None:

            async def list_roots(ctx):
                out({"roots_asked": True})
                return types.ListRootsResult(roots=[types.Root(uri="file://" + roots, name="root")])

            kwargs["list_roots_callback"] = list_roots
        async with ClientSession(read, write, **kwargs) as session:
            init = await session.initialize()
            out({"initialized": init.protocol_version})
            for step in steps:
                op = step["op"]
                if op == "list":
                    r = await session.list_tools()
                    out({"tools": [{"name": t.name, "description": t.description or ""} for t in r.tools]})
                elif op == "call":
                    seen = []

                    async def on_progress(progress, total, message):
                        seen.append(progress)

                    try:
                        r = await session.call_tool(
                            step["name"], step.get("args", {}), progress_callback=on_progress
                        )
                        text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                        out({"call": step["name"], "isError": bool(r.is_error), "text": text, "progress": seen})
                    except Exception as e:  # a JSON-RPC error
                        out({"call": step["name"], "error": str(e)})
                elif op == "call_cancel":
                    async with anyio.create_task_group() as tg:
                        async def run():
                            try:
                                await session.call_tool(step["name"], step.get("args", {}))
                                out({"call": step["name"], "cancelled": False})
                            except Exception as e:
                                out({"call": step["name"], "error": str(e)})
                        scope = anyio.CancelScope()
                        async def cancellable():
                            with scope:
                                await run()
                            if scope.cancel_called:
                                out({"call": step["name"], "cancelled": True})
                        tg.start_soon(cancellable)
                        await anyio.sleep(step.get("after", 1.0))
                        scope.cancel()
                elif op == "sleep":
                    await anyio.sleep(step["seconds"])
                elif op == "wait_file":
                    for _ in range(int(step.get("timeout", 10) * 20)):
                        if os.path.exists(step["path"]):
                            break
                        await anyio.sleep(0.05)
                    out({"wait_file": step["path"], "exists": os.path.exists(step["path"])})


anyio.run(main)
