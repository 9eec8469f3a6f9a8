package database

import (
	"errors"
	"math"
	"testing"
)

// TestRaisedFeedOffset is the detection's arithmetic: on the same cluster,
// nothing while every stored position is below the next one; on another
// cluster (moved), nothing while the next position is already the margin
// above them; otherwise the next position becomes the greatest stored one
// plus the margin, and the offset never shrinks.
func TestRaisedFeedOffset(t *testing.T) {
	const margin = 1000
	cases := []struct {
		name                 string
		offset, next, stored int64
		want                 int64
		moved, raise         bool
		err                  error
	}{
		{name: "not moved: stored below next", offset: 0, next: 5000, stored: 4999, want: 0},
		{name: "not moved, with an offset from an earlier move", offset: 7000, next: 12000, stored: 11000, want: 7000},
		{name: "moved: the new counter is far behind", offset: 0, next: 800, stored: 1_000_000, want: 1_000_000 + margin - 800, raise: true},
		{name: "a stored position equal to next is a move", offset: 0, next: 5000, stored: 5000, want: margin, raise: true},
		{name: "moved twice: the offset grows", offset: 7000, next: 7100, stored: 50_000, want: 7000 + 50_000 + margin - 7100, raise: true},
		{name: "past bigint", offset: 0, next: 1, stored: math.MaxInt64 - margin + 1, err: errOffsetOverflow},
		{name: "the offset past bigint", offset: math.MaxInt64 - 10, next: 1, stored: 1 << 40, err: errOffsetOverflow},
		{name: "a negative next", offset: 0, next: -1, stored: 10, err: errOffsetOverflow},
		{name: "another cluster whose counter is past the stored positions, not the margin past", offset: 0, next: 5000, stored: 4999, moved: true,
			want: 4999 + margin - 5000, raise: true},
		{name: "another cluster whose counter is behind", offset: 0, next: 800, stored: 1_000_000, moved: true, want: 1_000_000 + margin - 800, raise: true},
		{name: "another cluster, the next position the margin past", offset: 0, next: 5000 + margin, stored: 5000, moved: true, want: 0},
		{name: "another cluster far ahead: never lowered", offset: 7000, next: 1 << 40, stored: 5000, moved: true, want: 7000},
		{name: "another cluster with a negative stored position", offset: 0, next: 5000, stored: -1, moved: true, err: errOffsetOverflow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, raise, err := raisedFeedOffset(tc.offset, tc.next, tc.stored, margin, tc.moved)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if got != tc.want || raise != tc.raise {
				t.Fatalf("offset %d, raise %v; want %d, %v", got, raise, tc.want, tc.raise)
			}
			if raise && tc.next+(got-tc.offset) != tc.stored+margin {
				t.Fatalf("the next position becomes %d, want the stored %d plus the margin", tc.next+(got-tc.offset), tc.stored)
			}
		})
	}
}
