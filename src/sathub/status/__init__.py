"""Interface A: the satellite status service."""
