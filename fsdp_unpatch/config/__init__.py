"""Configuration: files, settings, exclusion and which files a run looks at."""
