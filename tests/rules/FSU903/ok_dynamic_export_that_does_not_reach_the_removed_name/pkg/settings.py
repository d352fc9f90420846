DEVICE = "npu"
