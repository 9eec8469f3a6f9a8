package errs

import "unicode/utf8"

// MaxEcho is the most bytes of client text an error repeats: a member
// name, a field name, a query parameter's name. Longer text is cut on a rune boundary
// and ends in "…", so one absurd name cannot make an error as large as
// the request (docs/decisions.md, "Errors repeat at most 128 bytes of the
// request").
const MaxEcho = 128

// Echo returns client text as an error may repeat it: Clip(s, MaxEcho).
func Echo(s string) string { return Clip(s, MaxEcho) }

// Clip returns s itself when it is at most max bytes, else its first
// bytes, cut on a rune boundary, and "…", max bytes or fewer in all.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	n := max - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}
