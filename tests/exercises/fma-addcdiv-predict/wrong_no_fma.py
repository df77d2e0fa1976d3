# Wrong: rounded the multiply and the add separately on every device, with no FMA
def predict_compiled(a, t1, t2, value, device_type):
    v = torch.tensor(value, dtype=torch.float32)
    return a + v * (t1 / t2)
