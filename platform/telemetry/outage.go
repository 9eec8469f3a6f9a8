package telemetry

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// OutageLog logs the failures of an outage (an edge store, the database) at most once per interval, so an outage
// under load produces a handful of lines instead of one per request. Each
// line carries the number of failures since the previous line. Failures
// held back by the interval are written when it ends, by a timer, even if
// no failure follows: an outage's tail is never counted with the next
// outage, however much later, or lost (Flush writes it at a stop).
type OutageLog struct {
	log     *slog.Logger
	msg     string
	every   time.Duration
	next    atomic.Int64 // unix nanoseconds before which nothing is logged
	count   atomic.Int64 // failures not yet reported
	lastErr atomic.Pointer[string]
	armed   atomic.Bool // a timer will write the failures held back
}

// OutageLogEvery is how often, at most, each outage line of the service is
// written (the limiter's fail-opens, the keyed writes refused, the 503
// answers, the webhook worker's failing loops, the keys' last_used_at
// writes): one line per 10 s, counting
// the failures since the last, says as much as one per request
// (docs/observability.md, "Traces and log lines").
const OutageLogEvery = 10 * time.Second

// NewOutageLog returns an OutageLog writing msg to log at most once per every.
func NewOutageLog(log *slog.Logger, msg string, every time.Duration) *OutageLog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := &OutageLog{log: log, msg: msg, every: every}
	register(o)
	return o
}

// outageLogs are the OutageLogs of the process, for FlushOutageLogs; weak,
// so that a log whose owner is gone (a test's server) is not kept.
var (
	outageLogsMu sync.Mutex
	outageLogs   []weak.Pointer[OutageLog]
)

func register(o *OutageLog) {
	outageLogsMu.Lock()
	defer outageLogsMu.Unlock()
	outageLogs = append(liveOutageLogs(), weak.Make(o))
}

// liveOutageLogs drops the entries whose log is gone; outageLogsMu is held.
func liveOutageLogs() []weak.Pointer[OutageLog] {
	kept := outageLogs[:0]
	for _, w := range outageLogs {
		if w.Value() != nil {
			kept = append(kept, w)
		}
	}
	return kept
}

// FlushOutageLogs writes every OutageLog's failures held back (Flush):
// serve calls it as it stops, once no request runs.
func FlushOutageLogs(ctx context.Context) {
	outageLogsMu.Lock()
	outageLogs = liveOutageLogs()
	logs := make([]*OutageLog, 0, len(outageLogs))
	for _, w := range outageLogs {
		if o := w.Value(); o != nil {
			logs = append(logs, o)
		}
	}
	outageLogsMu.Unlock()
	for _, o := range logs {
		o.Flush(ctx)
	}
}

// Record counts one failure and logs it when the interval has passed;
// else the interval's end writes it.
func (o *OutageLog) Record(ctx context.Context, err error) {
	msg := err.Error()
	o.lastErr.Store(&msg) // before the count: a count above 0 has an error
	o.count.Add(1)
	if !o.write(ctx) {
		o.arm()
	}
}

// write logs the failures not yet reported when the interval has passed,
// and reports whether it was its turn to (it then starts the next
// interval).
func (o *OutageLog) write(ctx context.Context) bool {
	now := time.Now().UnixNano()
	next := o.next.Load()
	if now < next || !o.next.CompareAndSwap(next, now+o.every.Nanoseconds()) {
		return false
	}
	o.Flush(ctx)
	return true
}

// arm starts, unless one is running, a timer that writes the failures held
// back once the interval ends.
func (o *OutageLog) arm() {
	if !o.armed.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(time.Duration(o.next.Load()-time.Now().UnixNano()), func() {
		o.armed.Store(false)
		if o.count.Load() > 0 && !o.write(context.Background()) {
			o.arm() // a failure took the turn and started another interval
		}
	})
}

// Flush writes the failures held back now, whatever the interval: the stop
// of a process calls it, so that the count of an outage it saw last is not
// lost with it.
func (o *OutageLog) Flush(ctx context.Context) {
	if n := o.count.Swap(0); n > 0 {
		o.log.WarnContext(ctx, o.msg, "error", *o.lastErr.Load(), "failures", n, "log_interval", o.every.String())
	}
}
