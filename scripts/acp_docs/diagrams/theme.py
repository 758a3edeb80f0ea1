"""How Mermaid is asked to draw: its configuration and the palette rules of every diagram.

Colours are Material's CSS variables, so a diagram follows the reader's light
or dark palette without a script. Mermaid scopes `THEME_CSS` under each
diagram's id; the rules come after its own, so they win.
"""

from __future__ import annotations

from typing import Any

FONT = "Arial, Helvetica, sans-serif"

_FG = "var(--md-default-fg-color)"
_FG_LIGHT = "var(--md-default-fg-color--light)"
_FG_LIGHTER = "var(--md-default-fg-color--lighter)"
_BG = "var(--md-default-bg-color)"
_CODE_BG = "var(--md-code-bg-color)"
_ACCENT = "var(--md-accent-fg-color)"
_PRIMARY = "var(--md-primary-fg-color)"

THEME_CSS = f"""
text, tspan {{ fill: {_FG}; }}
.actor {{ fill: {_BG}; stroke: {_PRIMARY}; }}
text.actor > tspan, .actor-box, .actor-man text {{ fill: {_FG}; stroke: none; }}
.actor-line {{ stroke: {_FG_LIGHTER}; }}
.messageLine0, .messageLine1 {{ stroke: {_FG}; }}
.messageText {{ fill: {_FG}; stroke: none; }}
.sequenceNumber {{ fill: {_BG}; }}
marker path, [id$="-arrowhead"] path, .arrowheadPath, .marker {{ fill: {_FG}; stroke: {_FG}; }}
.note {{ fill: {_CODE_BG}; stroke: {_FG_LIGHTER}; }}
.noteText, .noteText > tspan {{ fill: {_FG}; stroke: none; }}
.labelBox {{ fill: {_CODE_BG}; stroke: {_ACCENT}; }}
.labelText, .labelText > tspan, .loopText, .loopText > tspan {{ fill: {_FG}; stroke: none; }}
.loopLine {{ stroke: {_ACCENT}; fill: none; }}
.activation0, .activation1, .activation2 {{ fill: {_CODE_BG}; stroke: {_FG_LIGHT}; }}
.sectionTitle {{ fill: {_FG}; }}
.node rect, .node circle, .node polygon, .node path {{ fill: {_CODE_BG}; stroke: {_PRIMARY}; }}
.nodeLabel, .edgeLabel, .label text, .cluster-label text {{ fill: {_FG}; }}
.flowchart-link, .edgePath .path {{ stroke: {_FG}; }}
.cluster rect {{ fill: {_BG}; stroke: {_FG_LIGHTER}; }}
.edgeLabel rect, .labelBkg {{ fill: {_BG}; }}
"""
"""Palette rules, by Mermaid's class names for sequence diagrams and flowcharts."""

MAX_TEXT = 20_000
"""Characters of one diagram's text: past this it is not drawn (Mermaid's own limit is 50,000)."""


def config() -> dict[str, Any]:
    """`mermaid.initialize`'s argument: no script from diagrams, text as SVG, the palette above."""
    return {
        "startOnLoad": False,
        "securityLevel": "strict",
        "theme": "base",
        "fontFamily": FONT,
        "themeCSS": THEME_CSS,
        "maxTextSize": MAX_TEXT,
        "htmlLabels": False,
        "deterministicIds": True,
        "flowchart": {"htmlLabels": False, "useMaxWidth": True},
        "sequence": {"useMaxWidth": True, "mirrorActors": True, "wrap": False},
    }
