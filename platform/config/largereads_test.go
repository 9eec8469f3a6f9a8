package config

import (
	"math"
	"runtime"
	"testing"
)

func TestLargeReadsFor(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name        string
		procs       int
		memoryLimit int64
		want        int
	}{
		{"no memory limit: one per CPU, plus one", 2, 0, 3},
		{"no memory limit (the runtime's unset value)", 16, math.MaxInt64, 17},
		{"the chart's 256 MiB pod (90%: 230 MiB) on a 16-CPU node", 16, 230 * mib, 3},
		{"the chart's pod on a 2-CPU node", 2, 230 * mib, 3},
		{"1 GiB (90%) on 64 CPUs", 64, 921 * mib, 14},
		{"memory for more slots than CPUs", 2, 8192 * mib, 3},
		{"a small pod keeps two slots", 8, 100 * mib, 2},
		{"one CPU and little memory", 1, 50 * mib, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := largeReadsFor(tt.procs, tt.memoryLimit); got != tt.want {
				t.Fatalf("largeReadsFor(%d, %d MiB) = %d, want %d", tt.procs, tt.memoryLimit/mib, got, tt.want)
			}
		})
	}
}

func TestFitMemoryKeepsASetValue(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // 5 slots by the CPUs alone
	const small = 100 << 20                         // two slots' worth
	for _, tt := range []struct {
		name  string
		env   string
		limit int64
		want  int
	}{
		{"default: fitted to the memory limit", "", small, 2},
		{"default, no memory limit: one per CPU, plus one", "", 0, 5},
		{"set: kept", "9", small, 9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(func(k string) string {
				switch k {
				case "EVENTAPI_DATABASE_URL":
					return "postgres://postgres@127.0.0.1:5432/x"
				case "EVENTAPI_LARGE_READS":
					return tt.env
				}
				return ""
			})
			if err != nil {
				t.Fatal(err)
			}
			c.FitMemory(tt.limit)
			if c.LargeReads != tt.want {
				t.Fatalf("LargeReads = %d, want %d", c.LargeReads, tt.want)
			}
		})
	}
}
