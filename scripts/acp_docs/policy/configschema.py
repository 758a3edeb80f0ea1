"""What `mkdocs.yml` and a docs page's front matter may hold: allowlists, as data.

`CONFIG_SCHEMA` is a JSON Schema (draft 2020-12) of every key this site may set
in `mkdocs.yml`, with the type and the pattern of each value; `PAGE_SCHEMA` is
the one of a docs page's front matter. Both are closed: a key they do not list
is an error. A subschema's `description` says in plain words what the value
must be; the messages quote it.

One keyword is not JSON Schema's own: `pythonName` lists the names a
`!!python/name:` tag may give at that place (`acp_docs.policy.mkdocsconfig`
validates it). `PYTHON_NAMES` is every name the tag may give, each with why.

Material for MkDocs 9.8.1 prints configuration values and page metadata into
attributes, inline scripts and template paths without escaping them, so a
value that is printed is held to a pattern that cannot leave its place:
plain text, a name from a list, or a relative path inside `docs/`.
"""

from __future__ import annotations

from typing import Any

PLAIN_TEXT = r'^[^<>"\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$'
"""Text without markup, quotes, control, format (bidirectional) or line-separator characters."""
PLAIN_TEXT_WORDS = 'plain text (no <, >, ", control or bidirectional characters)'

_SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
_DOT_SEGMENT = r"\.?[A-Za-z0-9_][A-Za-z0-9_.-]*"
RELATIVE_PATH = rf"^{_DOT_SEGMENT}(/{_DOT_SEGMENT})*$"
"""A relative path: no leading `/`, scheme, `//` or `..` (a hidden name like `.x` is fine)."""
PAGE_PATH = rf"^{_SEGMENT}(/{_SEGMENT})*\.md$"
IDENT = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
"""A CSS class or identifier."""
SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"
ENV_PREFIX = "ACP_DOCS_"
ENV_PLACES = frozenset({"/site_url"})
"""Where `!ENV` may stand (with `ACP_DOCS_*` variables only)."""

PYTHON_NAMES: dict[str, str] = {
    "pymdownx.superfences.fence_code_format": (
        "formats a custom fence as <pre><code> with its text escaped"
    ),
    "pymdownx.superfences.fence_div_format": (
        "formats a custom fence as a <div> with its text escaped"
    ),
    "pymdownx.superfences.default_validator": (
        "accepts a custom fence's options as superfences does by default"
    ),
    "pymdownx.superfences.highlight_validator": (
        "accepts a custom fence's highlighting options (hl_lines, linenums)"
    ),
    "markdown.extensions.toc.slugify": (
        "Python-Markdown's own heading slugs (the default of toc and tabbed)"
    ),
    "markdown.extensions.toc.slugify_unicode": (
        "Python-Markdown's heading slugs that keep non-ASCII letters"
    ),
}
"""Every dotted name `!!python/name:` may give, and why it is safe: each is a
pure function of its arguments that writes nothing and reads no file."""

_FENCE_FORMATS = ["pymdownx.superfences.fence_code_format", "pymdownx.superfences.fence_div_format"]
_FENCE_VALIDATORS = [
    "pymdownx.superfences.default_validator",
    "pymdownx.superfences.highlight_validator",
]
_SLUGIFIERS = ["markdown.extensions.toc.slugify", "markdown.extensions.toc.slugify_unicode"]

MATERIAL_FEATURES = [
    "announce.dismiss",
    "content.code.annotate",
    "content.code.copy",
    "content.code.select",
    "content.footnote.tooltips",
    "content.tabs.link",
    "content.tooltips",
    "header.autohide",
    "navigation.expand",
    "navigation.footer",
    "navigation.indexes",
    "navigation.instant",
    "navigation.instant.prefetch",
    "navigation.instant.preview",
    "navigation.instant.progress",
    "navigation.path",
    "navigation.prune",
    "navigation.sections",
    "navigation.tabs",
    "navigation.tabs.sticky",
    "navigation.top",
    "navigation.tracking",
    "search.highlight",
    "search.share",
    "search.suggest",
    "toc.follow",
    "toc.integrate",
]
"""Material's features, but `content.action.*` (they need `repo_url`, which is not allowed)."""

