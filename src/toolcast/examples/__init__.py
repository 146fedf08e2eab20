"""Example tools shipped with toolcast, for the docs, `toolcast demo` and experiments.

`places` holds an async and a sync tool over a small in-memory gazetteer (one has
a bounded argument a model can get wrong), and `documents` a toolbox a model opens
before it can search or read the team's notes. `catalog()` puts them together the
way a host would. Nothing here touches the network. Try
`toolcast inspect toolcast.examples:catalog --provider anthropic`.
"""

from __future__ import annotations

from toolcast._catalog._catalog import Catalog
from toolcast._catalog._discovery import FixedResolver
from toolcast.examples import documents, places

__all__ = ("catalog",)


def catalog() -> Catalog:
    """The example catalog: the places tools and the documents toolbox."""
    # Documents' tools are methods: the host says which object they run on.
    resolver = FixedResolver(documents.Documents())
    return Catalog.from_modules(places, documents, resolver=resolver, cache=False)
