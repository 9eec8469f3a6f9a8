package rest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOneLineAndFreeText: a string is one line, refusing every control
// character (C0, DEL, C1) and the line and paragraph separators inside
// it; a MultiLine string (free text) takes tab, line feed and carriage
// return and refuses the other control characters. White space at either
// end is trimmed first, and NUL keeps its own issue.
func TestOneLineAndFreeText(t *testing.T) {
	const oneLine = "must not contain line breaks or control characters"
	const freeText = "must not contain control characters other than tab, line feed and carriage return"
	tests := []struct {
		name, value string
		multiLine   bool
		want        string // the stored value, or the issue
	}{
		{"plain", "Gig", false, "Gig"},
		{"escape sequences", "Gig\u001b[2J\u001b[31mPWNED", false, oneLine},
		{"CR LF inside", "Hall\r\nX-Injected: 1", false, oneLine},
		{"line feed inside", "Hall\nB", false, oneLine},
		{"tab inside", "Hall\tB", false, oneLine},
		{"bell and backspace", "Q-1\u0007\u0008", false, oneLine},
		{"DEL", "Del\u007f", false, oneLine},
		{"C1 next line", "C1\u0085x", false, oneLine},
		{"C1 CSI", "C1\u009bx", false, oneLine},
		{"line separator", "A\u2028B", false, oneLine},
		{"paragraph separator", "A\u2029B", false, oneLine},
		{"a control character alone", "\u0007", false, oneLine},
		{"trailing newline trimmed", "Hall B\r\n", false, "Hall B"},
		{"leading tab trimmed", "\tHall B", false, "Hall B"},
		{"NUL keeps its issue", "a\u0000b", false, "must not contain NUL characters"},
		{"Latin-1 after C1 is text", "Caf\u00e9 \u00a0x", false, "Caf\u00e9 \u00a0x"},
		{"free text: lines and tabs", "Load in:\r\n\t- truss\n\t- lights", true, "Load in:\r\n\t- truss\n\t- lights"},
		{"free text: separators", "A\u2028B\u2029C", true, "A\u2028B\u2029C"},
		{"free text: escape", "note \u001b[2J", true, freeText},
		{"free text: vertical tab", "a\u000bb", true, freeText},
		{"free text: form feed", "a\u000cb", true, freeText},
		{"free text: DEL", "a\u007fb", true, freeText},
		{"free text: C1", "a\u0085b", true, freeText},
		{"free text: NUL keeps its issue", "a\u0000b", true, "must not contain NUL characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"s": tt.value, "l": []string{tt.value}})
			in, err := ParseObject(body)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			r := Rule{MultiLine: tt.multiLine}
			s := in.String("s", r)
			l := in.StringList("l", Rule{MaxItems: 1, MultiLine: tt.multiLine})
			got := issuesOf(t, in.Err())
			if strings.HasPrefix(tt.want, "must ") {
				if got["s"] != tt.want || got["l[0]"] != tt.want {
					t.Fatalf("issues %v, want s and l[0]: %q", got, tt.want)
				}
				return
			}
			if len(got) != 0 || s.Value != tt.want || len(l.Value) != 1 || l.Value[0] != tt.want {
				t.Fatalf("%q, %q, issues %v; want %q", s.Value, l.Value, got, tt.want)
			}
		})
	}
}

// TestRulesMultiLine: MultiLine marks the named fields of a copy, leaves
// the others and the original as they were, and panics on a field the
// schema lacks, as Get does.
func TestRulesMultiLine(t *testing.T) {
	rs := Rules{"name": {Required: true, MaxLen: 200}, "notes": {Nullable: true, MaxLen: 10000}}
	marked := rs.MultiLine("notes")
	if r := marked.Get("notes"); !r.MultiLine || !r.Nullable || r.MaxLen != 10000 {
		t.Errorf("notes = %+v, want MultiLine with its other rules", r)
	}
	if marked.Get("name").MultiLine || rs.Get("notes").MultiLine {
		t.Errorf("name or the original marked: %+v, %+v", marked.Get("name"), rs.Get("notes"))
	}
	defer func() {
		if recover() == nil {
			t.Error("MultiLine of an unknown field did not panic")
		}
	}()
	rs.MultiLine("nots")
}
