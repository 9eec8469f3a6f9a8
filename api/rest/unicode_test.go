package rest

import "testing"

func TestLoneSurrogate(t *testing.T) {
	tests := []struct {
		body string
		lone bool
	}{
		{`{"name":"plain"}`, false},
		{`{"name":"pair \ud83d\ude00"}`, false},
		{`{"name":"pair \uD83D\uDE00 upper case"}`, false},
		{`{"name":"bmp \u00e9 \u200b \uffff"}`, false},
		{`{"name":"escaped backslash \\ud800"}`, false},
		{`{"name":"quote \" then \ud83d\ude00"}`, false},
		{`{"name":"x\ud800y"}`, true},
		{`{"name":"x\ud800"}`, true},
		{`{"name":"low first \ude00\ud83d"}`, true},
		{`{"name":"high then high \ud83d\ud83d"}`, true},
		{`{"name":"high then letter \ud83d\u0041"}`, true},
		{`{"a":"\ud83d\ude00","b":"\udfff"}`, true},
		{`{"name":"\\\ud800"}`, true},
	}
	for _, tt := range tests {
		if got := loneSurrogate([]byte(tt.body)); got != tt.lone {
			t.Errorf("loneSurrogate(%s) = %v, want %v", tt.body, got, tt.lone)
		}
	}
}

func TestBlank(t *testing.T) {
	tests := []struct {
		s     string
		blank bool
	}{
		{"", true},
		{"   ", true},
		{"\u00a0\u3000", true},
		{"\u200b", true},
		{"\ufeff\u2060", true},
		{"\u200b \u200d", true},
		{"a", false},
		{"\u200ba", false},
		{"\U0001F600", false},
		{"\u05d0", false},
	}
	for _, tt := range tests {
		if got := blank(tt.s); got != tt.blank {
			t.Errorf("blank(%q) = %v, want %v", tt.s, got, tt.blank)
		}
	}
}

func TestTrimText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  Truss  ", "Truss"},
		{"\ufeffTruss", "Truss"},
		{"Truss\u200b", "Truss"},
		{"\u2060\u200c Truss \u200d\u00ad", "Truss"},
		{"Tr\u200buss", "Tr\u200buss"}, // inside: kept
		{"\u200fשלום", "\u200fשלום"},   // a bidi mark decides the direction: kept
		{"👩\u200d💻", "👩\u200d💻"},       // a joiner inside an emoji: kept
		{"\u200b\u200b", ""},
	} {
		if got := trimText(c.in); got != c.want {
			t.Errorf("trimText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCanonicalText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"ASCII as it is", "Truss", "Truss"},
		{"a combining accent composed", "Cafe\u0301", "Caf\u00e9"},
		{"already composed", "Caf\u00e9", "Caf\u00e9"},
		{"trimmed, then composed", "\ufeff Cafe\u0301 ", "Caf\u00e9"},
		{"Hangul jamo composed", "\u1100\u1161", "\uac00"},
		{"an Angstrom sign is the letter", "\u212b", "\u00c5"},
		{"compatibility forms kept (NFC, not NFKC)", "\ufb01le", "\ufb01le"},
		{"full-width kept", "\uff21", "\uff21"},
		{"a joiner inside an emoji kept", "👩\u200d💻", "👩\u200d💻"},
	} {
		if got := canonicalText(c.in); got != c.want {
			t.Errorf("%s: canonicalText(%+q) = %+q, want %+q", c.name, c.in, got, c.want)
		}
	}
}
