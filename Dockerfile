FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GRAPHMEM_DATA_DIR=/data \
    GRAPHMEM_HOST=0.0.0.0 \
    GRAPHMEM_PORT=8000

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY graphmem ./graphmem
COPY cypher ./cypher
# neo4j-rust: the Neo4j driver with its Rust extension (docker-compose.yml runs
# graphmem on Neo4j); embed: the default sentence embeddings for vector search,
# on PyTorch's CPU-only build (the default build adds GBs of CUDA libraries).
RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu \
        '.[neo4j-rust,embed]' \
    && useradd --create-home --uid 10001 graphmem \
    && mkdir -p /data && chown graphmem /data

USER graphmem
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["graphmem", "serve"]
