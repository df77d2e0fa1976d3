# Wrong: keeps reading metadata_json, which warns on 2.12 and 2.13 and is gone on 2.15
def structured_metadata(event):
    return event.metadata_json
