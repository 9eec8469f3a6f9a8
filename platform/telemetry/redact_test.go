package telemetry

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestRedactingHandler: a secret is replaced wherever a JSON line would
// carry it (the message, a string, an error, a Stringer, a group, an
// attribute added beforehand), whole even when a shorter secret is part of
// it; a value without one is written as it is.
func TestRedactingHandler(t *testing.T) {
	secrets := []string{"Bearer tok123", "tok123"}
	for _, tc := range []struct {
		name string
		log  func(*slog.Logger)
		want string // the line after "level"
	}{
		{"message", func(l *slog.Logger) { l.Info("saw tok123 twice: tok123") }, `"msg":"saw [redacted] twice: [redacted]"`},
		{"string", func(l *slog.Logger) { l.Info("m", "input", "Authorization:Bearer tok123") }, `"input":"Authorization:[redacted]"`},
		{"error", func(l *slog.Logger) { l.Info("m", "err", errors.New("bad tok123")) }, `"err":"bad [redacted]"`},
		{"stringer", func(l *slog.Logger) { l.Info("m", "v", stringer("x tok123")) }, `"v":"x [redacted]"`},
		{"group", func(l *slog.Logger) { l.Info("m", slog.Group("g", "k", "tok123", "n", 1)) }, `"g":{"k":"[redacted]","n":1}`},
		{"added beforehand", func(l *slog.Logger) { l.With("k", "tok123").WithGroup("g").Info("m", "k", "tok123") }, `"k":"[redacted]","g":{"k":"[redacted]"}`},
		{"nothing secret", func(l *slog.Logger) { l.Info("m", "n", 7, "err", errors.New("refused"), "s", "tok12") }, `"n":7,"err":"refused","s":"tok12"`},
	} {
		var out bytes.Buffer
		tc.log(slog.New(newRedactingHandler(slog.NewJSONHandler(&out, nil), secrets)))
		line := out.String()
		if !strings.Contains(line, tc.want) || strings.Contains(line, "tok123") {
			t.Errorf("%s: %s, want %s and no secret", tc.name, line, tc.want)
		}
	}
}

type stringer string

func (s stringer) String() string { return string(s) }
