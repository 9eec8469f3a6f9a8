package telemetry

import (
	"context"
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap/zapcore"
)

type requestIDKey struct{}

// WithRequestID stores the request id in ctx for logs and error bodies.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id stored in ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// NewLogger returns a JSON slog.Logger writing to w at level, whose records
// carry request_id and trace_id/span_id taken from the logging context. Each
// record is one Write to w.
func NewLogger(w io.Writer, level string) *slog.Logger {
	return slog.New(contextHandler{Handler: jsonHandler(w, level)})
}

// Log buffering (NewBufferedLogger): the buffer's size and how long a line
// may wait in it.
const (
	logBufferSize    = 32 << 10
	logFlushInterval = 200 * time.Millisecond
)

// NewBufferedLogger returns a logger like NewLogger that gathers the lines
// logged in a request's context below Warn (the access log's, one per
// request) and writes them out together: when the next one would not fit
// in the buffer, every logFlushInterval, and before any other line, which is
// written at once. So a busy server makes one write system call per
// hundred or so requests instead of one each, and the lines keep their
// order. stop writes out what is buffered and ends the timer; call it
// last. A process that ends without stop (SIGKILL, the OOM killer, a
// crash) loses at most the last logFlushInterval of access-log lines;
// warnings, errors and lifecycle lines are never held back
// (docs/observability.md, "Traces and log lines").
func NewBufferedLogger(w io.Writer, level string) (log *slog.Logger, stop func() error) {
	return bufferedLogger(w, level, logFlushInterval)
}

func bufferedLogger(w io.Writer, level string, interval time.Duration) (*slog.Logger, func() error) {
	out := &zapcore.BufferedWriteSyncer{
		// Only the Writer: the syncer's Sync would otherwise fsync w, which
		// stdout (a pipe, a terminal) refuses.
		WS:            zapcore.AddSync(struct{ io.Writer }{w}),
		Size:          logBufferSize,
		FlushInterval: interval,
	}
	return slog.New(contextHandler{Handler: jsonHandler(out, level), out: out}), out.Stop
}

// jsonHandler logs at level, which its callers have checked with
// ParseLevel (platform/config, the operator's flags); one it refuses logs
// at info.
func jsonHandler(w io.Writer, level string) slog.Handler {
	lv, err := ParseLevel(level)
	if err != nil {
		lv = slog.LevelInfo
	}
	return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})
}

// contextHandler adds the request and trace ids of the logging context.
// With out set, the handler's writer is that buffer, and a record outside
// a request or at Warn and above is written out at once, with the lines
// buffered before it.
type contextHandler struct {
	slog.Handler
	out zapcore.WriteSyncer
}

// Handle writes r with the request and trace ids of ctx, its time in UTC
// whatever the process's zone (TZ), as the API's date-times are
// (docs/observability.md, "Traces and log lines").
func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Time = r.Time.UTC()
	id := RequestID(ctx)
	if id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		// An unsampled span has ids too, and they are worth logging (a
		// caller's trace id joins this line to the caller's own lines),
		// but no trace of it reaches the backend: trace_sampled says
		// whether one does.
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()),
			slog.Bool("trace_sampled", sc.IsSampled()))
	}
	err := h.Handler.Handle(ctx, r)
	if h.out != nil && (id == "" || r.Level >= slog.LevelWarn) {
		if serr := h.out.Sync(); err == nil {
			err = serr
		}
	}
	return err
}

func (h contextHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return contextHandler{Handler: h.Handler.WithAttrs(a), out: h.out}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{Handler: h.Handler.WithGroup(name), out: h.out}
}
