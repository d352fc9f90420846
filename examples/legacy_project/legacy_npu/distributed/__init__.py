"""Distributed training support of legacy_npu."""
