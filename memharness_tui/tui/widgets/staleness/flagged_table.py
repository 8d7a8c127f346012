"""The flagged table: a virtual :class:`ResultsTable` whose cells are built only for rows drawn.

With tens of thousands of flagged facts, building every row's cells up front (or a DataTable
measuring each one) is what capped the old table at 300 rows. Here a row's cells come from
``row_cells(index)`` the first time the row is painted and are cached until :meth:`refresh_row`
or a new :meth:`set_source`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text

from memharness_tui.tui.widgets.results_table import Col, ResultsTable

RowCells = Callable[[int], list[Text]]


class LazyRows:
    """``rows[i]`` builds row ``i``'s cells on first use (a list-like stand-in for ResultsTable)."""

    def __init__(self, count: int, build: RowCells) -> None:
        self.count = count
        self.build = build
        self.built: dict[int, list[Text]] = {}

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> list[Text]:
        row = self.built.get(index)
        if row is None:
            row = self.build(index)
            self.built[index] = row
        return row

    def forget(self, index: int) -> None:
        self.built.pop(index, None)


class FlaggedTable(ResultsTable):
    """Every flagged row, keyed by fact id (as a string); cells are ``Text``, never markup."""

    def __init__(self, columns: Sequence[Col], *, id: str | None = None) -> None:
        super().__init__(columns, id=id)
        self._rows = LazyRows(0, lambda _i: [])

    def set_source(self, keys: list[str], build: RowCells, *, keep: str | None = None,
                   cursor: int = 0) -> None:
        """Show ``keys`` (one per row); a row's cells are ``build(index)`` when it is drawn."""
        self._keys = list(keys)
        self._rows = LazyRows(len(self._keys), build)
        self._cells = self._rows  # type: ignore[assignment]
        self._rows_replaced(cursor, keep)

    def refresh_row(self, key: str) -> None:
        """Rebuild one row's cells on its next paint (its data changed)."""
        i = self._index.get(key)
        if i is None:
            return
        self._rows.forget(i)
        self._cache = {k: v for k, v in self._cache.items() if k[0] != i}
        self.refresh()

    def refresh_rows(self) -> None:
        """Rebuild every row's cells on their next paint (marks or widths changed)."""
        self._rows.built.clear()
        self._cache.clear()
        self.refresh()

    def get_row(self, key: str) -> list[Text]:
        return list(self._rows[self._index[key]])

    def move_cursor(self, *, row: int, animate: bool = False) -> None:  # DataTable's signature
        super().move_cursor(row=row)

    def visible_range(self) -> range:
        """Indexes of the rows on screen (empty before layout)."""
        height = self.size.height - 1  # minus the header
        if height <= 0:
            return range(0)
        first = int(self.scroll_y)
        return range(first, min(first + height, len(self._keys)))
