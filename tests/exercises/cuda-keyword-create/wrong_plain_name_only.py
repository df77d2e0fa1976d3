# Wrong: matches only a bare GreenContext name, missing torch.cuda.green_contexts.GreenContext.create
def keyword_create_call(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        if node.func.attr != "create" or getattr(owner, "id", None) != "GreenContext":
            continue
        names = ("num_sms", "device_id")
        moved = [ast.keyword(arg=n, value=v) for n, v in zip(names, node.args, strict=False)]
        node.args, node.keywords = [], moved + node.keywords
    return ast.unparse(tree)
