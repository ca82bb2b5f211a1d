"""The GraphQL API: a strawberry schema over the Python API, served by uvicorn."""
