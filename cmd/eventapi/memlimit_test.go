package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// TestSetMemoryLimit: serve's soft memory limit is 90% of the container's,
// none without one, the previous one when the limit cannot be read, and an
// explicit GOMEMLIMIT or AUTOMEMLIMIT=off is left alone.
func TestSetMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const mib = 1 << 20
	broken := func() (uint64, error) { return 0, errors.New("cgroup unreadable") }
	none := func() (uint64, error) { return 0, memlimit.ErrNoLimit }
	tests := []struct {
		name     string
		env      map[string]string
		provider memlimit.Provider
		before   int64
		want     int64
	}{
		{"a 256 MiB container", nil, memlimit.Limit(256 * mib), math.MaxInt64, 256 * mib * 9 / 10},
		{"no limit", nil, none, 100 * mib, math.MaxInt64},
		{"unreadable: unchanged", nil, broken, 100 * mib, 100 * mib},
		{"GOMEMLIMIT set: unchanged", map[string]string{"GOMEMLIMIT": "100MiB"}, memlimit.Limit(256 * mib), 100 * mib, 100 * mib},
		{"AUTOMEMLIMIT=off: unchanged", map[string]string{"AUTOMEMLIMIT": "off"}, memlimit.Limit(256 * mib), 100 * mib, 100 * mib},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			debug.SetMemoryLimit(tt.before)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if got := setMemoryLimit(ctx, log, tt.provider); got != tt.want {
				t.Errorf("setMemoryLimit = %d, want %d", got, tt.want)
			}
			if got := debug.SetMemoryLimit(-1); got != tt.want {
				t.Errorf("runtime limit = %d, want %d", got, tt.want)
			}
		})
	}
}
