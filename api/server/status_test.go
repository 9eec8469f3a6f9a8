package server

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStatus: a dependency check's answer, and a check that returns only
// after its context ended (a stalled connection being closed) answers
// unavailable by the deadline instead of when the check returns.
func TestStatus(t *testing.T) {
	released := make(chan struct{})
	defer close(released)
	tests := []struct {
		name  string
		check func(context.Context) error
		want  string
	}{
		{"not configured", nil, depNotConfigured},
		{"ok", func(context.Context) error { return nil }, depOK},
		{"failed", func(context.Context) error { return errors.New("refused") }, depUnavailable},
		{"returns after its deadline", func(ctx context.Context) error {
			<-ctx.Done()
			<-released // still closing when the test ends
			return ctx.Err()
		}, depUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A check that answers gets a minute: under 50 ms, a stall of a
			// loaded machine could end the context first.
			budget := time.Minute
			if tt.want == depUnavailable && tt.name == "returns after its deadline" {
				budget = 50 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), budget)
			defer cancel()
			got := make(chan string, 1)
			go func() { s, _ := status(ctx, tt.check); got <- s }()
			select {
			case g := <-got:
				if g != tt.want {
					t.Errorf("status = %q, want %q", g, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("status waited for the check past its context's deadline")
			}
		})
	}
}
