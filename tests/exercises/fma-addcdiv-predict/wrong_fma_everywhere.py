# Wrong: predicted the FMA on the CPU too, where the 2.12 lowering does not use one
def predict_compiled(a, t1, t2, value, device_type):
    v = torch.tensor(value, dtype=torch.float32)
    return fma32(v, t1 / t2, a)
