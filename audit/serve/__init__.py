"""``audit serve``: the HTTP service, a thin layer over the library (the ``audit[serve]`` extra).

Along its seams: ``app`` (the FastAPI application and running it), ``routers/`` (``api``: ``/api/v1``;
``pages``: the pages for people), ``deps`` (the service and the club of a request), ``guard`` (limits,
cross-site posts, security headers), ``bodies`` (the logs in a request), ``service`` (the work behind the
routes), ``db`` (the database, scoped per club; the one module that uses the store), ``writer`` (the one writer
thread), ``tokens`` (clubs' tokens, kept as hashes), ``disputes`` (hands explained, verdicts). ``tokens`` and
``db`` import neither FastAPI nor uvicorn, so ``audit token`` works without the extra.
"""
