"""Names vulture cannot see used: a framework reaches them by name, or a
signature it calls with requires them. Never imported or run; vulture reads it
beside the code ([tool.vulture] in pyproject.toml). A name belongs here only
with the framework that uses it."""

# strawberry: the hooks of its ASGI app and extensions, and fields of GraphQL
# types and enums that only the schema reads.
_.graphql_transport_ws_handler_class
_.websocket_adapter_class
_.get_context
_.on_ws_connect
_.on_stream_result
_._stream_result_processed  # read by strawberry's MaskErrors
_.resolve_async
_.infos
_.findings_truncated
_.promoted_count
_.page_info
_.review_reason
_.EVIDENCE
_.EXACT

# graphql-core: a visitor's method for each node kind.
_.enter_argument

# pydantic: Enum's lookup hook, a field of an MCP answer model, and the
# signature pydantic-settings calls to order a settings class's sources.
_._missing_
_.next_cursor
_.settings_customise_sources
_.get_field_value  # pydantic-settings: the abstract method of a settings source
settings_cls
dotenv_settings
file_secret_settings

# graphmem.domain.retrieval.answerable: a weight read by its feature's name.
_.unheld_names

# benchmarks.dedup_eval: read from the result's asdict.
_.precision

# uvicorn: the flag that stops a server.
_.should_exit

# onnxruntime: SessionOptions read by the runtime.
_.intra_op_num_threads
_.inter_op_num_threads
_.graph_optimization_level

# typer/click and rich: the hooks graphmem's help and terminal output override.
_.display_type_rich
_.process_renderables

# http.server: the handler's methods the stdlib server calls.
_.do_POST
_.log_message

# torch: the module method export calls.
_.forward

# The signatures of signal handlers and __exit__.
signum
exc_type
tb

# pytest: fixtures a test asks for by their effect, not their value.
neo4j_schema
bundle
busy_session
