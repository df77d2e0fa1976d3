# Wrong: maps the second positional argument by 2.12's parameter order (workqueue_scope), not 2.11's
def keyword_create_call(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(
            owner, "id", None
        )
        if node.func.attr != "create" or owner_name != "GreenContext":
            continue
        names = ("num_sms", "workqueue_scope")
        moved = [ast.keyword(arg=n, value=v) for n, v in zip(names, node.args, strict=False)]
        node.args, node.keywords = [], moved + node.keywords
    return ast.unparse(tree)
