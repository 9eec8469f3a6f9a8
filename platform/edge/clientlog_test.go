package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

// TestClientLog: go-redis's messages become JSON lines at DEBUG, and
// nothing at INFO (the default level).
func TestClientLog(t *testing.T) {
	for _, c := range []struct {
		level slog.Level
		lines int
	}{{slog.LevelDebug, 1}, {slog.LevelInfo, 0}} {
		var out bytes.Buffer
		l := ClientLog(slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: c.level})))
		l.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %v", 1, "refused")
		lines := bytes.Count(out.Bytes(), []byte("\n"))
		if lines != c.lines {
			t.Fatalf("level %v: %d lines, want %d: %s", c.level, lines, c.lines, out.String())
		}
		if lines == 1 {
			var m map[string]any
			if err := json.Unmarshal(out.Bytes(), &m); err != nil || m["level"] != "DEBUG" ||
				m["detail"] != "redis: connection pool: failed to dial after 1 attempts: refused" {
				t.Fatalf("line %s (%v)", out.String(), err)
			}
		}
	}
}
