"""Serving: one sentence to a video with its code (`produce`), a persistent job engine, the HTTP API
with its page (`manimgen serve`) and MCP tools (`manimgen mcp`) on that engine."""
