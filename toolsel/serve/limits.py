"""Every limit of `toolsel serve` and `toolsel mcp`, in one place: the CLI's defaults, the
HTTP layer and the service read them from here (and this module imports nothing, so
`toolsel serve --help` stays fast)."""

#: Largest request body, in bytes (`--max-body`); larger is 413.
MAX_BODY = 1024 * 1024
#: Seconds a client has to send a whole request body (`--body-timeout`); then 408.
BODY_TIMEOUT = 10.0
#: Seconds a connection has to send a request's headers (`--header-timeout`); then closed.
HEADER_TIMEOUT = 10.0
#: Open connections at most (`--max-connections`).
MAX_CONNECTIONS = 512
#: Threads doing the work (`--workers`), requests that may wait for one (`--queue`).
WORKERS = 4
QUEUE = 64
#: Seconds a request may take (`--request-timeout`); then 503 and its work is stopped.
REQUEST_TIMEOUT = 30.0
#: Most records one /v1/usage request may carry.
MAX_BATCH = 10_000
#: Longest tool name a usage record may carry.
MAX_NAME = 512
#: Longest `query` /v1/rank takes (ranking costs grow with the query; a prompt, not a log).
MAX_QUERY = 16_384
#: Most names one /v1/select may ask for (Claude Code selects a handful at a time).
MAX_SELECT_NAMES = 100
#: Tools an analytics answer lists (the most called); the others are summed in one row.
ANALYTICS_TOOLS = 100
#: Seconds an analytics request may take, queueing included; then 503, and its reads stop.
ANALYTICS_BUDGET = 5.0
#: Threads that answer analytics (apart from `--workers`), and requests that may wait.
ANALYTICS_WORKERS = 2
ANALYTICS_QUEUE = 32
