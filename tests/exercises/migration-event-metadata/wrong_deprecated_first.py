# Wrong: asks for event_metadata first, and on 2.15 even hasattr() reads the deprecated
# property, which warns
def structured_metadata(event):
    if hasattr(event, "event_metadata"):
        return event.event_metadata
    return event.metadata
