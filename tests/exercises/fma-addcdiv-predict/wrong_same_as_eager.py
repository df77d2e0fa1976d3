# Wrong: assumed the compiled kernel equals eager addcdiv on every device
def predict_compiled(a, t1, t2, value, device_type):
    return torch.addcdiv(a, t1, t2, value=value)
