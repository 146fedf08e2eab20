from __future__ import annotations

import sys
from pathlib import Path

# tests/corpus.py and friends are imported as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
