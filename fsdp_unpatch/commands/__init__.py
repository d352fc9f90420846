"""One module per group of sub-commands."""
