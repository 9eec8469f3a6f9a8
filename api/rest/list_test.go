package rest

import (
	"slices"
	"testing"
)

func TestListElements(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want []string
	}{
		{"", nil},
		{",", nil},
		{" , ,, ", nil},
		{"a", []string{"a"}},
		{"a,", []string{"a"}},
		{",a", []string{"a"}},
		{"a,,b", []string{"a", "b"}},
		{" a , b ", []string{"a", "b"}},
		{"a,a", []string{"a", "a"}}, // repeats are the caller's
	} {
		if got := ListElements(tt.raw); !slices.Equal(got, tt.want) {
			t.Errorf("ListElements(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
