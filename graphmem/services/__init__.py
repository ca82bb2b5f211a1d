"""The services: each lifecycle step as a class that talks to the store through
named statements, wired once in ``wiring``."""
