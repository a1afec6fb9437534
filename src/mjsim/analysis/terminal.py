"""Tables for the terminal: every table mjsim prints is a FoldingTable."""
from __future__ import annotations

from rich.table import Table


class FoldingTable(Table):
    """A rich Table whose cells wrap onto more lines on a terminal too narrow for it, instead
    of being cut to '…' (rich's default): a cut interval or SQL value would hide its digits.
    Off a terminal the CLI lays tables out at full width (cli.common.whole_width)."""

    def __rich_console__(self, console, options):
        # every column, also those add_row made without add_column (key/value tables)
        for column in self.columns:
            column.overflow = "fold"
        yield from super().__rich_console__(console, options)
