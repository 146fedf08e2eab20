"""`python -m toolcast`: the same command line as the `toolcast` script."""

from __future__ import annotations

from toolcast._cli._main import main

raise SystemExit(main())
