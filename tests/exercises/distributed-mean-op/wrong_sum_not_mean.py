# Wrong: returned the sum over the group, not the mean
mean_script = """
import torch
import torch.distributed._functional_collectives as funcol
from join import device, finish, group, rank


@torch.library.custom_op(
    "course::group_mean", mutates_args=(), schema="(Tensor x, Any group) -> Tensor"
)
def group_mean(x, group):
    return funcol.wait_tensor(funcol.all_reduce(x, "sum", group))


@group_mean.register_fake
def _(x, group):
    return torch.empty_like(x)


x = torch.full((4,), rank + 1.0, device=device)
eager = group_mean(x, group)
mean_of = torch.compile(lambda t: group_mean(t, group), fullgraph=True, backend="eager")
finish("mean", {"eager": eager.tolist(), "compiled": mean_of(x).tolist(),
                "x after": x.tolist()})
"""
