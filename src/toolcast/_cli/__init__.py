"""The `toolcast` command: inspect, call, lock, check, demo; terminal layout.

The top of the flow: it may import every other wing, and nothing imports it.
"""
