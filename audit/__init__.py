"""audit: hand-history ingestion and rules audit for five-card draw poker."""

__version__ = "0.1.0"
