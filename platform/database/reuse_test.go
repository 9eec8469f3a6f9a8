package database

import (
	"fmt"
	"testing"
)

func TestSeenTextsRemembersUpToItsCapacity(t *testing.T) {
	s := newSeenTexts()
	tests := []struct {
		text string
		want bool
	}{
		{"SELECT 1", false},
		{"SELECT 1", true},
		{"SELECT 2", false},
		{"SELECT 1", true},
		{"SELECT 2", true},
	}
	for _, tt := range tests {
		if got := s.again(tt.text); got != tt.want {
			t.Fatalf("again(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	for i := range seenCapacity {
		s.again(fmt.Sprint("SELECT ", i+10))
	}
	if s.again("SELECT 1") {
		t.Fatal("a full memory did not start over")
	}
	if len(s.seen) > seenCapacity {
		t.Fatalf("%d texts remembered, capacity %d", len(s.seen), seenCapacity)
	}
}
