"""A subpackage importing a module that does not exist (walk_packages imports it)."""

from __future__ import annotations

import catalog_fixtures_no_such_dependency  # noqa: F401
