package server

import "testing"

func TestSegmentsMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/api/v2/clients", "/api/v2/clients", true},
		{"/api/v2/clients/:id", "/api/v2/clients/123", true},
		{"/api/v2/clients/:id", "/api/v2/clients/", false},
		{"/api/v2/clients/:id", "/api/v2/clients", false},
		{"/api/v2/clients", "/api/v2/clients/123", false},
		{"/api/v2/clients/:id", "/api/v2/crew/123", false},
	}
	for _, tt := range tests {
		if got := segmentsMatch(splitPath(tt.pattern), splitPath(tt.path)); got != tt.want {
			t.Errorf("segmentsMatch(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}
