package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
)

func TestCacheHealth(t *testing.T) {
	const window = time.Minute
	sandboxes := schema.GroupResource{Group: "eventapi.io", Resource: "sandboxorganizations"}
	notFound := apierrors.NewNotFound(sandboxes, "")
	forbidden := apierrors.NewForbidden(sandboxes, "", errors.New("RBAC: access denied"))
	// A 410 with reason Gone (not Expired), which benignWatchError accepts
	// through apierrors.IsGone; the deprecated apierrors.NewGone made this
	// same error.
	gone := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonGone, Message: "gone"}}
	decode := errors.New(`unable to decode an event from the watch stream: json: cannot unmarshal string into Go struct field ApiKeySpec.spec.scopes of type []string`)
	long := errors.New(strings.Repeat("é", 400)) // 800 bytes, two-byte runes

	type event struct {
		at  time.Duration // after the start
		err error
	}
	tests := []struct {
		name   string
		events []event
		at     time.Duration // when readiness is checked
		fails  bool
		says   string // in the check's error
	}{
		{name: "no error", at: time.Hour},
		{name: "watch closed normally", events: []event{{0, io.EOF}}, at: time.Second},
		{name: "wrapped EOF", events: []event{{0, fmt.Errorf("watch: %w", io.EOF)}}, at: time.Second},
		{name: "unexpected EOF", events: []event{{0, io.ErrUnexpectedEOF}}, at: time.Second},
		{name: "resource version expired", events: []event{{0, apierrors.NewResourceExpired("too old resource version: 1 (2)")}}, at: time.Second},
		{name: "resource version gone", events: []event{{0, gone}}, at: time.Second},
		{name: "CRD deleted", events: []event{{0, notFound}}, at: time.Second, fails: true, says: "not found"},
		{name: "RBAC lost", events: []event{{0, forbidden}}, at: time.Second, fails: true, says: "forbidden"},
		{name: "cannot decode", events: []event{{0, decode}}, at: time.Second, fails: true, says: "unable to decode"},
		{name: "API server refusing", events: []event{{0, apierrors.NewServiceUnavailable("etcd down")}}, at: time.Second, fails: true, says: "etcd down"},
		{name: "at once", events: []event{{0, notFound}}, at: 0, fails: true},
		{name: "just inside the window", events: []event{{0, notFound}}, at: window - time.Nanosecond, fails: true},
		{name: "recovered after the window", events: []event{{0, notFound}}, at: window},
		{name: "still failing at every retry", events: []event{{0, notFound}, {55 * time.Second, notFound}, {110 * time.Second, notFound}},
			at: 110*time.Second + window - time.Second, fails: true},
		{name: "a benign error does not clear a failure", events: []event{{0, notFound}, {time.Second, io.EOF}}, at: 2 * time.Second,
			fails: true, says: "not found"},
		{name: "the last error is told", events: []event{{0, notFound}, {time.Second, forbidden}}, at: 2 * time.Second,
			fails: true, says: "forbidden"},
		{name: "a benign error after recovery", events: []event{{0, notFound}, {2 * window, io.EOF}}, at: 2*window + time.Second},
		{name: "long text is trimmed", events: []event{{0, long}}, at: time.Second, fails: true, says: "é…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			now := start
			h := newCacheHealth(window, func() time.Time { return now })
			r := toolscache.NewNamedReflector("test", &toolscache.ListWatch{}, &corev1.Secret{}, toolscache.NewStore(toolscache.MetaNamespaceKeyFunc), 0)
			for _, e := range tt.events {
				now = start.Add(e.at)
				h.watchErrorHandler(context.Background(), r, e.err)
			}
			now = start.Add(tt.at)
			err := h.checker()(nil)
			if (err != nil) != tt.fails {
				t.Fatalf("check = %v, want failing %v", err, tt.fails)
			}
			if err == nil {
				return
			}
			if !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "*v1.Secret") {
				t.Errorf("check = %q, want it to name the type and say %q", err, tt.says)
			}
			if kept := h.lastErr; len(kept) > cacheErrorTextMax || !utf8.ValidString(kept) {
				t.Errorf("kept %d bytes (at most %d, valid UTF-8): %q", len(kept), cacheErrorTextMax, kept)
			}
		})
	}
}

// A reflector stopping with the manager (its context cancelled) is not a
// failing cache.
func TestCacheHealthIgnoresAStoppingReflector(t *testing.T) {
	h := newCacheHealth(0, nil)
	if h.window != DefaultCacheErrorWindow {
		t.Fatalf("window = %s, want the default %s", h.window, DefaultCacheErrorWindow)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := toolscache.NewNamedReflector("test", &toolscache.ListWatch{}, &corev1.Secret{}, toolscache.NewStore(toolscache.MetaNamespaceKeyFunc), 0)
	h.watchErrorHandler(ctx, r, context.Canceled)
	if err := h.checker()(nil); err != nil {
		t.Fatalf("check = %v, want ok", err)
	}
	h.watchErrorHandler(context.Background(), r, context.Canceled)
	if err := h.checker()(nil); err == nil {
		t.Fatal("check = ok after an error of a running reflector, want failing")
	}
}
