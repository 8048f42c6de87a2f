"""`sathub archive import`: archive files read, parsed and written in batches; sender ids loaded."""
