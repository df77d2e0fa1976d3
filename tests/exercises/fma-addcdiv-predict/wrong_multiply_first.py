# Wrong: multiplied value by t1 before dividing, the order of eager CPU, not of the lowering
def predict_compiled(a, t1, t2, value, device_type):
    v = torch.tensor(value, dtype=torch.float32)
    if device_type in ("cuda", "xpu"):
        return fma32(v, t1 / t2, a)
    return a + (v * t1) / t2
