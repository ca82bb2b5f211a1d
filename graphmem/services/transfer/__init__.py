"""Moving a project in and out of graphmem, one module per format.

- ``jsonl``: graphmem's own JSONL, lossless (every node, property, embedding
  and link of the project), to move a project between stores or keep a copy;
  export (``jsonl_export``) and import (``jsonl_import``, which checks each
  line in ``jsonl_records`` and writes pages in ``jsonl_pages``).
- ``sky``: Sky-style short-term / long-term memory JSONL; export and import.
- ``graphml``: GraphML through networkx, for graph tools; export.
- ``cypher_script``: a ``.cypher`` script that recreates the project's
  memories and relations in Neo4j; export.

Every export reads one project and nothing of any other (the tenant
boundary), and every import writes into one project. Imports are
idempotent and report, line by line, what they created, merged and skipped.
"""

from graphmem.services.transfer.jsonl_export import export_project
from graphmem.services.transfer.jsonl_import import import_project
from graphmem.services.transfer.report import ImportReport, SkippedLine, TransferCounts

__all__ = ["ImportReport", "SkippedLine", "TransferCounts", "export_project", "import_project"]
