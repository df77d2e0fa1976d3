# Wrong: adds the rows of each group with index_add and forgets to divide by the group size
group_means = torch.zeros(5, 4, device=op_device).index_add(
    0, groups.to(op_device), scores.to(op_device)
)
