"""Document tools: a toolbox class of instance, static and class methods, plus a
plain class whose methods are top-level tools."""

from __future__ import annotations

from toolcast._catalog._toolbox import toolbox
from toolcast._define._decorator import tool


class DocumentStore:
    """A stand-in for a client object the host owns."""

    def __init__(self, prefix: str = "doc") -> None:
        self.prefix = prefix


@toolbox("documents", "Read and search the document archive.")
class DocumentTools:
    def __init__(self, store: DocumentStore | None = None) -> None:
        self.store = store or DocumentStore()

    @tool(categories=["documents", "search"])
    def search_documents(self, text: str) -> list[str]:
        """Search documents by text."""
        return [f"{self.store.prefix}:{text}"]

    @tool(categories=["documents"])
    def read_document(self, doc_id: str) -> str:
        """Read one document."""
        return f"{self.store.prefix} {doc_id}"

    @tool(always_available=True, categories=["documents"])
    @staticmethod
    def document_help() -> str:
        """Explain how documents are organised."""
        return "Documents are grouped by year."

    @tool
    @classmethod
    def document_count(cls) -> int:
        """Count documents."""
        return 42

    @tool(deprecated="Use read_document.", replaced_by="read_document")
    def open_document(self, doc_id: str) -> str:
        """Open a document (old name)."""
        return f"opened {doc_id}"

    @tool(register=False)
    def purge_documents(self) -> str:
        """Never scanned: hosts add it by hand if at all."""
        return "purged"

    def internal_helper(self) -> str:
        """A plain method: never a tool."""
        return "internal"


class Notes:
    """A plain class with method tools: they are top-level tools, not a toolbox."""

    def __init__(self, owner: str = "nobody") -> None:
        self.owner = owner

    @tool(categories=["notes"])
    def add_note(self, text: str) -> str:
        """Add a note."""
        return f"{self.owner} noted {text}"


@toolbox
class ArchiveAdmin:
    """Archive administration."""

    @tool(categories=["admin"])
    @staticmethod
    def archive_stats() -> str:
        """Report archive statistics."""
        return "stats"
