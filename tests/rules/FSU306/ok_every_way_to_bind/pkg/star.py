from os.path import *  # noqa: F403
