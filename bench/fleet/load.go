package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fixture holds the demo organization's ids the load uses.
type fixture struct {
	org        string
	key        string
	pickLists  []string
	items      []string
	itemStages []string // each item's stage when the load starts
	equipment  []string
}

// result is one request of the load.
type result struct {
	phase                 string
	client                string // clientKind.name
	kind                  string
	keyed                 bool // sent with an Idempotency-Key
	sent                  time.Time
	done                  time.Time
	status                int // 0: transport error
	code                  string
	err                   string
	enveloped, retryAfter bool
	wait                  time.Duration // the Retry-After sent, in seconds
}

// failed reports a request the client saw fail: a transport error, a 5xx,
// or a 4xx the load does not expect. The one 4xx expected is a stage
// update refused as invalid_transition: two updates of one item in flight
// at once can arrive in the other order, and a stage never moves back.
// Any other 4xx (a key refused after a restart, an Idempotency-Key in
// use, a 429 at a limit of a million) is the fleet failing the client.
func (r result) failed() bool {
	switch {
	case r.status == 0 || r.status >= 500:
		return true
	case r.status >= 400:
		return r.kind != "stage update" || r.code != "invalid_transition"
	}
	return false
}

// outcomeUnknown reports a keyed write that got no answer at all (a
// transport error): the client cannot know whether it was executed, only
// retry it with the same key.
func (r result) outcomeUnknown() bool { return r.keyed && r.status == 0 }

// load sends a constant rate of mixed requests through base.
type load struct {
	base    string
	fx      *fixture
	rate    int
	clients []clientKind
	phase   atomic.Value // string
	mu      sync.Mutex
	results []result
	keyed   []*keyedWrite  // every keyed write, with its retries (retry.go)
	stages  []atomic.Int32 // next stage index per item
	seq     atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
}

// stages are a pick-list item's stages in order; an item moves forward
// only (it may skip), and repeating its stage is a 200.
var stages = []string{"pending", "checked", "staged", "loaded", "installing", "installed"}

func newLoad(base string, fx *fixture, rate int, clients []clientKind) *load {
	l := &load{base: base, fx: fx, rate: rate, stop: make(chan struct{}), stages: make([]atomic.Int32, len(fx.items)), clients: clients}
	for i, st := range fx.itemStages {
		l.stages[i].Store(int32(slices.Index(stages, st) + 1)) // the next stage; pending's if unknown
	}
	l.phase.Store("warm-up")
	return l
}

func (l *load) setPhase(p string) { l.phase.Store(p) }

// run sends requests at the constant rate (open loop: a slow answer does
// not slow the sender) until stopped.
func (l *load) run() {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		tick := time.NewTicker(time.Second / time.Duration(l.rate))
		defer tick.Stop()
		sem := make(chan struct{}, 256)
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			select {
			case sem <- struct{}{}:
			default:
				l.record(result{phase: l.phase.Load().(string), client: "-", kind: "dropped", sent: time.Now(), done: time.Now(), err: "256 requests in flight"})
				continue
			}
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				defer func() { <-sem }()
				l.one()
			}()
		}
	}()
}

func (l *load) halt() {
	close(l.stop)
	l.wg.Wait()
}

func (l *load) record(r result) {
	l.mu.Lock()
	l.results = append(l.results, r)
	l.mu.Unlock()
}

// one sends one request of the mix: 4 manifest reads, 3 vehicle lists,
// 2 reservation writes with an Idempotency-Key, 1 pick-list item stage
// update in every 10. With two client kinds, each block of 10 goes out
// through one of them in turn.
func (l *load) one() {
	n := l.seq.Add(1)
	ck := l.clients[int(n/10)%len(l.clients)]
	var kind, method, path, body, idem string
	switch n % 10 {
	case 0, 1, 2, 3:
		kind, method = "manifest read", "GET"
		path = "/api/v2/pick_lists/" + pick(l.fx.pickLists) + "?expand=items,equipment,category"
	case 4, 5, 6:
		kind, method, path = "vehicle list", "GET", "/api/v2/vehicles?limit=25"
	case 7, 8:
		kind, method, path = "reservation write", "POST", "/api/v2/equipment_reservations"
		idem, body = l.reservation(n)
	default:
		kind, method = "stage update", "PATCH"
		i := rand.IntN(len(l.fx.items))
		s := min(int(l.stages[i].Add(1))-1, len(stages)-1)
		path = "/api/v2/pick_list_items/" + l.fx.items[i]
		body = fmt.Sprintf(`{"stage":%q}`, stages[s])
	}
	r := result{phase: l.phase.Load().(string), client: ck.name, kind: kind, keyed: idem != "", sent: time.Now()}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, l.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+l.fx.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := ck.client.Do(req)
	r.done = time.Now()
	if idem != "" {
		defer l.keyedDone(&r, idem, body, ck)
	}
	if err != nil {
		r.err = err.Error()
		l.record(r)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	r.status = resp.StatusCode
	r.retryAfter = resp.Header.Get("Retry-After") != ""
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		r.wait = time.Duration(s) * time.Second
	}
	var env struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	r.enveloped = json.Unmarshal(b, &env) == nil && env.Error != nil && env.Error.Code != ""
	if r.enveloped {
		r.code = env.Error.Code
	}
	if r.failed() {
		r.err = strings.TrimSpace(string(bytes.TrimSpace(b)))
		if len(r.err) > 160 {
			r.err = r.err[:160]
		}
	}
	l.record(r)
}

