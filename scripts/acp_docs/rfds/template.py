"""What upstream's template and process ask of an RFD: its sections, statuses and places."""

from __future__ import annotations

CHECK = "rfds"
TEMPLATE_NAME = "TEMPLATE.md"
FRONT_MATTER_SCHEMA = "schema/rfd-front-matter.schema.json"

SECTIONS = (
    "Elevator pitch",
    "Status quo",
    "What we propose to do about it",
    "Shiny future",
    "Implementation details and plan",
    "Frequently asked questions",
    "Revision history",
)
FAQ, HISTORY = SECTIONS[5], SECTIONS[6]

PROMPTS = {
    "Elevator pitch": "What are you proposing to change?",
    "Status quo": (
        "How do things work today and what problems does this cause? Why would we change things?"
    ),
    "What we propose to do about it": "What are you proposing to improve the situation?",
    "Shiny future": "How will things will play out once this feature exists?",
    "Implementation details and plan": (
        "Tell me more about your implementation. What is your detailed implementation plan?"
    ),
    "Frequently asked questions": (
        "What questions have arisen over the course of authoring this document or during"
        " subsequent discussions?"
    ),
}
"""The `>` prompt line upstream's template keeps under each section, word for word."""

ALTERNATIVES = "What alternative approaches did you consider, and why did you settle on this one?"
"""The question upstream's template opens the FAQ with."""

ALWAYS = ("Elevator pitch", "Status quo")
"""The sections every RFD has from its first draft: upstream's RFDs may start minimal."""

REQUIRED_FROM = {
    "What we propose to do about it": "active",
    "Shiny future": "active",
    "Frequently asked questions": "active",
    "Implementation details and plan": "preview",
}
"""The status from which each of the other sections is required (optional before it).

Upstream's template marks "What we propose to do about it" and "Shiny future"
optional when an RFD is first opened, and "Implementation details and plan"
optional and not recommended then; its process lets a Draft start with the
elevator pitch and the status quo. The revision history stays optional.
"""

STATUSES = {
    "draft": "Draft",
    "active": "Active",
    "preview": "Preview",
    "completed": "Completed",
    "to-be-removed": "To be removed",
}
"""Front-matter status -> the navigation group under "RFDs" that must hold the RFD."""


_MATURITY = {"draft": 0, "to-be-removed": 0, "active": 1, "preview": 2, "completed": 3}
"""How far an RFD got: "To be removed" holds RFDs that landed as Drafts, so it asks no more."""


def required_sections(status: str | None) -> tuple[str, ...]:
    """The template sections an RFD of `status` must have, in template order."""
    rank = _MATURITY.get(status or "", 0)
    return tuple(
        name
        for name in SECTIONS
        if name in ALWAYS or (name in REQUIRED_FROM and rank >= _MATURITY[REQUIRED_FROM[name]])
    )


def status_page(status: str) -> str:
    """The docs page that lists the RFDs of one status: the index of its navigation group."""
    return f"rfds/{status}/index.md"


NAV_SECTION = "RFDs"


def nav_group(group: str, folder: str | None) -> tuple[str, ...]:
    """The navigation sections that hold an RFD: RFDs > its status group, and > the version's
    folder for an RFD about one version alone (`rfds/<folder>/`).

    Upstream nests such RFDs the same way, in a group of the status group named like the folder.
    """
    return (NAV_SECTION, group, folder) if folder else (NAV_SECTION, group)
