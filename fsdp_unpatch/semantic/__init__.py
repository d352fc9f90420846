"""The semantic model below the rules: what one file's install sites are, decided once, as data.

Nothing here imports `fsdp_unpatch.rules`: a rule reads a verdict and says it (its message, its fix).
"""
