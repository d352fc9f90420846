"""The shim's own copy of FSDP2's parameter group: it defines the class, it patches nothing of torch's."""
import torch

from otherfw.torch_shim.fsdp import collectives


class FSDPParamGroup:
    def __init__(self, params, device):
        self.fsdp_params = params
        self.device = device
        self._reduce_scatter_state = None

    def finalize_backward(self):
        if self._reduce_scatter_state is not None:
            torch.cuda.current_stream().wait_event(self._reduce_scatter_state.event)
            self._reduce_scatter_state = None

    def copy_in(self, inputs, split_sizes, numel, world_size, rank):
        return torch.ops.fsdp.all_gather_copy_in(inputs, split_sizes, numel, world_size, rank, torch.float32, self.device)


FSDPParamGroup.post_forward = FSDPParamGroup.finalize_backward
