# Wrong: keeps include_self=True, so the starting zeros are averaged into every mean
group_means = torch.zeros(5, 4, device=op_device).index_reduce(
    0, groups.to(op_device), scores.to(op_device), "mean", include_self=True
)
