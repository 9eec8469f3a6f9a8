package requestlog

import "testing"

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
