"""Before/after versions of one tool module, for `toolcast lock` / `toolcast check`.

`before` is what was locked; each `after_*` module is the same tools after an
edit: breaking without version bumps, the same edit with bumps, and compatible
changes only.
"""
