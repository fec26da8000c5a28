"""The web table (``guandan web``): watch live tables, replay game records
and play against the built-in bots in a browser. Plain HTML/CSS/JS shipped
as package data (``static/``), served with its WebSocket on one port by
:class:`WebApp`; the page only shows what the engine decides (docs/web.md).
"""

from .server import WebApp, serve_web

__all__ = ["WebApp", "serve_web"]
