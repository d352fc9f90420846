"""The project's own settings module."""
FSDP_RESHARD = True
