"""What an SVG from `docs/` may hold to be published: drawing elements and attributes only.

An SVG opened on its own is an XML document that can run script (`<script>`,
`onload=`, HTML in `<foreignObject>`, animation that sets `href`), load other
files (`<image>`, `xlink:href="https://..."`, `url(...)` in a CSS value, an
`<?xml-stylesheet?>`) and expand entities without bound. The file is read with
the standard library's expat, which reports each element at its line, and is
refused at the first sign of a document type: no DTD, no entity, no
processing instruction is ever read. Then every element and attribute must be
on an allowlist of drawing elements and presentation attributes; references
(`href`, `url(...)`) may only point into the drawing (`#id`). A file with
anything else is refused, not rewritten: the finding says what to remove.
"""

from __future__ import annotations

import functools
from xml.parsers import expat

from acp_docs.policy import css as csspolicy
from acp_docs.policy.staticproblem import Problem

RULE = "static/svg"
MAX_PROBLEMS = 20
"""An SVG with more problems than this is reported with this many (it is refused all the same)."""

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

ELEMENTS = frozenset(
    {
        *("svg", "g", "defs", "symbol", "use", "title", "desc", "path", "rect", "circle"),
        *("ellipse", "line", "polyline", "polygon", "text", "tspan", "textPath"),
        *("linearGradient", "radialGradient", "stop", "clipPath", "mask", "pattern", "marker"),
        *("filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feFuncA", "feFuncB"),
        *("feFuncG", "feFuncR", "feComposite", "feDropShadow", "feFlood", "feGaussianBlur"),
        *("feMerge", "feMergeNode", "feMorphology", "feOffset"),
    }
)
"""SVG elements that draw, group, describe or define paint: none runs script or loads a file."""

_EXPORT = "export the drawing as plain SVG or as PNG"
HINTS = {
    "script": "remove it, or export the drawing as PNG",
    "foreignObject": "it holds HTML; export text as SVG text, or the drawing as PNG",
    "a": "put the link in the page's Markdown instead",
    "image": "it loads another file; draw it in SVG, or publish a PNG",
    "feImage": "it loads another file; remove it",
    "style": "use presentation attributes (fill=...) or style attributes instead",
    "metadata": f"it holds editor data; {_EXPORT}",
    **dict.fromkeys(
        ("animate", "set", "animateTransform", "animateMotion", "animateColor", "discard"),
        "animation can set links and attributes after the check; remove it",
    ),
}
"""Why the usual suspects are refused, and what to do instead."""

TEXT_ATTRIBUTES = frozenset(
    {
        *("id", "class", "role", "focusable", "version", "baseProfile"),
        *("aria-label", "aria-labelledby", "aria-describedby", "aria-hidden"),
        "aria-roledescription",
    }
)
"""Attributes that hold names or words, never a CSS value."""

GEOMETRY_ATTRIBUTES = frozenset(
    {
        *("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr"),
        *("width", "height", "d", "points", "pathLength", "transform", "viewBox"),
        *("preserveAspectRatio", "dx", "dy", "rotate", "textLength", "lengthAdjust", "offset"),
        *("gradientUnits", "gradientTransform", "spreadMethod", "patternUnits"),
        *("patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits"),
        *("maskContentUnits", "markerUnits", "markerWidth", "markerHeight", "refX", "refY"),
        *("orient", "startOffset", "method", "spacing", "side", "filterUnits"),
        *("primitiveUnits", "in", "in2", "result", "stdDeviation", "mode", "type", "values"),
        *("operator", "k1", "k2", "k3", "k4", "radius", "tableValues", "slope", "intercept"),
        *("amplitude", "exponent"),
    }
)
"""Attributes that place and shape what is drawn."""

PRESENTATION_ATTRIBUTES = frozenset(
    {
        *("alignment-baseline", "baseline-shift", "clip-path", "clip-rule", "color"),
        *("color-interpolation", "color-interpolation-filters", "direction", "display"),
        *("dominant-baseline", "fill", "fill-opacity", "fill-rule", "filter", "flood-color"),
        *("flood-opacity", "font-family", "font-size", "font-size-adjust", "font-stretch"),
        *("font-style", "font-variant", "font-weight", "image-rendering", "letter-spacing"),
        *("lighting-color", "marker-end", "marker-mid", "marker-start", "mask", "opacity"),
        *("overflow", "paint-order", "pointer-events", "shape-rendering", "stop-color"),
        *("stop-opacity", "stroke", "stroke-dasharray", "stroke-dashoffset", "stroke-linecap"),
        *("stroke-linejoin", "stroke-miterlimit", "stroke-opacity", "stroke-width"),
        *("text-anchor", "text-decoration", "text-rendering", "transform-origin"),
        *("unicode-bidi", "vector-effect", "visibility", "word-spacing", "writing-mode"),
        *("mix-blend-mode", "isolation"),
    }
)
"""SVG's presentation attributes: CSS properties that only paint."""

STYLE_PROPERTIES = PRESENTATION_ATTRIBUTES | frozenset(
    {
        *("font", "line-height", "font-variation-settings", "font-feature-settings"),
        *("transform", "transform-box", "white-space"),
    }
)
"""Properties a `style` attribute may set."""

LOCAL_REFERENCE = csspolicy.LOCAL_REFERENCE


class _Stop(Exception):
    """Ends the parse: a document type was seen, or enough problems were found."""


def _shown_name(name: str) -> tuple[str, str, str]:
    """Namespace URI, local name and the name as written, from expat's `uri local prefix`."""
    parts = name.split(" ")
    if len(parts) == 1:
        return "", name, name
    uri, local = parts[0], parts[1]
    prefix = parts[2] if len(parts) > 2 else ""
    return uri, local, f"{prefix}:{local}" if prefix else local


