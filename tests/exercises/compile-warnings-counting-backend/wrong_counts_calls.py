# Wrong: counted calls of the compiled function, whether or not compiled code ran
def compiled_runs(fn, x, calls):
    torch.compiler.reset()
    compiled_fn = torch.compile(fn, fullgraph=True, backend="eager")
    count = 0
    for _ in range(calls):
        compiled_fn(x)
        count += 1
    return count
