package v1_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/client"
	v1 "github.com/eventapi/eventapi/api/client/v1"
)

// TestV1WritesNameNoKey: v1 takes no Idempotency-Key, so the v1 client
// sends none, and its errors do not tell the caller to repeat a write with
// one (the transport added a key the server ignored, and a lost answer's
// error said "repeat the write with this key"). Its one write, PATCH, sets
// absolute values: it is still repeated after a 503 or a lost answer, and
// its lost answer says that sending it again applies the same values.
func TestV1WritesNameNoKey(t *testing.T) {
	for _, tt := range []struct {
		name     string
		answers  []int // status per attempt, 0: the connection is closed with no answer
		attempts int
		lost     bool // the call ends in a *client.LostAnswerError (else a 200)
	}{
		{"lost answers", []int{0}, 3, true},
		{"a 503, then the answer", []int{503, 200}, 2, false},
		{"a lost answer, then the answer", []int{0, 200}, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var keys []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				keys = append(keys, r.Header.Get("Idempotency-Key"))
				status := tt.answers[min(len(keys), len(tt.answers))-1]
				mu.Unlock()
				if status == 0 {
					panic(http.ErrAbortHandler)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				if status == 200 {
					_, _ = w.Write([]byte(`{"data":{}}`))
					return
				}
				_, _ = w.Write([]byte(`{"error":{"code":"SERVICE_UNAVAILABLE","message":"try later"}}`))
			}))
			defer srv.Close()
			legacy, err := v1.New(srv.URL+"/api/v1", "sk_live_k",
				client.RetryPolicy(client.Retry{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			w := 12.5
			res, err := legacy.PatchEquipmentV1WithResponse(context.Background(), "0192f3a1-0000-7000-8000-0000000000e1", v1.EquipmentPatch{WeightLbs: &w})
			if len(keys) != tt.attempts {
				t.Fatalf("%d attempts, want %d", len(keys), tt.attempts)
			}
			for _, k := range keys {
				if k != "" {
					t.Fatalf("sent Idempotency-Key %q, which v1 ignores", k)
				}
			}
			if !tt.lost {
				if err != nil || res.JSON200 == nil {
					t.Fatalf("err = %v, want the 200", err)
				}
				return
			}
			lost, ok := errors.AsType[*client.LostAnswerError](err)
			if !ok || lost.IdempotencyKey != "" || client.IdempotencyKeyOf(err) != "" {
				t.Fatalf("err = %v (%T), want a *client.LostAnswerError naming no key", err, err)
			}
			if text := err.Error(); strings.Contains(text, "repeat the write with this key") || !strings.Contains(text, "applies the same values") {
				t.Fatalf("err = %v, want it to say that sending the PATCH again applies the same values", err)
			}
			if _, ok := client.Retryable(err); !ok {
				t.Fatalf("Retryable(%v) = false, want true: the PATCH sets absolute values", err)
			}
		})
	}
}

// TestV1APIErrorNamesNoKey: an *APIError of a v1 write carries no
// Idempotency-Key (none was sent), and a v1 PATCH's 503 is retryable as
// a keyed write's is.
func TestV1APIErrorNamesNoKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":"SERVICE_UNAVAILABLE","message":"try later"}}`))
	}))
	defer srv.Close()
	legacy, err := v1.New(srv.URL+"/api/v1", "sk_live_k", client.NoRetries())
	if err != nil {
		t.Fatal(err)
	}
	w := 12.5
	_, err = legacy.PatchEquipmentV1WithResponse(context.Background(), "0192f3a1-0000-7000-8000-0000000000e1", v1.EquipmentPatch{WeightLbs: &w})
	e, ok := errors.AsType[*client.APIError](err)
	if !ok || e.Status != 503 || e.IdempotencyKey != "" || e.Method != http.MethodPatch {
		t.Fatalf("err = %v (%T), key %q; want the 503 naming no key", err, err, client.IdempotencyKeyOf(err))
	}
	if _, ok := client.Retryable(err); !ok {
		t.Fatalf("Retryable(%v) = false, want true", err)
	}
}

// TestV1ErrorsNameNoEditorKey: a key a request editor adds to a v1 write
// protects nothing there, so its lost answer names none either.
func TestV1ErrorsNameNoEditorKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer srv.Close()
	legacy, err := v1.New(srv.URL+"/api/v1", "sk_live_k", client.NoRetries())
	if err != nil {
		t.Fatal(err)
	}
	w := 12.5
	_, err = legacy.PatchEquipmentV1WithResponse(context.Background(), "0192f3a1-0000-7000-8000-0000000000e1", v1.EquipmentPatch{WeightLbs: &w},
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Idempotency-Key", "editor-key")
			return nil
		})
	if lost, ok := errors.AsType[*client.LostAnswerError](err); !ok || lost.IdempotencyKey != "" || client.IdempotencyKeyOf(err) != "" {
		t.Fatalf("err = %v (%T), want a *client.LostAnswerError naming no key", err, err)
	}
}
