# Wrong: reads event_metadata everywhere, which 2.15 deprecates in favour of metadata
def structured_metadata(event):
    return event.event_metadata
