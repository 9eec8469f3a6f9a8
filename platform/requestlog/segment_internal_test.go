package requestlog

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestSegmentsCut: records are grouped by organization, key, key prefix and
// API version, ordered by (created_at, id) within a segment, and a segment
// is cut past MaxSpan and MaxSegment.
func TestSegmentsCut(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	orgA, orgB, key := uuid.New(), uuid.New(), uuid.New()
	live, test := "svc_live_abc", "svc_test_abc"
	rec := func(org *uuid.UUID, prefix *string, version string, at time.Duration) Record {
		r := Record{CreatedAt: t0.Add(at), OrganizationID: org, KeyPrefix: prefix, APIVersion: version,
			Method: "GET", Path: "/", Status: 200}
		if org != nil {
			r.KeyID = &key
		}
		r.Normalize()
		return r
	}
	many := func(n int) []Record {
		out := make([]Record, n)
		for i := range out {
			out[i] = rec(&orgA, &live, "v2", time.Duration(n-i)*time.Millisecond)
		}
		return out
	}
	cases := []struct {
		name    string
		records []Record
		want    []int // segment sizes, in segment order
	}{
		{"one segment", []Record{rec(&orgA, &live, "v2", 2), rec(&orgA, &live, "v2", 1)}, []int{2}},
		{"by organization", []Record{rec(&orgA, &live, "v2", 0), rec(&orgB, &live, "v2", 0), rec(&orgA, &live, "v2", 1)}, nil},
		{"by key prefix", []Record{rec(&orgA, &live, "v2", 0), rec(&orgA, &test, "v2", 0)}, []int{1, 1}},
		{"by API version", []Record{rec(&orgA, &live, "v2", 0), rec(&orgA, &live, "v1", 0)}, []int{1, 1}},
		{"no organization", []Record{rec(nil, nil, "v2", 0), rec(nil, nil, "v2", time.Second)}, []int{2}},
		{"at MaxSpan", []Record{rec(&orgA, &live, "v2", 0), rec(&orgA, &live, "v2", MaxSpan)}, []int{2}},
		{"past MaxSpan", []Record{rec(&orgA, &live, "v2", 0), rec(&orgA, &live, "v2", MaxSpan+time.Microsecond),
			rec(&orgA, &live, "v2", MaxSpan+time.Second)}, []int{1, 2}},
		{"past MaxSegment", many(MaxSegment + 3), []int{MaxSegment, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scratch []*Record
			segs := segments([][]Record{c.records}, &scratch)
			total := 0
			for _, seg := range segs {
				total += len(seg)
				for i, r := range seg {
					if !sameSegment(seg[0], r) {
						t.Fatalf("a segment mixes %v and %v", seg[0], r)
					}
					if r.CreatedAt.Sub(seg[0].CreatedAt) > MaxSpan {
						t.Fatalf("a segment spans %v", r.CreatedAt.Sub(seg[0].CreatedAt))
					}
					if i > 0 && segmentOrder(seg[i-1], r) >= 0 {
						t.Fatalf("records out of order at %d", i)
					}
				}
			}
			if total != len(c.records) {
				t.Fatalf("%d records in segments, want %d", total, len(c.records))
			}
			if c.want != nil {
				var got []int
				for _, seg := range segs {
					got = append(got, len(seg))
				}
				if len(got) != len(c.want) {
					t.Fatalf("segments %v, want %v", got, c.want)
				}
				for i := range got {
					if got[i] != c.want[i] {
						t.Fatalf("segments %v, want %v", got, c.want)
					}
				}
			} else if len(segs) != 2 {
				t.Fatalf("%d segments, want 2", len(segs))
			}
		})
	}
}

func TestIsIDText(t *testing.T) {
	id := uuid.MustParse("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	cases := []struct {
		s    string
		want bool
	}{
		{id.String(), true},
		{strings.ToUpper(id.String()), false},
		{"urn:uuid:" + id.String(), false},
		{"{" + id.String() + "}", false},
		{strings.ReplaceAll(id.String(), "-", ""), false},
		{uuid.NewString(), false},
		{id.String()[:35] + "c", false},
		{strings.Replace(id.String(), "-", "x", 1), false},
		{"", false},
	}
	for _, c := range cases {
		if got := isIDText(c.s, id); got != c.want {
			t.Errorf("isIDText(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}
