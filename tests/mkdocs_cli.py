"""`mkdocs` as its installed command runs it, as `main(argv)`: what `conftest.run` forks."""

from __future__ import annotations


def main(argv: list[str]) -> int:
    """Run the `mkdocs` command line with `argv`; it ends by raising SystemExit."""
    from mkdocs.__main__ import cli

    cli.main(args=argv, prog_name="mkdocs")
    return 0
