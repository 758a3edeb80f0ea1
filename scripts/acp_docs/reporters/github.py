"""Text lines, each followed by a GitHub Actions `::error` workflow command.

Every value is escaped the way the runner unescapes it, so a file name or a
message cannot end the command early or start another one.
"""

from __future__ import annotations

from acp_docs.findings import Finding
from acp_docs.reporters import Report, text


def escape_data(value: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A workflow command's property value: also `:` and `,`."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    """The `::error` command GitHub shows inline on the pull request's diff."""
    safe = finding.path.encode("utf-8", "backslashreplace").decode("utf-8")
    message = finding.message.encode("utf-8", "backslashreplace").decode("utf-8")
    props = ",".join(
        [
            f"file={escape_property(safe)}",
            f"line={finding.line}",
            f"col={finding.col}",
            f"title={escape_property('acp-docs ' + finding.rule_id)}",
        ]
    )
    return f"::error {props}::{escape_data(message)}"


def render(report: Report) -> str:
    """Each finding as a text line and an annotation."""
    out = []
    for finding in sorted(report.findings):
        out += [text.line(finding), annotation(finding)]
    return "".join(line + "\n" for line in out)
