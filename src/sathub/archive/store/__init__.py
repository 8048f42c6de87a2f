"""Every SQL statement of interface B: reads for the API, writes for the import, rethreading."""
