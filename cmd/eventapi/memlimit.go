package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// memoryLimitRatio is the share of the container's memory limit the Go
// runtime may fill before its garbage collector works harder; the rest is
// headroom for what the runtime does not count (stacks in flight, cgo, the
// page cache of the container).
const memoryLimitRatio = 0.9

// setMemoryLimit sets the Go runtime's soft memory limit (GOMEMLIMIT) to
// memoryLimitRatio of the limit provider reports (the container's cgroup in
// serve), and follows it while ctx lives, so a pod nearing its limit
// collects garbage sooner instead of being killed (docs/helm.md, "Memory").
// An explicit GOMEMLIMIT, or AUTOMEMLIMIT=off, wins; no limit leaves the
// runtime unlimited. It returns the limit in force.
func setMemoryLimit(ctx context.Context, log *slog.Logger, provider memlimit.Provider) int64 {
	limit, _ := memlimit.Set(memlimit.WithRatio(memoryLimitRatio), memlimit.WithProvider(provider),
		memlimit.WithLogger(log), memlimit.WithRefreshInterval(ctx, time.Minute))
	return limit
}
