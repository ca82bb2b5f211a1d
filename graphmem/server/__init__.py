"""Serving over HTTP: the uvicorn lifecycle, the request gate, rate limits,
health, observability, the scheduler and the pages served beside GraphQL."""
