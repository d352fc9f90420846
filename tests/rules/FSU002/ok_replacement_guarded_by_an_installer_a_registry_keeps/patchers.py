from npu_adapter import install

PATCHERS = {"fsdp": install}
