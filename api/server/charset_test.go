package server

import "testing"

// TestCharsetOf: the charset parameter is found among others, in any case,
// quoted or not; a Content-Type without one names none.
func TestCharsetOf(t *testing.T) {
	for _, c := range []struct{ ct, want string }{
		{"application/json", ""},
		{"application/json;", ""},
		{"application/json; charset=utf-8", "utf-8"},
		{"application/json;charset=UTF-8", "UTF-8"},
		{`application/json; charset="utf-8"`, "utf-8"},
		{"application/json; Charset = ISO-8859-1 ", "ISO-8859-1"},
		{"application/json; profile=x; charset=utf-16; q=1", "utf-16"},
		{"application/json; charsets=latin1", ""},
		{"application/json; charset=", ""},
		{`application/json; charset="`, `"`},
	} {
		if got := charsetOf([]byte(c.ct)); got != c.want {
			t.Errorf("charsetOf(%q) = %q, want %q", c.ct, got, c.want)
		}
	}
}

// TestIsUTF8: UTF-8 under its names and US-ASCII are read; any other
// declared charset is not.
func TestIsUTF8(t *testing.T) {
	for _, c := range []struct {
		charset string
		want    bool
	}{
		{"", true}, {"utf-8", true}, {"UTF-8", true}, {"utf8", true}, {"US-ASCII", true},
		{"iso-8859-1", false}, {"latin1", false}, {"utf-16", false}, {"UTF-16LE", false}, {"windows-1252", false}, {`"`, false},
	} {
		if got := isUTF8(c.charset); got != c.want {
			t.Errorf("isUTF8(%q) = %v, want %v", c.charset, got, c.want)
		}
	}
}
