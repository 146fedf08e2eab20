"""Organisation: catalogs, discovery in modules, toolboxes and per-model tool sets.

A `ToolSet` is the security boundary a model's calls resolve against. May import
the root (`_tool`, `_spec`, `errors`) and `_define`; never the providers, the
lock or the command line.
"""
