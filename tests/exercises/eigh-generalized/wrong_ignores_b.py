# Wrong: solves the ordinary problem A v = λ v and ignores B
def generalized_eigh(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.linalg.eigh(a)
