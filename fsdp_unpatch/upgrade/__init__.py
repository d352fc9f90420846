"""What a torch upgrade does to the overrides that stay: every FSDP2 function of every release
(`releases.py`), and the comparison of two releases for each override (`analysis.py`)."""
