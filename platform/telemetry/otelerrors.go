package telemetry

import (
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
)

// OTelErrorMessage is the message of the log line an OpenTelemetry SDK
// error is written as (LogOTelErrors): stable, for log queries and alerts.
const OTelErrorMessage = "opentelemetry error"

// OTelErrorInterval is the least time between two such lines.
const OTelErrorInterval = time.Minute

// LogOTelErrors sends OpenTelemetry's own complaints to log instead of
// plain text on stderr, where its defaults write them:
//
//   - the SDK's errors (otel.SetErrorHandler): failed exports (a collector
//     that is unreachable or refuses a batch, a batch that does not
//     marshal), dropped measurements.
//     They are logged at WARN as OTelErrorMessage with the error, the first
//     at once and then at most one per OTelErrorInterval, each with the
//     number of errors not logged since the previous line (suppressed): an
//     unreachable collector fails every export, every 5 s for spans, and
//     would otherwise write a line each time for as long as it is down.
//   - its internal logger's messages (otel.SetLogger), which at the
//     default verbosity are errors in the OTEL_* configuration, reported
//     once when an exporter is created: at ERROR, with their own message.
//
// Neither writes the text of an OTLP header list: the SDK's message about
// an entry it cannot read carries the entry, and the header values are
// usually a vendor's credential, so every such text (headerSecrets, read
// from the environment here) is replaced by "[redacted]" in both. CheckEnv
// refuses such a list at start; this covers what the SDK says anyway.
//
// Call it once, after the OTEL_* variables are set and before the tracer
// and meter providers are set up.
func LogOTelErrors(log *slog.Logger) {
	log = slog.New(newRedactingHandler(log.Handler(), headerSecrets(os.Getenv)))
	otel.SetErrorHandler(newOTelErrorLog(log, OTelErrorInterval, time.Now))
	otel.SetLogger(logr.FromSlogHandler(log.Handler()))
}

// otelErrorLog is the rate-limited error handler LogOTelErrors installs.
type otelErrorLog struct {
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	mu         sync.Mutex
	next       time.Time // no line before it (zero: the next error is logged)
	suppressed int64     // errors not logged since the previous line
}

func newOTelErrorLog(log *slog.Logger, every time.Duration, now func() time.Time) *otelErrorLog {
	return &otelErrorLog{log: log, every: every, now: now}
}

// Handle implements otel.ErrorHandler.
func (l *otelErrorLog) Handle(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	now := l.now()
	if now.Before(l.next) {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	suppressed := l.suppressed
	l.suppressed, l.next = 0, now.Add(l.every)
	l.mu.Unlock()
	l.log.Warn(OTelErrorMessage, "error", err.Error(), "suppressed", suppressed, "log_interval", l.every.String())
}
