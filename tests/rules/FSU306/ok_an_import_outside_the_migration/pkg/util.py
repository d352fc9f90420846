"""A module of the project that has nothing to do with FSDP2: what is imported from it is a type checker's
business, not the migration's."""


def helper():
    return 1
