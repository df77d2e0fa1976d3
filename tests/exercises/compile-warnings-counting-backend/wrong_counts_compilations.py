# Wrong: counted in the backend, which Dynamo calls once per compilation, not per run
def compiled_runs(fn, x, calls):
    torch.compiler.reset()
    compilations = []

    def counting_backend(graph_module, example_inputs):
        compilations.append(1)
        return graph_module.forward

    compiled_fn = torch.compile(fn, fullgraph=True, backend=counting_backend)
    for _ in range(calls):
        compiled_fn(x)
    return len(compilations)
