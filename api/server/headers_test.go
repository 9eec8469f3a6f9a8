package server

import "testing"

func TestValidHost(t *testing.T) {
	for host, want := range map[string]bool{
		"":                     true,
		"api.example.com":      true,
		"api.example.com:443":  true,
		"127.0.0.1:":           true,
		"[::1]":                true,
		"[::1]:8080":           true,
		"[::ffff:10.0.0.1]":    true,
		"b%C3%BCcher.example":  true,
		"a%25b":                true,
		"a/b":                  false,
		"u@a":                  false,
		"a b":                  false,
		"a:b":                  false,
		"a:80:90":              false,
		"[::1":                 false,
		"[::1]x":               false,
		"[]":                   false,
		"[fe80::1%25en0]":      false,
		"a%20b":                false,
		"a%2":                  false,
		"a%zz":                 false,
		"api.example.com:80x":  false,
		"api.example.com:-443": false,
	} {
		if got := validHost([]byte(host)); got != want {
			t.Errorf("validHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestBodyHeaders(t *testing.T) {
	tests := []struct {
		raw     string
		types   int
		encoded bool
	}{
		{"Host: a\r\nContent-Type: application/json\r\n", 1, false},
		{"Content-Type: text/plain\r\ncontent-type: application/json\r\n", 2, false},
		{"Content-Encoding: identity\r\n", 0, false},
		{"Content-Encoding: identity\r\nContent-Encoding: gzip\r\n", 0, true},
		{"Content-Encoding: IDENTITY, gzip\r\n", 0, true},
		{"Content-Encoding: , identity\r\n", 0, false},
		{"X-Content-Type: a\r\nContent-Typed: b\r\n", 0, false},
	}
	for _, tt := range tests {
		types, encoded := bodyHeaders([]byte(tt.raw))
		if types != tt.types || encoded != tt.encoded {
			t.Errorf("bodyHeaders(%q) = %d, %v, want %d, %v", tt.raw, types, encoded, tt.types, tt.encoded)
		}
	}
}
