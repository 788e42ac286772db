"""The routes, one module per part: ``api`` (``/api/v1``) and ``pages`` (the pages for people)."""
