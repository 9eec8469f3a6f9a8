package auth

import "testing"

func TestBearer(t *testing.T) {
	tests := []struct {
		header string
		key    string
		ok     bool
	}{
		{"Bearer svc_live_abc", "svc_live_abc", true},
		{"bearer svc_live_abc", "svc_live_abc", true},
		{"BEARER svc_live_abc", "svc_live_abc", true},
		{"Bearer   svc_live_abc  ", "svc_live_abc", true},
		{"Bearer  ", "", true}, // a prefix and blanks: an empty key, which Authenticate refuses
		{"Bearer ", "", false},
		{"Bearer", "", false},
		{"", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearersvc_live_abc", "", false},
		{"Token svc_live_abc", "", false},
		{"svc_live_abc", "", false},
	}
	for _, tt := range tests {
		key, ok := bearer(tt.header)
		if key != tt.key || ok != tt.ok {
			t.Errorf("bearer(%q) = %q, %v; want %q, %v", tt.header, key, ok, tt.key, tt.ok)
		}
	}
}
