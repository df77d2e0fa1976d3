# Wrong: getattr's default is evaluated before the call, so event_metadata is read (and
# warns on 2.15) even where metadata exists
def structured_metadata(event):
    return getattr(event, "metadata", event.event_metadata)
