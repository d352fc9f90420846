"""A run over many files: the engine, linking across files, the batch, the cache, progress."""
