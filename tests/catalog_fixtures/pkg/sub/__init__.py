"""A subpackage without tools of its own."""