MATERIAL_PRIMARY = [
    "red",
    "pink",
    "purple",
    "deep purple",
    "indigo",
    "blue",
    "light blue",
    "cyan",
    "teal",
    "green",
    "light green",
    "lime",
    "yellow",
    "amber",
    "orange",
    "deep orange",
    "brown",
    "grey",
    "blue grey",
    "black",
    "white",
]
MATERIAL_ACCENT = MATERIAL_PRIMARY[: MATERIAL_PRIMARY.index("deep orange") + 1]

_LANGUAGE_NAMES = (
    "af ar az be bg bn ca cs cy da de el en eo es et eu fa fi fr gl he hi hr hu hy id is it"
    " ja ka kn ko ku-IQ lb lt lv mk mn ms my nb nl nn pl pt-BR pt ro ru sa sh si sk sl sq"
    " sr sv ta te th tl tr uk ur uz vi zh-Hant zh-TW zh"
)
MATERIAL_LANGUAGES = _LANGUAGE_NAMES.split()
"""Material's languages (its `partials/languages/*.html`): the name is a template path."""

_SEARCH_NAMES = (
    "ar da de du el en es fi fr he hi hu hy it ja kn ko nl no pt ro ru sa sv ta te th tr vi zh"
)
SEARCH_LANGUAGES = _SEARCH_NAMES.split()
"""The languages Material's search has lunr stemmers for (`lunr/min/lunr.<lang>.min.js`)."""

MATERIAL_ICON = (
    r"^(material|fontawesome/(brands|regular|solid)|octicons|simple)/[a-z0-9]+(-[a-z0-9]+)*$"
)
"""An icon of Material's bundled sets: Material includes `.icons/<name>.svg` as a template."""

LOG_LEVELS = ["warn", "info", "ignore"]


def _text(max_length: int = 200) -> dict[str, Any]:
    return {
        "type": "string",
        "maxLength": max_length,
        "pattern": PLAIN_TEXT,
        "description": PLAIN_TEXT_WORDS,
    }


def _pattern(pattern: str, words: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": 200, "pattern": pattern, "description": words}


def _closed(properties: dict[str, Any], words: str, **more: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "description": words,
        **more,
    }


def _list(items: dict[str, Any], words: str, **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, "description": words, **more}


def _enum(values: list[Any]) -> dict[str, Any]:
    return {"enum": values}


def _python_name(names: list[str]) -> dict[str, Any]:
    return {"pythonName": names}


_BOOL = {"type": "boolean", "description": "true or false"}
_NONE = {
    "type": ["object", "null"],
    "maxProperties": 0,
    "description": "empty: it takes no options here",
}
_CLASS = _pattern(IDENT, "a CSS class name (letters, digits, - and _)")
_DOCS_FILE = "a relative path to a file inside docs/ (no scheme, no //, no leading / or ..)"
_IMAGE = _pattern(
    rf"^{_SEGMENT}(/{_SEGMENT})*\.(png|svg|ico|webp|jpg|jpeg|gif)$",
    "a relative path to an image inside docs/ (.png, .svg, .ico, .webp, .jpg, .gif)",
)


def _named(options: dict[str, dict[str, Any]], names_only: list[str], words: str) -> dict[str, Any]:
    """An entry of a list of names: a bare name, or a mapping of one name to its options."""
    return {
        "if": {"type": "string"},
        "then": {"enum": names_only},
        "else": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "properties": options,
            "additionalProperties": False,
            "description": words,
        },
    }


_SLUGIFY = _python_name(_SLUGIFIERS)
_SEPARATOR = _pattern(r"^[-_.]$", "one of -, _ or .")

