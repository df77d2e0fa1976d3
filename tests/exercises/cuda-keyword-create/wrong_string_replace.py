# Wrong: edits the text instead of the syntax tree, adding num_sms= to every create( call
def keyword_create_call(source: str) -> str:
    return source.replace("create(", "create(num_sms=")
