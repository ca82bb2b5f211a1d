# The /explore page, bundled from the committed lockfile; only the built files
# reach the image, which needs no Node.js.
FROM node:20-slim AS explorer
WORKDIR /src/tools/explorer
COPY tools/explorer/package.json tools/explorer/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tools/explorer/build.mjs ./
COPY tools/explorer/src ./src
RUN node build.mjs

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GRAPHMEM_DATA_DIR=/data \
    GRAPHMEM_HOST=0.0.0.0 \
    GRAPHMEM_PORT=8000

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY graphmem ./graphmem
COPY --from=explorer /src/graphmem/server/explore/static ./graphmem/server/explore/static
COPY cypher ./cypher
# neo4j-rust: the Neo4j driver with its Rust extension (docker-compose.yml runs
# graphmem on Neo4j). Sentence embeddings need nothing more: the ONNX model
# ships in the package and runs on onnxruntime, with no torch.
RUN pip install --no-cache-dir '.[neo4j-rust]' \
    && useradd --create-home --uid 10001 graphmem \
    && mkdir -p /data && chown graphmem /data

USER graphmem
VOLUME ["/data"]
EXPOSE 8000
# Readiness (docs/health.md): the store answers and the embedding model is loaded.
HEALTHCHECK --interval=10s --timeout=6s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=5)"
CMD ["graphmem", "serve"]
