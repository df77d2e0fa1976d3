# Wrong: rebound the name static_input to the new tensor instead of copying into the buffer
def make_replayable(fn, example: torch.Tensor):
    static_input = example.clone()
    graph, static_output = capture_or_stand_in(fn, static_input)

    def run(new_input: torch.Tensor) -> torch.Tensor:
        nonlocal static_input
        static_input = new_input
        graph.replay()
        return static_output

    return run
