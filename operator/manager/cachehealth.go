package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/eventapi/eventapi/platform/errs"
)

// DefaultCacheErrorWindow is how long one list/watch error of the informer
// cache keeps the operator unready. A reflector whose ListAndWatch keeps
// failing retries with client-go's backoff, which settles at an interval in
// [30 s, 60 s) (800 ms doubling up to a 30 s cap, jitter 1.0): the window
// must be longer than that, or a cache that never recovers would be reported
// ready for a moment between two retries.
const DefaultCacheErrorWindow = 90 * time.Second

// cacheErrorTextMax bounds the error text kept for the readiness check.
const cacheErrorTextMax = 300

// cacheHealth records the errors of the informer cache's reflectors (list or
// watch refused: a CRD deleted, RBAC lost, an object the typed client cannot
// decode, the API server refusing). While one came within window the cache
// is stale and nothing is reconciled, so readiness fails.
type cacheHealth struct {
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	last    time.Time // when the last error that counts came
	lastErr string    // its text, trimmed
}

func newCacheHealth(window time.Duration, now func() time.Time) *cacheHealth {
	if window <= 0 {
		window = DefaultCacheErrorWindow
	}
	if now == nil {
		now = time.Now
	}
	return &cacheHealth{window: window, now: now}
}

// watchErrorHandler is the cache's DefaultWatchErrorHandler: it logs as
// client-go's own handler does, then records err.
func (h *cacheHealth) watchErrorHandler(ctx context.Context, r *toolscache.Reflector, err error) {
	toolscache.DefaultWatchErrorHandler(ctx, r, err)
	if ctx.Err() != nil {
		return // the reflector is stopping with the manager
	}
	what := "cache"
	if r != nil {
		what = r.TypeDescription()
	}
	h.record(what, err)
}

// record notes err of the reflector for what unless it is benign.
func (h *cacheHealth) record(what string, err error) {
	if err == nil || benignWatchError(err) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.now()
	h.lastErr = errs.Clip(what+": "+err.Error(), cacheErrorTextMax)
}

// benignWatchError reports the errors client-go's DefaultWatchErrorHandler
// treats as normal (it logs them only at a verbosity level): a watch closed
// normally (io.EOF) or by an unexpected EOF (a connection cut, after which
// the watch is resumed), and an expired or gone resource version (the
// reflector lists again).
func benignWatchError(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// check is the "cache" readiness check.
func (h *cacheHealth) check(*http.Request) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last.IsZero() {
		return nil
	}
	age := h.now().Sub(h.last)
	if age >= h.window {
		return nil
	}
	return fmt.Errorf("informer cache cannot list/watch (last error %s ago, unready until none for %s): %s",
		age.Round(time.Millisecond), h.window, h.lastErr)
}

// checker returns check as a healthz.Checker.
func (h *cacheHealth) checker() healthz.Checker { return h.check }
