package requestlogs

import (
	"strings"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	tests := []struct {
		in          string
		code, class int
		ok          bool
	}{
		{"429", 429, 0, true},
		{"4xx", 0, 4, true},
		{"5xx", 0, 5, true},
		{"6xx", 0, 0, false},
		{"99", 0, 0, false},
		{"600", 0, 0, false},
		{"+42", 0, 0, false},
		{"abc", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		f, ok := ParseStatus(tt.in)
		if ok != tt.ok || f.Status != tt.code || f.StatusClass != tt.class {
			t.Errorf("ParseStatus(%q) = %+v %v", tt.in, f, ok)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"GET", "GET", true},
		{"patch", "PATCH", true},
		{"Connect", "CONNECT", true},
		{"FOO", "", false},
		{"", "", false},
		{" GET", "", false},
	} {
		got, ok := ParseMethod(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseMethod(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseRequestID(t *testing.T) {
	const id = "0190b5a8-1c2d-7e3f-8a4b-5c6d7e8f9a0b"
	for _, tc := range []struct {
		in   string
		want string // "" means refused
	}{
		{id, id},
		{"0190B5A8-1C2D-7E3F-8A4B-5C6D7E8F9A0B", id},
		{"{" + id + "}", ""},
		{" " + id + " ", ""},
		{"urn:uuid:" + id, ""},
		{strings.ReplaceAll(id, "-", ""), ""},
		{"", ""},
		{"   ", ""},
		{"bad", ""},
		{"legacy-" + id, ""},
	} {
		got, ok := ParseRequestID(tc.in)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("ParseRequestID(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestStoredRoundsUpToTheMicrosecond(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 358923000, time.UTC)
	for _, tc := range []struct {
		in, want time.Time
	}{
		{at, at},
		{at.Add(time.Nanosecond), at.Add(time.Microsecond)},
		{at.Add(999 * time.Nanosecond), at.Add(time.Microsecond)},
		{at.Add(-time.Nanosecond), at},
	} {
		f := Filter{Since: &tc.in, Until: &tc.in}.stored()
		if !f.Since.Equal(tc.want) || !f.Until.Equal(tc.want) {
			t.Errorf("stored(%v) = %v, %v; want %v", tc.in, f.Since, f.Until, tc.want)
		}
	}
	if f := (Filter{}).stored(); f.Since != nil || f.Until != nil {
		t.Errorf("stored of no window = %+v", f)
	}
}
