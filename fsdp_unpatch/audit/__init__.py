"""The `_foreach_copy_` impact audit (`fsdp-unpatch audit foreach-copy`): every call site, what kind it is,
whether it can reach the fast path.

Removing the NPU collectives patch relies on the backend's same-device `_foreach_copy_` fast path being
device-async (design review, section 3.1). That change reaches every caller of `torch._foreach_copy_`, not
only FSDP2: the review had to list them by hand (section 5.4). This package lists them from the code
(`call_sites.py`, with the devices read by `devices.py`, reported by `report.py`):

- call sites of `torch._foreach_copy_` (any import spelling, `torch.ops.aten._foreach_copy_`);
- compiler registrations naming `aten._foreach_copy` (`register_foreach_pointwise(aten._foreach_copy, copy)`);
- mocks of it (`mock.patch("torch._foreach_copy_")`, `patch.object(torch, "_foreach_copy_")`,
  `monkeypatch.setattr(...)`).

For a call, the devices of destination and source are read from the code where they can be told
(`device="npu"`, `.to("cpu")`, `.cpu()`/`.npu()`, `pin_memory`, factories on the default device, views and
`*_like` of a tensor whose device is known, through local assignments); the fast path needs both on the same
device (and the same dtype and layout, which the audit does not see). `non_blocking` decides what a copy that
does not take the fast path does.
"""
