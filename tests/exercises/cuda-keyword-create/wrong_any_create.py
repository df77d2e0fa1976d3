# Wrong: rewrites every .create(...) call, not only GreenContext.create
def keyword_create_call(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "create":
                names = ("num_sms", "device_id")
                moved = [ast.keyword(arg=n, value=v) for n, v in zip(names, node.args, strict=False)]
                node.args, node.keywords = [], moved + node.keywords
    return ast.unparse(tree)
