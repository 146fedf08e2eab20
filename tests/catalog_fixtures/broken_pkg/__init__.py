"""A package whose submodule cannot be imported: recursive discovery must say so."""
