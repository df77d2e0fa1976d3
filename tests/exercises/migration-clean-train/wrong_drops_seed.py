# Wrong: rewrites build() without torch.manual_seed(0), so the weights differ from the original's
fixed_train = (
    train_source.replace("from torch import jit\n", "")
    .replace(
        "    torch.manual_seed(0)\n    return jit.script(Net())",
        "    return torch.export.export(Net(), (torch.ones(1, 4),)).module()",
    )
    .replace('    os.environ["MASTER_PORT"] = "29500"\n', "")
)
