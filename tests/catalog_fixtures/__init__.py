"""Example tool modules for the catalog, toolbox, tool-set and lock tests."""