class _Review:
    """The handlers of one parse: each problem at the line and column expat is at."""

    def __init__(self, parser: expat.XMLParserType) -> None:
        self.parser = parser
        self.found: list[Problem] = []
        self.seen_root = False
        self.refused_depth = 0
        """How deep the parse is inside a refused element (0: not inside one)."""

    def flag(self, message: str, fatal: bool = False) -> None:
        line = self.parser.CurrentLineNumber
        col = self.parser.CurrentColumnNumber + 1
        self.found.append(Problem(line, col, message, RULE))
        if fatal or len(self.found) >= MAX_PROBLEMS:
            raise _Stop

    def xml_declaration(self, version: str, encoding: str | None, standalone: int) -> None:
        if encoding is not None and encoding.lower() not in ("utf-8", "us-ascii"):
            self.flag(f"the encoding {csspolicy.shown(encoding)} is not allowed: save it as UTF-8")

    def doctype(self, *_: object) -> None:
        self.flag(
            "an SVG may not have a DOCTYPE: its entities and external files are never read;"
            " remove the <!DOCTYPE ...> line",
            fatal=True,
        )

    def processing_instruction(self, target: str, data: str) -> None:
        self.flag(
            f"an SVG may not hold <?{csspolicy.shown(target)} ...?>: it can load a style sheet"
            f" or transform; remove it"
        )

    def external_entity(self, *_: object) -> int:
        self.flag("an SVG may not refer to an external entity", fatal=True)
        return 0

    def start(self, name: str, attributes: dict[str, str]) -> None:
        if self.refused_depth:
            # Inside a refused element: it goes as a whole, so its content is not listed.
            self.refused_depth += 1
            return
        uri, local, written = _shown_name(name)
        if not self.seen_root:
            self.seen_root = True
            if (uri, local) != (SVG_NS, "svg"):
                self.flag(
                    f"the root element is <{csspolicy.shown(written)}>: an SVG starts with"
                    f' <svg xmlns="{SVG_NS}">',
                    fatal=True,
                )
        problem = _element_problem(uri, local, written)
        if problem:
            self.refused_depth = 1
            self.flag(problem)
            return
        for attribute, value in attributes.items():
            problem = attribute_problem(attribute, value)
            if problem:
                self.flag(f"<{csspolicy.shown(written)}> {problem}")

    def end(self, name: str) -> None:
        if self.refused_depth:
            self.refused_depth -= 1


def _element_problem(uri: str, local: str, written: str) -> str | None:
    if uri != SVG_NS:
        where = f" (namespace {csspolicy.shown(uri)})" if uri else " (no namespace)"
        return (
            f"an SVG may hold SVG elements only, not <{csspolicy.shown(written)}>{where}: {_EXPORT}"
        )
    if local not in ELEMENTS:
        hint = HINTS.get(local, f"allowed elements: {', '.join(sorted(ELEMENTS))}")
        return f"an SVG may not hold <{csspolicy.shown(local)}>: {hint}"
    return None


@functools.lru_cache(maxsize=4096)
def attribute_problem(name: str, value: str) -> str | None:
    """Why an attribute (expat's `uri local prefix` name, its value) is refused, or None.

    Drawings repeat attributes (the same fill on every shape), so answers are remembered.
    """
    uri, local, written = _shown_name(name)
    if not uri and (local in GEOMETRY_ATTRIBUTES or local in PRESENTATION_ATTRIBUTES):
        problem = csspolicy.value_problem(value)
        return f"{csspolicy.shown(written)}: {problem}" if problem else None
    if not uri and local in TEXT_ATTRIBUTES:
        return None
    if not uri and local == "style":
        problem = csspolicy.style_problem(value, STYLE_PROPERTIES)
        return f"style: {problem}" if problem else None
    attribute = csspolicy.shown(written)
    if local == "href" and uri in ("", XLINK_NS):
        if LOCAL_REFERENCE.fullmatch(value):
            return None
        return (
            f"{attribute}={csspolicy.shown(value)!r}: a reference may only point into the"
            " drawing (#id)"
        )
    if uri == XML_NS:
        return None if local in ("lang", "space") else f"may not set {attribute}"
    if uri:
        return f"may not set {attribute} (namespace {csspolicy.shown(uri)}): {_EXPORT}"
    if local.lower().startswith("on"):
        return f"may not set {attribute}: an event handler runs script; remove it"
    return f"may not set {attribute}: it is not a drawing attribute; {_EXPORT}"


def problems(data: bytes) -> list[Problem]:
    """The reasons the SVG `data` may not be published (empty: it may be)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [Problem(line, 1, f"not valid UTF-8 (byte {exc.start}): save it as UTF-8", RULE)]
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.namespace_prefixes = True
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    review = _Review(parser)
    parser.XmlDeclHandler = review.xml_declaration
    parser.StartDoctypeDeclHandler = review.doctype
    parser.EntityDeclHandler = review.doctype
    parser.UnparsedEntityDeclHandler = review.doctype
    parser.NotationDeclHandler = review.doctype
    parser.ProcessingInstructionHandler = review.processing_instruction
    parser.ExternalEntityRefHandler = review.external_entity
    parser.StartElementHandler = review.start
    parser.EndElementHandler = review.end
    try:
        parser.Parse(data, True)
    except _Stop:
        pass
    except expat.ExpatError as exc:
        reason = expat.ErrorString(exc.code)
        review.found.append(
            Problem(exc.lineno, exc.offset + 1, f"not well-formed XML: {reason}", RULE)
        )
    return review.found
