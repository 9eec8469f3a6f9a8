package server

import "testing"

// TestRefusedCharset: every charset parameter is read, among others, in any
// case, quoted or not; one that does not declare UTF-8 (or US-ASCII) is
// refused, whatever its place, and so is one without a value.
func TestRefusedCharset(t *testing.T) {
	for _, c := range []struct {
		ct      string
		want    string
		refused bool
	}{
		{"application/json", "", false},
		{"application/json;", "", false},
		{"application/json; charset=utf-8", "", false},
		{"application/json;charset=UTF-8", "", false},
		{`application/json; charset="utf-8"`, "", false},
		{"application/json; charset=us-ascii; charset=utf-8", "", false},
		{"application/json; charsets=latin1", "", false},
		{"application/json; Charset = ISO-8859-1 ", "ISO-8859-1", true},
		{"application/json; profile=x; charset=utf-16; q=1", "utf-16", true},
		{"application/json; charset=utf-8; charset=latin1", "latin1", true},
		{"application/json; charset=latin1; charset=utf-8", "latin1", true},
		{"application/json; charset=", "", true},
		{`application/json; charset=""`, "", true},
		{"application/json; charset", "", true},
		{"application/json; charset; profile=x", "", true},
		{`application/json; charset="`, `"`, true},
	} {
		if got, refused := refusedCharset([]byte(c.ct)); got != c.want || refused != c.refused {
			t.Errorf("refusedCharset(%q) = %q, %v; want %q, %v", c.ct, got, refused, c.want, c.refused)
		}
	}
}

// TestIsUTF8: UTF-8 under its names and US-ASCII are read; any other
// declared charset, or none named, is not.
func TestIsUTF8(t *testing.T) {
	for _, c := range []struct {
		charset string
		want    bool
	}{
		{"utf-8", true}, {"UTF-8", true}, {"utf8", true}, {"US-ASCII", true},
		{"", false}, {"iso-8859-1", false}, {"latin1", false}, {"utf-16", false}, {"UTF-16LE", false}, {"windows-1252", false}, {`"`, false},
	} {
		if got := isUTF8(c.charset); got != c.want {
			t.Errorf("isUTF8(%q) = %v, want %v", c.charset, got, c.want)
		}
	}
}
