package telemetry

import (
	"fmt"
	"log/slog"
	"strings"
)

// ParseLevel reads a log level: debug, info, warn or error, in any case. It
// is the one rule for EVENTAPI_LOG_LEVEL (platform/config) and the
// operator's --log-level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%q must be debug, info, warn or error", s)
}