EXTENSIONS: dict[str, dict[str, Any]] = {
    "abbr": _NONE,
    "admonition": _NONE,
    "attr_list": _NONE,
    "def_list": _NONE,
    "footnotes": _NONE,
    "md_in_html": _NONE,
    "tables": _closed({"use_align_attribute": _BOOL}, "a mapping of its options"),
    "toc": _closed(
        {
            "permalink": {
                "if": {"type": "boolean"},
                "else": _text(16),
            },
            "permalink_title": _text(),
            "permalink_class": _CLASS,
            "permalink_leading": _BOOL,
            "anchorlink": _BOOL,
            "anchorlink_class": _CLASS,
            "baselevel": {"type": "integer", "minimum": 1, "maximum": 6, "description": "1 to 6"},
            "toc_depth": {
                "if": {"type": "integer"},
                "then": {"minimum": 1, "maximum": 6, "description": "1 to 6"},
                "else": _pattern(r"^[1-6]-[1-6]$", "a level (1 to 6) or a range like 2-4"),
            },
            "title": _text(),
            "toc_class": _CLASS,
            "slugify": _SLUGIFY,
            "separator": _SEPARATOR,
        },
        "a mapping of its options",
    ),
    "pymdownx.details": _NONE,
    "pymdownx.highlight": _closed(
        {
            "use_pygments": _BOOL,
            "guess_lang": _BOOL,
            "css_class": _CLASS,
            "linenums": _BOOL,
            "linenums_style": _enum(["table", "inline", "pymdownx-inline"]),
            "linenums_special": {
                "type": "integer",
                "minimum": -1,
                "maximum": 1000,
                "description": "a whole number from -1 to 1000",
            },
            "linenums_class": _CLASS,
            "language_prefix": _pattern(r"^[A-Za-z_-]{0,32}$", "a class prefix (letters, - and _)"),
            "code_attr_on_pre": _BOOL,
            "auto_title": _BOOL,
            "line_spans": _pattern(r"^([A-Za-z_][A-Za-z0-9_-]{0,31})?$", "a CSS class name"),
            "anchor_linenums": _BOOL,
            "line_anchors": {"if": {"type": "boolean"}, "then": {"const": False}, "else": _CLASS},
            "pygments_lang_class": _BOOL,
            "stripnl": _BOOL,
            "default_lang": _pattern(r"^[a-z0-9+#-]{0,32}$", "a language name"),
        },
        "a mapping of its options",
    ),
    "pymdownx.inlinehilite": _closed(
        {
            "style_plain_text": {"if": {"type": "boolean"}, "else": _CLASS},
            "css_class": _CLASS,
        },
        "a mapping of its options (style_plain_text, css_class)",
    ),
    "pymdownx.superfences": _closed(
        {
            "disable_indented_code_blocks": _BOOL,
            "css_class": _CLASS,
            "preserve_tabs": _BOOL,
            "relaxed_headers": _BOOL,
            "custom_fences": _list(
                _closed(
                    {
                        "name": _pattern(r"^([a-z0-9][a-z0-9+#_-]{0,31}|\*)$", "a language name"),
                        # Material loads Mermaid from a CDN for any `.mermaid` element.
                        "class": {
                            **_CLASS,
                            "not": {
                                "const": "mermaid",
                                "description": "mermaid: Material would load Mermaid from a CDN",
                            },
                        },
                        "format": _python_name(_FENCE_FORMATS),
                        "validator": _python_name(_FENCE_VALIDATORS),
                    },
                    "a mapping of name, class, format and validator",
                    required=["name", "class", "format"],
                ),
                "a list of custom fences",
            ),
        },
        "a mapping of its options",
    ),
    "pymdownx.tabbed": _closed(
        {
            "alternate_style": _BOOL,
            "combine_header_slug": _BOOL,
            "slugify": _SLUGIFY,
            "separator": _SEPARATOR,
        },
        "a mapping of its options",
    ),
}
"""Each Markdown extension the site may use, with the options it may take. Left
out on purpose: the ones that read files by path (`pymdownx.snippets`,
`pymdownx.b64`), turn text into links or markup the sanitizer must then judge
(`pymdownx.magiclink`, `pymdownx.emoji`), or take formatters (`custom_inline`)."""

PLUGINS: dict[str, dict[str, Any]] = {
    "search": _closed(
        {
            "lang": {
                "if": {"type": "string"},
                "then": _enum(SEARCH_LANGUAGES),
                "else": _list(_enum(SEARCH_LANGUAGES), "a list of search languages"),
            },
            "separator": _text(100),
            "pipeline": _list(
                _enum(["stemmer", "stopWordFilter", "trimmer"]),
                "a list of lunr pipeline functions",
                uniqueItems=True,
            ),
        },
        "a mapping of its options (lang, separator, pipeline)",
    ),
    "acp-docs": _NONE,
}
"""The plugins the site may use. Left out: every plugin that writes files
(`offline`, `tags`'s export, `blog`, `social`), reaches the network (`privacy`,
`social`), runs other programs (`optimize`) or reads files the checks do not
(`meta`, `blog`), and any plugin of another package."""

