package rest

import (
	"maps"
	"strings"
)

// MultiLine returns a copy of rs with the named fields marked
// Rule.MultiLine: the free-text fields of a body, which may hold tabs and
// line breaks. A field the schema lacks panics, as in Get.
func (rs Rules) MultiLine(fields ...string) Rules {
	out := maps.Clone(rs)
	for _, f := range fields {
		r := out.Get(f)
		r.MultiLine = true
		out[f] = r
	}
	return out
}

// controlIssue is the issue of a string holding a character its field
// refuses, or "". Text is one line unless its field is free text
// (docs/decisions.md, "Text is one line"): a name, title, venue, number or
// plate is shown, logged and exported as it is stored, where an escape
// sequence repaints the terminal that prints it, a CR LF starts a new line
// (or a forged header) in whatever copies it, and a BEL, backspace or DEL
// is no text at all. So a string refuses every control character
// (control) and the line and paragraph separators U+2028 and U+2029, and
// free text (notes, a description) refuses the control characters but
// tab, line feed and carriage return. White space at either end, a
// trailing newline included, is trimmed before (trimText): only what is
// inside the value is judged.
func controlIssue(s string, multiLine bool) string {
	if multiLine {
		if strings.ContainsFunc(s, func(r rune) bool { return control(r) && r != '\t' && r != '\n' && r != '\r' }) {
			return "must not contain control characters other than tab, line feed and carriage return"
		}
		return ""
	}
	if strings.ContainsFunc(s, func(r rune) bool { return control(r) || r == '\u2028' || r == '\u2029' }) {
		return "must not contain line breaks or control characters"
	}
	return ""
}

// control reports whether r is a control character, Unicode category Cc:
// C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F).
func control(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }
