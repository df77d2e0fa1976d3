# Wrong: counted the operations in the compiled graph instead of its executions
def compiled_runs(fn, x, calls):
    torch.compiler.reset()
    seen = []

    def backend(graph_module, example_inputs):
        seen.extend(n for n in graph_module.graph.nodes if n.op == "call_function")
        return graph_module.forward

    compiled_fn = torch.compile(fn, fullgraph=True, backend=backend)
    for _ in range(calls):
        compiled_fn(x)
    return len(seen)
