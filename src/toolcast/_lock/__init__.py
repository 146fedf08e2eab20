"""The schema lock: the recorded contract of every tool, and how two records compare.

Pure data in, data out: it reads specs (the catalog's types for annotations
only) and never runs a tool; `toolcast lock` and `toolcast check` in `_cli` load
the tools and call this wing.
"""
