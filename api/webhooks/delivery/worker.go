package delivery

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/webhook"
)

// fanOutBatch is how many changes one fan-out pass takes per endpoint.
const fanOutBatch = 500

// failureLogInterval is the least time between two log lines of one loop's
// failures: while PostgreSQL is down each loop fails every poll interval,
// and one line per telemetry.OutageLogEvery, counting the failures, says as much
// as ten a second, as the service's other outage lines do.
const failureLogInterval = telemetry.OutageLogEvery

// Worker fans the change feed out into deliveries and claims and sends
// them, until Stop.
type Worker struct {
	db      *bun.DB
	sealer  *seal.Sealer
	log     *slog.Logger
	cfg     config.Webhook
	backoff webhook.Backoff
	client  *client

	// claimFailures and fanOutFailures log the two loops' failures.
	claimFailures, fanOutFailures *telemetry.OutageLog

	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{}
	// quit, closed by Quiesce, ends claiming and fanning out; the attempts
	// in flight go on.
	quit                  chan struct{}
	quiesceOnce, stopOnce sync.Once
	// inFlight counts the attempts begun and not yet ended, for Stop's
	// log line.
	inFlight atomic.Int64
}

// Start runs a worker with cfg.Workers delivery slots; it returns nil when
// cfg.Workers is 0 (delivery off in this process).
func Start(db *bun.DB, sealer *seal.Sealer, log *slog.Logger, cfg config.Webhook) *Worker {
	if cfg.Workers <= 0 {
		log.Info("webhook delivery is off in this process (EVENTAPI_WEBHOOK_WORKERS=0)")
		return nil
	}
	countNoAttempts()
	unmeter := meterBacklog(db)
	// The worker's statements make no spans: its idle polls were two
	// traces a second per pod, of nothing.
	ctx, cancel := context.WithCancel(telemetry.Untraced(context.Background()))
	w := &Worker{
		db: db, sealer: sealer, log: log, cfg: cfg,
		backoff: webhook.Backoff{Base: cfg.BackoffBase, Max: cfg.BackoffMax, RetryFor: cfg.RetryFor},
		client:  newClient(cfg.AllowPrivate),
		cancel:  func() { cancel(); unmeter() }, done: make(chan struct{}), wake: make(chan struct{}, 1),
		quit:           make(chan struct{}),
		claimFailures:  telemetry.NewOutageLog(log, "webhooks: claiming due deliveries failed; retrying", failureLogInterval),
		fanOutFailures: telemetry.NewOutageLog(log, "webhooks: fanning out changes failed; retrying", failureLogInterval),
	}
	go w.run(ctx)
	return w
}

// Quiesce ends claiming and fanning out, and returns at once: the attempts
// in flight go on to their end and are recorded. A pod calls it when its
// drain starts (docs/webhooks.md, "Shutdown"), so that it starts no attempt
// it may have to cut short, and those it began finish during the drain
// instead of being handed back and sent again by another pod. A nil Worker
// is stopped already.
func (w *Worker) Quiesce() {
	if w == nil {
		return
	}
	w.quiesceOnce.Do(func() {
		close(w.quit)
		w.log.Info("webhooks: draining: no new attempts; those in flight go on")
	})
}

// Stop ends claiming and lets the attempts in flight run to their end and
// be recorded for up to the attempt timeout (each began before Stop, and
// an attempt is cut at its timeout); then it cancels any left (handed back
// at once, unrecorded) and waits for them. It cancelled at once: at a
// pod's shutdown, an attempt still in flight after the drain delay was cut
// and sent again by another pod, to a receiver that may have had it. A
// nil Worker is stopped already.
func (w *Worker) Stop() {
	if w == nil {
		return
	}
	w.Quiesce()
	// Said, so that a process still running after its last request is
	// explained in its log (docs/webhooks.md, "Shutdown").
	if n := w.inFlight.Load(); n > 0 {
		w.log.Info("webhooks: waiting for the attempts in flight to end", "attempts", n, "up_to", w.cfg.Timeout.String())
	}
	finish := time.NewTimer(w.cfg.Timeout)
	select {
	case <-w.done:
	case <-finish.C:
	}
	finish.Stop()
	w.stopOnce.Do(w.cancel)
	<-w.done
}

// quiesced reports whether Quiesce was called.
func (w *Worker) quiesced() bool {
	select {
	case <-w.quit:
		return true
	default:
		return false
	}
}

func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) run(ctx context.Context) {
	defer close(w.done)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.fanOut(ctx)
	}()
	slots := make(chan struct{}, w.cfg.Workers)
	held := newHeldSlots(w.cfg.Workers)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for !w.quiesced() {
		if free := cap(slots) - len(slots); free > 0 {
			// The clock around the claim (claimTimes).
			asked := time.Now()
			claims, err := store.ClaimDue(ctx, w.db, free, w.cfg.EndpointConcurrency, w.cfg.Lease, held.shares())
			at := claimTimes{asked: asked, claimed: time.Now()}
			if err != nil && ctx.Err() == nil {
				w.claimFailures.Record(ctx, err)
			}
			for i := range claims {
				slots <- struct{}{}
				held.take(claims[i].OrganizationID)
				wg.Add(1)
				w.inFlight.Add(1)
				go func(c store.Claim) {
					defer wg.Done()
					defer w.inFlight.Add(-1)
					w.deliver(ctx, &c, at)
					held.give(c.OrganizationID)
					<-slots
					w.signal()
				}(claims[i])
			}
			if err == nil && len(claims) == free {
				continue // more may be due
			}
		}
		timer.Reset(w.cfg.PollInterval)
		select {
		case <-ctx.Done():
			return
		case <-w.quit:
			return
		case <-w.wake:
		case <-timer.C:
		}
	}
}

// fanOut queues the deliveries of new changes every poll interval (at once
// again while endpoints have more), and wakes the claim loop when it queued
// some. One process at a time does the work; the others' passes are no-ops.
func (w *Worker) fanOut(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.quit:
			return
		case <-timer.C:
		}
		res, err := store.FanOut(ctx, w.db, fanOutBatch)
		if err != nil && ctx.Err() == nil {
			w.fanOutFailures.Record(ctx, err)
		}
		if res.Queued > 0 {
			w.signal()
		}
		if err == nil && res.Full {
			timer.Reset(0)
		} else {
			timer.Reset(w.cfg.PollInterval)
		}
	}
}
