package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// redactedText replaces a secret in a log line.
const redactedText = "[redacted]"

// redactingHandler writes its records to next with every occurrence of a
// secret replaced by redactedText: in the message, in every string
// attribute, and in every other attribute whose text (an error's
// Error(), a value's fmt.Sprint) contains one, which is then written as
// that text, redacted.
type redactingHandler struct {
	next    slog.Handler
	secrets []string
	r       *strings.Replacer
}

// newRedactingHandler wraps next; with no secrets it is next itself.
// secrets are matched in order, so a longer one that contains a shorter
// one comes first.
func newRedactingHandler(next slog.Handler, secrets []string) slog.Handler {
	if len(secrets) == 0 {
		return next
	}
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, redactedText)
	}
	return &redactingHandler{next: next, secrets: secrets, r: strings.NewReplacer(pairs...)}
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Replace(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &redactingHandler{next: h.next.WithAttrs(clean), secrets: h.secrets, r: h.r}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{next: h.next.WithGroup(name), secrets: h.secrets, r: h.r}
}

// attr is a with its value redacted.
func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Replace(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		if text := fmt.Sprint(v.Any()); h.contains(text) {
			return slog.String(a.Key, h.r.Replace(text))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *redactingHandler) contains(text string) bool {
	for _, s := range h.secrets {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
