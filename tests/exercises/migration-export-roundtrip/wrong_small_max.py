# Wrong: gives the batch dimension a maximum of 64, too small for a batch of 200
from pathlib import Path


def roundtrip(model: torch.nn.Module, example: torch.Tensor, folder: Path) -> torch.nn.Module:
    batch = torch.export.Dim("batch", min=1, max=64)
    program = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
    torch.export.save(program, folder / "gate.pt2")
    return torch.export.load(folder / "gate.pt2").module()