_PALETTE = _closed(
    {
        "media": _pattern(
            r"^\(prefers-color-scheme(: (light|dark))?\)$",
            "(prefers-color-scheme), (prefers-color-scheme: light) or (prefers-color-scheme: dark)",
        ),
        "scheme": _enum(["default", "slate"]),
        "primary": _enum(MATERIAL_PRIMARY),
        "accent": _enum(MATERIAL_ACCENT),
        "toggle": _closed(
            {
                "icon": _pattern(r"^material/[a-z0-9]+(-[a-z0-9]+)*$", "a material/... icon name"),
                "name": _text(80),
            },
            "a mapping of icon and name",
            required=["icon", "name"],
        ),
    },
    "a mapping of media, scheme, primary, accent and toggle",
)

_ICON = _pattern(MATERIAL_ICON, "an icon name like material/library")

_THEME = _closed(
    {
        "name": {"const": "material"},
        "language": _enum(MATERIAL_LANGUAGES),
        "font": {"const": False},
        "features": _list(
            _enum(MATERIAL_FEATURES), "a list of Material features", uniqueItems=True
        ),
        "palette": _list(_PALETTE, "a list of palette entries", minItems=1, maxItems=3),
        "favicon": _IMAGE,
        "logo": _IMAGE,
        "icon": _closed(
            {
                name: _ICON
                for name in ("logo", "menu", "close", "search", "top", "previous", "next", "share")
            },
            "a mapping of icon names (logo, menu, close, search, top, previous, next, share)",
        ),
    },
    "a mapping with the theme's name (material) and its settings",
    required=["name"],
)

_LEVELS = {"enum": LOG_LEVELS}
_ABSOLUTE_LEVELS = {"enum": [*LOG_LEVELS, "relative_to_docs"]}

