# Wrong: decides by the installed torch's version, so an event that behaves as another
# release's does (or a release between the two) gets the wrong attribute
def structured_metadata(event):
    if torch.__version__ >= "2.15":
        return event.metadata
    return event.event_metadata
