"""Generated lookup table."""
TABLE = {}
