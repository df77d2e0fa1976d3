# Wrong: returns the loaded ExportedProgram itself instead of its module
from pathlib import Path


def roundtrip(model: torch.nn.Module, example: torch.Tensor, folder: Path):
    batch = torch.export.Dim("batch", min=1, max=256)
    program = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
    torch.export.save(program, folder / "gate.pt2")
    return torch.export.load(folder / "gate.pt2")
