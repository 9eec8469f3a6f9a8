package storage

import "fmt"

// JSONTextSize is the size of s inside a JSON string as the API writes it
// (rest.Encode, byte for byte what encoding/json writes): <, > and & take
// six bytes each (\u003c), a quote, a backslash and the escaped control
// characters two (\n) or six (\u001b), the line and paragraph separators
// six (\u2028). The bounds on what an answer inlines count this, not the
// stored bytes: text of < and & was six times its stored size in an answer.
func JSONTextSize(s string) int {
	n := len(s)
	for _, r := range s {
		switch {
		case r == '<' || r == '>' || r == '&':
			n += 5
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
			n++
		case r == '\u2028' || r == '\u2029':
			n += 3
		case r < 0x20:
			n += 5
		}
	}
	return n
}

// JSONTextSizeSQL is JSONTextSize of the SQL text expression expr (null
// counting as empty), computed by PostgreSQL: each escaped character is
// counted by the bytes that removing it takes off (replace, a byte search:
// translate was five times as slow on a list of 1000 items). It counts
// the control characters other than tab, line feed and carriage return as
// one byte: no text is stored with them (docs/decisions.md, "Text is one
// line").
func JSONTextSizeSQL(expr string) string {
	return fmt.Sprintf(`(octet_length(%[1]s)`+
		` + 5 * (octet_length(%[1]s) - octet_length(replace(replace(replace(%[1]s, '<', ''), '>', ''), '&', '')))`+
		` + (octet_length(%[1]s) - octet_length(replace(replace(replace(replace(replace(%[1]s, '"', ''), E'\\', ''), E'\n', ''), E'\r', ''), E'\t', '')))`+
		` + (octet_length(%[1]s) - octet_length(replace(replace(%[1]s, E'\u2028', ''), E'\u2029', ''))))`, "coalesce("+expr+", '')")
}
