# Wrong: replaces TorchScript but keeps the line that overwrites MASTER_PORT with 29500
fixed_train = train_source.replace("from torch import jit\n", "").replace(
    "return jit.script(Net())",
    "return torch.export.export(Net(), (torch.ones(1, 4),)).module()",
)
