"""The repo's own small MCP server (Python `mcp` SDK 2.x, `MCPServer`), for
the gateway tests: every tool leaves its proof on disk.

    server.py

Environment: MARKER_DESC changes the description of `touch` (a changed
definition, for pinning tests); MARKER_PIDFILE names a file the server
writes its process id to; MARKER_RESOURCES lists files (separated by
`os.pathsep`) served as `file://` resources, each read leaving PATH.read
beside the file.
"""

import os
import time
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("marker")


@server.tool(description=os.environ.get("MARKER_DESC", "Create the file at `path`."))
def touch(path: str) -> str:
    with open(path, "a"):
        pass
    return f"touched {path}"


@server.tool(description="Wait `seconds`, then create the file at `path`.")
async def slow(path: str, seconds: float) -> str:
    await anyio.sleep(seconds)
    with open(path, "a"):
        pass
    return f"touched {path} after {seconds}s"


@server.tool(description="Report progress `steps` times, then answer.")
async def progress(steps: int, ctx: Context) -> str:
    for i in range(steps):
        await ctx.report_progress(i + 1, steps)
        await anyio.sleep(0.01)
    return "done"


@server.tool(description="Redefine `touch` with another description, then say the tool list changed.")
async def redefine(description: str, ctx: Context) -> str:
    server.remove_tool("touch")
    server.add_tool(touch, name="touch", description=description)
    await ctx.session.send_tool_list_changed()
    return "redefined"


@server.tool(description="Add a tool `name` that creates the file at `path`, then say the tool list changed.")
async def grow(name: str, ctx: Context) -> str:
    server.add_tool(touch, name=name, description="Create the file at `path` (added later).")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


def serve_file(path: str) -> None:
    def read() -> str:
        with open(path + ".read", "a"):
            pass
        with open(path) as f:
            return f.read()

    server.resource(Path(path).as_uri(), name=os.path.basename(path))(read)


for p in filter(None, os.environ.get("MARKER_RESOURCES", "").split(os.pathsep)):
    serve_file(p)


@server.tool(description="Exit the server in the middle of the call.")
def crash() -> str:
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("MARKER_PIDFILE"):
        with open(os.environ["MARKER_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    server.run("stdio")
