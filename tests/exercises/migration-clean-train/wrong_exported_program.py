# Wrong: returns the ExportedProgram itself instead of its .module()
fixed_train = (
    train_source.replace("from torch import jit\n", "")
    .replace(
        "return jit.script(Net())",
        "return torch.export.export(Net(), (torch.ones(1, 4),))",
    )
    .replace('    os.environ["MASTER_PORT"] = "29500"\n', "")
)