// keyedDone keeps a keyed write's first attempt and, when its answer is one
// an integrator retries (retryable), retries it with its key in the
// background (settle). The retries are not in the load's results, so the
// per-phase figures count first attempts only.
func (l *load) keyedDone(r *result, key, body string, ck clientKind) {
	w := &keyedWrite{key: key, body: body, client: ck.name, phase: r.phase, first: *r, final: r.status, finalCode: r.code, resolved: r.done}
	l.mu.Lock()
	l.keyed = append(l.keyed, w)
	l.mu.Unlock()
	if retryable(r.status, r.code) {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.settle(w, ck, r.wait)
		}()
	}
}

// reservation is the n-th keyed write's Idempotency-Key and body. The key
// is in the notes: the records a key created are counted by it in the
// database (reservationsByKey).
func (l *load) reservation(n int64) (key, body string) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rand.IntN(24*365*20)) * time.Hour)
	key = fmt.Sprintf("fleet-%d-%d", time.Now().UnixNano(), n)
	body = fmt.Sprintf(`{"equipment_id":%q,"start_date":%q,"end_date":%q,"quantity":1,"force_overbook":true,"overbook_reason":"fleet harness","notes":%q}`,
		pick(l.fx.equipment), start.Format(time.RFC3339), start.Add(time.Hour).Format(time.RFC3339), keyMarker+key)
	return key, body
}

func pick(ids []string) string { return ids[rand.IntN(len(ids))] }

// snapshot returns the results so far.
func (l *load) snapshot() []result {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]result(nil), l.results...)
}

// summary prints one phase's counts for one client kind ("" for all).
func summary(phase, client string, rs []result) string {
	total, failed, unknown := 0, 0, 0
	status := map[string]int{}
	kinds := map[string][2]int{}
	errs := map[string]int{}
	for _, r := range rs {
		if r.phase != phase || (client != "" && r.client != client) {
			continue
		}
		total++
		if r.outcomeUnknown() {
			unknown++
		}
		k := kinds[r.kind]
		k[0]++
		key := fmt.Sprint(r.status)
		if r.status == 0 {
			key = "transport error"
		}
		status[key]++
		if r.failed() {
			failed++
			k[1]++
			e := r.err
			if r.status >= 400 && r.status < 500 {
				e = fmt.Sprintf("%d %s", r.status, r.code)
			}
			if r.status == 503 {
				e = fmt.Sprintf("503 enveloped=%v retry-after=%v %s", r.enveloped, r.retryAfter, e)
			}
			if len(e) > 120 {
				e = e[:120]
			}
			errs[e]++
		}
		kinds[r.kind] = k
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  requests %d, failed %d (keyed writes without an answer, outcome unknown: %d)", total, failed, unknown)
	keys := make([]string, 0, len(status))
	for k := range status {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("; status:")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s×%d", k, status[k])
	}
	b.WriteString("\n  by kind (requests/failed):")
	kk := make([]string, 0, len(kinds))
	for k := range kinds {
		kk = append(kk, k)
	}
	sort.Strings(kk)
	for _, k := range kk {
		fmt.Fprintf(&b, " %s %d/%d;", k, kinds[k][0], kinds[k][1])
	}
	ek := make([]string, 0, len(errs))
	for k := range errs {
		ek = append(ek, k)
	}
	sort.Slice(ek, func(i, j int) bool { return errs[ek[i]] > errs[ek[j]] })
	for i, k := range ek {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "\n    %d× %s", errs[k], k)
	}
	return b.String()
}
