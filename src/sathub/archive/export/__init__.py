"""Interface B out as mail: messages back as sent (mbox, rebuilt sources) and the export door."""
