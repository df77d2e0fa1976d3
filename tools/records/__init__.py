"""Run records: their schema, reading and writing, the status they add up to, and recorded results."""
