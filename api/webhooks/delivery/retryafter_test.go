package delivery

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 5, 16, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{" 30 ", 30 * time.Second},
		{"0", 0},
		{"86400", maxRetryAfter},
		{"-5", 0},
		{"1.5", 0},
		{"soon", 0},
		{"Sat, 05 Dec 2026 16:10:00 GMT", 10 * time.Minute},
		{"Sat, 05 Dec 2026 15:00:00 GMT", 0},
		{"Sun, 06 Dec 2026 16:00:00 GMT", maxRetryAfter},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
