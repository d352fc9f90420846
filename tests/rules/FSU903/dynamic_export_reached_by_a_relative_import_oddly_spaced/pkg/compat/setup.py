from  . import apply_npu_collectives_patch

apply_npu_collectives_patch()
