"""Every public name of the adapter, copied into the package at import: the fix is held back."""
from pkg import npu_adapter

globals().update({k: v for k, v in vars(npu_adapter).items() if not k.startswith("_")})
