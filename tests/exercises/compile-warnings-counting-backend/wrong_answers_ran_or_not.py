# Wrong: returned whether the compiled graph ran (a bool), not how many times it ran
def compiled_runs(fn, x, calls):
    torch.compiler.reset()
    executions = []

    def counting_backend(graph_module, example_inputs):
        def run(*args):
            executions.append(1)
            return graph_module.forward(*args)

        return run

    compiled_fn = torch.compile(fn, fullgraph=True, backend=counting_backend)
    for _ in range(calls):
        compiled_fn(x)
    return len(executions) > 0
