"""Definition: a Python function (or a hand-written schema) becomes a spec and a validator.

One walk over the annotations builds the JSON Schema fragment and the
pydantic-core validator together (`_schema`), so the two cannot drift apart.
May import the root vocabulary (`errors`, `_json`, `_content`, `_context`,
`_messages`) and the `Alias` marker of `aliases`; never the runtime (`_tool`), the
catalog, the providers or the command line.
"""
