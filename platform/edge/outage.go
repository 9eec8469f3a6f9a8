package edge

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// OutageLog logs edge store failures at most once per interval, so an outage
// under load produces a handful of lines instead of one per request. Each
// line carries the number of failures since the previous line.
type OutageLog struct {
	log   *slog.Logger
	msg   string
	every time.Duration
	next  atomic.Int64 // unix nanoseconds before which nothing is logged
	count atomic.Int64 // failures not yet reported
}

// OutageLogEvery is how often, at most, each outage line of the service is
// written (the limiter's fail-opens, the keyed writes refused, the 503
// answers, the webhook worker's failing loops): one line per 10 s, counting
// the failures since the last, says as much as one per request
// (docs/observability.md, "Traces and log lines").
const OutageLogEvery = 10 * time.Second

// NewOutageLog returns an OutageLog writing msg to log at most once per every.
func NewOutageLog(log *slog.Logger, msg string, every time.Duration) *OutageLog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &OutageLog{log: log, msg: msg, every: every}
}

// Record counts one failure and logs it when the interval has passed.
func (o *OutageLog) Record(ctx context.Context, err error) {
	o.count.Add(1)
	now := time.Now().UnixNano()
	next := o.next.Load()
	if now < next || !o.next.CompareAndSwap(next, now+o.every.Nanoseconds()) {
		return
	}
	n := o.count.Swap(0)
	o.log.WarnContext(ctx, o.msg, "error", err.Error(), "failures", n, "log_interval", o.every.String())
}
