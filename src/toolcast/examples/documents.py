"""Documents: a toolbox a model opens before it can search and read the team's notes.

The model first sees one zero-argument tool, `documents`; calling it lists the
members (`search_documents`, `read_document`) with their schemas, and the host
adds them to the next turn's tools. The notes live in memory; a host would pass
its own store to `Documents`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge, Le

from toolcast import ToolError, tool
from toolcast._catalog._toolbox import toolbox

__all__ = ("Document", "Documents", "Hit")


@dataclass(frozen=True)
class Document:
    """A note in the team's document store."""

    id: str
    title: str
    body: str


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        id: The document's id, for read_document.
        title: The document's title.
    """

    id: str
    title: str


_NOTES = (
    Document(
        "doc-1",
        "Offsite venue shortlist",
        "Springfield, Missouri: the Jordan Valley hall seats 40 and has parking. "
        "Springfield, Illinois: the old state library, 25 seats, near the station.",
    ),
    Document(
        "doc-2",
        "Offsite budget",
        "Travel capped at 300 USD a person; venue at 2,000 USD for two days.",
    ),
    Document("doc-3", "Team lunch rota", "Mondays: Ana. Wednesdays: Ben."),
)


@toolbox("documents", "Search and read the team's notes. Opens the document tools.")
class Documents:
    """The team's notes: search by words, then read one by id."""

    def __init__(self, notes: Mapping[str, Document] | None = None) -> None:
        self.notes = dict(notes) if notes is not None else {d.id: d for d in _NOTES}

    @tool(status="Searching the notes", categories=["documents"])
    def search_documents(self, query: str, limit: Annotated[int, Ge(1), Le(20)] = 5) -> list[Hit]:
        """Find notes whose title or text contains every word of the query.

        Args:
            query: Words to look for, e.g. "offsite venue".
            limit: Maximum number of notes to return.
        """
        words = query.casefold().split()
        hits = [
            Hit(doc.id, doc.title)
            for doc in self.notes.values()
            if all(w in f"{doc.title} {doc.body}".casefold() for w in words)
        ]
        return hits[:limit]

    @tool(status="Reading a note", categories=["documents"])
    def read_document(self, document_id: str) -> str:
        """Read the full text of one note.

        Args:
            document_id: The id search_documents returned, e.g. "doc-1".
        """
        doc = self.notes.get(document_id)
        if doc is None:
            msg = f"No note has the id {document_id!r}. Call search_documents to find one."
            raise ToolError(msg)
        return f"{doc.title}\n\n{doc.body}"
