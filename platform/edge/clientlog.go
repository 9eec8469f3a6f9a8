package edge

import (
	"context"
	"fmt"
	"log/slog"
)

// ClientLog adapts log for go-redis's own messages (redis.SetLogger), which
// it otherwise prints as plain text on stderr, one line per failed dial:
// during an outage, a burst of lines beside the JSON log. They go to log at
// DEBUG: the outage itself is logged and counted by the limiter and the
// Idempotency-Key middleware (OutageLog), at most once per 10 s.
func ClientLog(log *slog.Logger) ClientLogger { return ClientLogger{log} }

// ClientLogger is the go-redis logger ClientLog returns.
type ClientLogger struct{ log *slog.Logger }

// Printf implements go-redis's internal.Logging.
func (l ClientLogger) Printf(ctx context.Context, format string, v ...any) {
	if l.log.Enabled(ctx, slog.LevelDebug) {
		l.log.DebugContext(ctx, "redis client", "detail", fmt.Sprintf(format, v...))
	}
}
