package main

import (
	"strings"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
		want   bool
	}{
		{0, "", true},                            // no answer: outcome unknown
		{503, "service_unavailable", true},       // not stored, executed nothing
		{500, "internal", true},                  // a 5xx is never stored
		{429, "rate_limited", true},              // executed nothing
		{409, "idempotency_key_in_use", true},    // the first attempt runs, or died
		{409, "idempotency_key_mismatch", false}, // another request under the key
		{201, "", false},
		{422, "validation_error", false},
	} {
		if got := retryable(tc.status, tc.code); got != tc.want {
			t.Errorf("retryable(%d, %q) = %v, want %v", tc.status, tc.code, got, tc.want)
		}
	}
}

func TestCheckExactlyOnce(t *testing.T) {
	w := func(key string, final int, code string) keyedWrite {
		return keyedWrite{key: key, phase: "p", client: "new", final: final, finalCode: code, first: result{keyed: true, sent: time.Now()}}
	}
	for _, tc := range []struct {
		name   string
		ws     []keyedWrite
		counts map[string]int
		fail   []string // expectations that fail, by a word of theirs
	}{
		{"one record per 2xx", []keyedWrite{w("a", 201, ""), w("b", 201, "")}, map[string]int{"a": 1, "b": 1}, nil},
		{"a 2xx without its record", []keyedWrite{w("a", 201, "")}, map[string]int{}, []string{"exactly once"}},
		{"a key applied twice", []keyedWrite{w("a", 201, "")}, map[string]int{"a": 2}, []string{"exactly once"}},
		{"still in use after the retries", []keyedWrite{w("a", 409, "idempotency_key_in_use")}, map[string]int{}, []string{"exactly once"}},
		{"no answer ever", []keyedWrite{w("a", 0, "")}, map[string]int{"a": 1}, []string{"exactly once"}},
		{"refused", []keyedWrite{w("a", 422, "validation_error")}, map[string]int{}, []string{"exactly once"}},
		{"a record of a key never sent", []keyedWrite{w("a", 201, "")}, map[string]int{"a": 1, "z": 1}, []string{"never sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := &expectations{}
			checkExactlyOnce(ex, tc.ws, tc.counts)
			var failed []string
			for _, x := range ex.list {
				if !x.ok {
					failed = append(failed, x.what)
				}
			}
			if len(failed) != len(tc.fail) {
				t.Fatalf("failed %q, want %d failing with %q", failed, len(tc.fail), tc.fail)
			}
			for i, f := range tc.fail {
				if !strings.Contains(failed[i], f) {
					t.Errorf("failed %q, want one with %q", failed[i], f)
				}
			}
			if _, n := ex.report(); n != len(tc.fail) {
				t.Errorf("report counts %d failed, want %d", n, len(tc.fail))
			}
		})
	}
}
