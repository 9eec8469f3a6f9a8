package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// keyedWrite is one reservation write sent with an Idempotency-Key, its
// first attempt and the retries the harness sent with the same key, as an
// integrator does (docs/sdk.md: a 429, a 503, a lost answer and a
// `409 idempotency_key_in_use` of a keyed write go again with the key).
type keyedWrite struct {
	key, body, client, phase string
	first                    result
	retries, inUse           int       // retries sent; of their answers, 409 idempotency_key_in_use
	final                    int       // the last answer's status; 0: none came
	finalCode                string    // its error code
	replayed                 bool      // the last answer was a replay (Idempotent-Replayed: true)
	resolved                 time.Time // when the last answer came
}

// retryFor is how long the harness goes on retrying one key: past the
// longest fault the scenarios make (a PostgreSQL outage of -pg-outage,
// the SDK's 40 s of 409 in use, docs/sdk.md) with room to spare; a key
// still unanswered then fails the exactly-once expectation.
const retryFor = 2 * time.Minute

// retryable says whether a keyed write's answer is one an integrator sends
// again with the same key (docs/sdk.md, client.Retryable): no answer at all
// (outcome unknown), a 5xx (not stored, docs/edge.md "Stored"), a 429, or
// a 409 idempotency_key_in_use (the first attempt still runs or died).
func retryable(status int, code string) bool {
	return status == 0 || status >= 500 || status == http.StatusTooManyRequests ||
		(status == http.StatusConflict && code == "idempotency_key_in_use")
}

// settle retries w with its key until an answer that is not retryable, or
// retryFor after the first attempt. The wait between attempts is the
// answer's Retry-After when it sent one, else an exponential backoff from
// 250 ms with full jitter, at most 4 s (the SDK's, capped lower so that a
// retry follows the end of a fault closely).
func (l *load) settle(w *keyedWrite, ck clientKind, retryAfter time.Duration) {
	deadline := w.first.sent.Add(retryFor)
	for attempt := 0; ; attempt++ {
		wait := retryAfter
		if wait <= 0 {
			wait = time.Duration(rand.Int64N(int64(min(250*time.Millisecond<<attempt, 4*time.Second)) + 1))
		}
		if time.Now().Add(wait).After(deadline) {
			return
		}
		time.Sleep(wait)
		req, _ := http.NewRequest("POST", l.base+"/api/v2/equipment_reservations", strings.NewReader(w.body))
		req.Header.Set("Authorization", "Bearer "+l.fx.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", w.key)
		resp, err := ck.client.Do(req)
		l.mu.Lock()
		w.retries++
		l.mu.Unlock()
		status, code := 0, ""
		retryAfter = 0
		replayed := false
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			status = resp.StatusCode
			code = errorCode(b)
			replayed = resp.Header.Get("Idempotent-Replayed") == "true"
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				retryAfter = time.Duration(s) * time.Second
			}
		}
		l.mu.Lock()
		w.final, w.finalCode, w.replayed, w.resolved = status, code, replayed, time.Now()
		if status == http.StatusConflict && code == "idempotency_key_in_use" {
			w.inUse++
		}
		l.mu.Unlock()
		if !retryable(status, code) {
			return
		}
	}
}

// errorCode is an error envelope's code, "" for any other body.
func errorCode(b []byte) string {
	var env struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &env) == nil && env.Error != nil {
		return env.Error.Code
	}
	return ""
}

// keyedWrites returns every keyed write sent so far.
func (l *load) keyedWrites() []keyedWrite {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]keyedWrite, len(l.keyed))
	for i, w := range l.keyed {
		out[i] = *w
	}
	return out
}

// keyMarker is the text every keyed write of the load puts in its
// reservation's notes, followed by its Idempotency-Key: the records the
// load created are counted by it in the database (reservationsByKey).
const keyMarker = "fleet keyed write "

