# Wrong: exports without dynamic_shapes, so the program accepts only the example's batch size
from pathlib import Path


def roundtrip(model: torch.nn.Module, example: torch.Tensor, folder: Path) -> torch.nn.Module:
    program = torch.export.export(model, (example,))
    torch.export.save(program, folder / "gate.pt2")
    return torch.export.load(folder / "gate.pt2").module()