_NAV_ITEM: dict[str, Any] = {
    "if": {"type": "string"},
    "then": _pattern(PAGE_PATH, "a relative path to a .md page (no scheme, no leading / or ..)"),
    "else": {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": _text(120),
        "additionalProperties": {
            "if": {"type": "string"},
            "then": _pattern(
                PAGE_PATH, "a relative path to a .md page (no scheme, no leading / or ..)"
            ),
            "else": _list({"$ref": "#/$defs/nav_item"}, "a page path or a list of entries"),
        },
        "description": "a page path, or a mapping of one title to a page path or a list",
    },
}

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "mkdocs.yml of the ACP RFD site",
    **_closed(
        {
            "site_name": _text(120),
            "site_description": _text(400),
            "site_author": _text(),
            "site_url": _pattern(
                r"^(https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~-]+)*/?)?$",
                "empty or an http(s) address of the site (host, port and path only)",
            ),
            "copyright": _text(300),
            "docs_dir": _pattern(RELATIVE_PATH, "a relative folder inside the checkout"),
            "site_dir": _pattern(RELATIVE_PATH, "a relative folder inside the checkout"),
            "use_directory_urls": _BOOL,
            "strict": _BOOL,
            "dev_addr": _pattern(
                r"^(127\.0\.0\.1|localhost):[0-9]{1,5}$", "127.0.0.1:<port> or localhost:<port>"
            ),
            "theme": _THEME,
            "extra_css": _list(
                _pattern(rf"^{_SEGMENT}(/{_SEGMENT})*\.css$", _DOCS_FILE + ", ending in .css"),
                "a list of style sheets inside docs/",
                uniqueItems=True,
            ),
            "extra_javascript": _list(
                _pattern(rf"^{_SEGMENT}(/{_SEGMENT})*\.m?js$", _DOCS_FILE + ", ending in .js"),
                "a list of scripts inside docs/",
                uniqueItems=True,
            ),
            "watch": _list(
                _pattern(RELATIVE_PATH, "a relative path inside the checkout"),
                "a list of paths inside the checkout",
                uniqueItems=True,
            ),
            "plugins": _list(
                _named(
                    PLUGINS,
                    list(PLUGINS),
                    "a plugin name, or a mapping of one plugin name to its options",
                ),
                "a list of plugins",
                uniqueItems=True,
            ),
            "markdown_extensions": _list(
                _named(
                    EXTENSIONS,
                    list(EXTENSIONS),
                    "an extension name, or a mapping of one extension name to its options",
                ),
                "a list of Markdown extensions",
            ),
            "validation": _closed(
                {
                    "nav": _closed(
                        {
                            "omitted_files": _LEVELS,
                            "not_found": _LEVELS,
                            "absolute_links": _ABSOLUTE_LEVELS,
                        },
                        "a mapping of levels (omitted_files, not_found, absolute_links)",
                    ),
                    "links": _closed(
                        {
                            "not_found": _LEVELS,
                            "anchors": _LEVELS,
                            "absolute_links": _ABSOLUTE_LEVELS,
                            "unrecognized_links": _LEVELS,
                        },
                        "a mapping of levels (not_found, anchors, absolute_links and"
                        " unrecognized_links)",
                    ),
                },
                "a mapping of nav and links levels",
            ),
            "nav": _list({"$ref": "#/$defs/nav_item"}, "a list of navigation entries"),
            "extra": _closed(
                {"generator": _BOOL},
                "a mapping of Material's extra settings this site may use (generator)",
            ),
        },
        "a mapping of MkDocs settings",
        required=["site_name"],
    ),
    "$defs": {"nav_item": _NAV_ITEM},
}
"""What `mkdocs.yml` may hold. Left out on purpose: `hooks` and `INHERIT` (Python
files and other configuration run or read by MkDocs), `theme.custom_dir` and
`extra_templates` (Jinja templates can call Python), `repo_url` (Material then
asks the GitHub API from every reader's browser), analytics, consent, social
links and every other `extra` key (printed into inline scripts and attributes)."""

PAGE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "front matter of a docs page",
    **_closed(
        {
            "title": {**_text(200), "minLength": 1},
            "rfd": _pattern(SLUG, "the name of an RFD in rfds/ (kebab-case, like session-labels)"),
            "hide": _list(
                _enum(["navigation", "toc", "footer", "path", "feedback"]),
                "a list of what Material may hide (navigation, toc, footer, path, feedback)",
                uniqueItems=True,
            ),
            "search": _closed(
                {
                    "boost": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 100,
                        "description": "a number from 0 to 100",
                    },
                    "exclude": _BOOL,
                },
                "a mapping of boost and exclude",
            ),
        },
        "a mapping of title, rfd, hide and search",
    ),
}
"""What a docs page's front matter may hold. Left out on purpose: the keys
Material prints unescaped or uses as template paths (`description`,
`subtitle`, `icon`, `status`, `template`, `author`, ...)."""

WHY_NOT: dict[str, str] = {
    "hooks": "hooks run Python files during the build",
    "INHERIT": "INHERIT reads another file as configuration",
    "custom_dir": "templates are code (Jinja can call Python); the site uses the theme's own",
    "extra_templates": "extra_templates are rendered as Jinja templates, which can call Python",
    "static_templates": "static_templates are rendered as Jinja templates, which can call Python",
    "repo_url": "with it Material asks the GitHub API from every reader's browser",
    "mdx_configs": "give an extension's options beside its name in markdown_extensions",
    "pymdownx.snippets": "it reads files by path; an RFD stands alone",
    "pymdownx.b64": "it reads files by path; an RFD stands alone",
    "jieba_dict": "it reads a file by path",
    "jieba_dict_user": "it reads a file by path",
    "privacy": "it fetches from the network",
    "social": "it fetches from the network and writes files",
    "optimize": "it runs other programs",
    "offline": "it writes files into the site",
    "tags": "it can export files",
    "blog": "it reads and writes files the checks do not",
    "meta": "it reads files the checks do not",
    "analytics": "Material prints it into an inline script",
    "consent": "Material prints it into an inline script",
}
"""Why some well-known keys and names are not on the allowlists, for the messages."""