// reservationsByKey counts, in the harness's own PostgreSQL (directly, not
// through PgBouncer or the pods), the reservations each keyed write
// created, by the key in their notes.
func reservationsByKey(pg *postgres) (map[string]int, error) {
	cmd := exec.Command(filepath.Join(pg.bin, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(pg.port), "-U", "postgres", "-d", "eventapi",
		"-v", "ON_ERROR_STOP=1", "-At", "-F", "\t", "-c",
		"SELECT substr(notes, "+strconv.Itoa(len(keyMarker)+1)+"), count(*) FROM equipment_reservations WHERE notes LIKE '"+keyMarker+"%' GROUP BY 1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("psql: %w", err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		k, n, ok := strings.Cut(line, "\t")
		c, err := strconv.Atoi(n)
		if !ok || err != nil {
			return nil, fmt.Errorf("psql: unexpected line %q", line)
		}
		counts[k] = c
	}
	return counts, nil
}

// checkExactlyOnce states, per phase, that every keyed write ended
// answered 2xx, through its retries if need be, and that the database
// holds exactly one reservation for each key: docs/edge.md,
// "Idempotency-Key" and "Crash-safe design" (the business write and its
// record commit together, a retry replays or executes once, a dead
// attempt rolled back wrote nothing). It also states that the database
// holds no record of a key the load never sent.
func checkExactlyOnce(ex *expectations, ws []keyedWrite, counts map[string]int) {
	type tally struct {
		keys, retried, unknown, replayed, inUse int
		bad                                     []string
	}
	var phases []string
	by := map[string]*tally{}
	sent := map[string]bool{}
	for _, w := range ws {
		sent[w.key] = true
		t := by[w.phase]
		if t == nil {
			t = &tally{}
			by[w.phase] = t
			phases = append(phases, w.phase)
		}
		t.keys++
		if w.retries > 0 {
			t.retried++
		}
		if w.first.outcomeUnknown() {
			t.unknown++
		}
		if w.replayed {
			t.replayed++
		}
		t.inUse += w.inUse
		n := counts[w.key]
		// Every write of the load is valid (an overbooking it forces), so
		// each key must end answered 2xx: a refusal is the fleet failing
		// the client too.
		switch {
		case w.final >= 200 && w.final < 300 && n != 1:
			t.bad = append(t.bad, fmt.Sprintf("%s (%s, first %s, %d retries) answered %d but %d records", w.key, w.client, firstOutcome(w.first), w.retries, w.final, n))
		case (w.final < 200 || w.final >= 300) && retryable(w.final, w.finalCode):
			t.bad = append(t.bad, fmt.Sprintf("%s (%s, first %s, %d retries) still %d %s after %v; %d records", w.key, w.client, firstOutcome(w.first), w.retries, w.final, w.finalCode, retryFor, n))
		case w.final < 200 || w.final >= 300:
			t.bad = append(t.bad, fmt.Sprintf("%s (%s, first %s, %d retries) refused %d %s; %d records", w.key, w.client, firstOutcome(w.first), w.retries, w.final, w.finalCode, n))
		}
	}
	for _, p := range phases {
		t := by[p]
		ex.expect(p, fmt.Sprintf("keyed writes exactly once: %d keys (%d retried with their key, %d of them outcome unknown; %d retries replayed, %d answers 409 in use) each end answered 2xx, with one record",
			t.keys, t.retried, t.unknown, t.replayed, t.inUse),
			len(t.bad) == 0, "%d keys wrong: %s", len(t.bad), strings.Join(first(t.bad, 5), "; "))
	}
	var stray []string
	for k, n := range counts {
		if !sent[k] {
			stray = append(stray, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	ex.expect("all", "the database holds no reservation of a key the load never sent", len(stray) == 0, "%s", strings.Join(first(stray, 5), "; "))
}

func firstOutcome(r result) string {
	if r.status == 0 {
		return "no answer"
	}
	if r.code != "" {
		return fmt.Sprintf("%d %s", r.status, r.code)
	}
	return strconv.Itoa(r.status)
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}
