package main

import (
	"errors"
	"testing"

	"github.com/eventapi/eventapi/tenancy"
)

// TestSettingsRateLimit: --rate-limit given is read whatever its value
// (0 clears the override, -1 and other values out of range are usage
// errors); left out, it changes nothing. -1 does not stand for "left
// out": `--rate-limit -1` is refused, not silently ignored.
func TestSettingsRateLimit(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rate  int
		given bool
		want  *int // the override written; nil: none
		bad   bool
	}{
		{name: "left out", rate: 0, given: false},
		{name: "zero clears", rate: 0, given: true, want: ptr(0)},
		{name: "one", rate: 1, given: true, want: ptr(1)},
		{name: "the most", rate: tenancy.MaxRateLimit, given: true, want: ptr(tenancy.MaxRateLimit)},
		{name: "minus one", rate: -1, given: true, bad: true},
		{name: "minus two", rate: -2, given: true, bad: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u, err := settings("", tt.rate, tt.given)
			if tt.bad {
				if !errors.Is(err, errUsage) {
					t.Fatalf("settings(--rate-limit %d) = %+v, %v; want a usage error", tt.rate, u, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (u.RateLimit == nil) != (tt.want == nil) || u.RateLimit != nil && *u.RateLimit != *tt.want {
				t.Fatalf("rate limit %v, want %v", u.RateLimit, tt.want)
			}
		})
	}
}

func ptr(v int) *int { return &v }
