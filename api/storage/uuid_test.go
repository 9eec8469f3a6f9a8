package storage

import (
	"testing"

	"github.com/google/uuid"
)

func TestParseUUID(t *testing.T) {
	id := uuid.MustParse("0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10")
	tests := []struct {
		in string
		ok bool
	}{
		{"0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10", true},
		{"0B7C3C1E-5F55-4B43-9A4E-6D3F1C2A9E10", true},
		{"{0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10}", false},
		{"urn:uuid:0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10", false},
		{"0b7c3c1e5f554b439a4e6d3f1c2a9e10", false},
		{" 0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10", false},
		{"0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e1", false},
		{"0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e1g", false},
		{"0b7c3c1e_5f55-4b43-9a4e-6d3f1c2a9e10", false},
		{"", false},
	}
	for _, tt := range tests {
		got, err := ParseUUID(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != id) {
			t.Errorf("ParseUUID(%q) = %v, %v; want ok %v", tt.in, got, err, tt.ok)
		}
	}
}
