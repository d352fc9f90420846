"""Imported only under TYPE_CHECKING: names it lacks are never imported at run time."""
