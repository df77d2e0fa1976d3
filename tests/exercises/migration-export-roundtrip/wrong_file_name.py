# Wrong: saves the program under another name (gate.pt) than the one asked for
from pathlib import Path


def roundtrip(model: torch.nn.Module, example: torch.Tensor, folder: Path) -> torch.nn.Module:
    batch = torch.export.Dim("batch", min=1, max=256)
    program = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
    torch.export.save(program, folder / "gate.pt")
    return torch.export.load(folder / "gate.pt").module()
