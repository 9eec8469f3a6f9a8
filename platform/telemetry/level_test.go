package telemetry

import (
	"log/slog"
	"testing"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in   string
		want slog.Level
		ok   bool
	}{
		{"debug", slog.LevelDebug, true},
		{"info", slog.LevelInfo, true},
		{"INFO", slog.LevelInfo, true},
		{"Warn", slog.LevelWarn, true},
		{"error", slog.LevelError, true},
		{"", 0, false},
		{"warning", 0, false},
		{"info ", 0, false},
		{"-4", 0, false},
		{"INFO+2", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
