import pkg

pkg.apply_npu_collectives_patch()
