"""ccexport: AI coding-assistant sessions as notes in an Obsidian vault."""

__version__ = "0.1.0"
