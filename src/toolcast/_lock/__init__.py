"""The schema lock: the recorded contract of every tool, and how two records compare.

Pure data in, data out (no imports of tools or the catalog): `toolcast lock` and
`toolcast check` in `_cli` load the tools and call this wing.
"""
