import torch
from torch.distributed.fsdp import not_a_torch_name  # outside the project: not this rule's business

import pkg
from pkg import Klass, annotated, assigned, caught, conditional, first, function, kept, looped, made_global
from pkg import managed, rest, second, sub, tried, walrus
from pkg.lazy import anything_at_all
from pkg.star import joined_somewhere
from pkg.sub import child

try:
    from pkg import missing_but_handled
except ImportError:
    missing_but_handled = None

print(pkg.operating_system, torch.nn, pkg.sub.child, anything_at_all, joined_somewhere, child, not_a_torch_name)
