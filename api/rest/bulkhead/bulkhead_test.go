package bulkhead_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest/bulkhead"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
)

// hold takes b's slot until release is closed; it returns once the slot is held.
func hold(t *testing.T, b *bulkhead.Slots) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go func() {
		_ = b.Run(context.Background(), func() error { close(held); <-done; return nil })
	}()
	<-held
	return func() { close(done) }
}

// waitFor returns once b has n waiters, failing the test after a minute.
func waitFor(t *testing.T, b *bulkhead.Slots, n int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); b.Waiting() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting = %d, want %d", b.Waiting(), n)
		}
	}
}

func TestBulkheadRunsAtOnceWithAFreeSlotOrNone(t *testing.T) {
	boom := errors.New("boom")
	for name, b := range map[string]*bulkhead.Slots{"free slot": bulkhead.New(1, time.Minute), "nil": nil} {
		t.Run(name, func(t *testing.T) {
			if err := b.Run(context.Background(), func() error { return boom }); err != boom {
				t.Fatalf("Run = %v, want build's own error", err)
			}
		})
	}
}

func TestBulkheadWaitsForASlot(t *testing.T) {
	b := bulkhead.New(1, time.Minute)
	release := hold(t, b)
	ran := make(chan error, 1)
	go func() { ran <- b.Run(context.Background(), func() error { return nil }) }()
	waitFor(t, b, 1)
	select {
	case err := <-ran:
		t.Fatalf("Run returned (%v) while the only slot was held", err)
	default:
	}
	release()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	waitFor(t, b, 0)
}

func TestBulkheadGivesUp(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		maxWait time.Duration
		ctx     context.Context
	}{
		"after its longest wait": {time.Millisecond, context.Background()},
		"when the request ends":  {time.Hour, canceled},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := bulkhead.New(1, tc.maxWait)
			defer hold(t, b)()
			err := b.Run(tc.ctx, func() error { t.Error("build ran without a slot"); return nil })
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.ServiceUnavailable { // Retry-After: rest.ErrorHandler's, as every 503's
				t.Fatalf("Run = %v, want service_unavailable", err)
			}
			if b.Waiting() != 0 {
				t.Fatalf("waiting = %d after giving up", b.Waiting())
			}
		})
	}
}

func TestBulkheadFreesTheSlotOfAPanickingBuild(t *testing.T) {
	b := bulkhead.New(1, time.Millisecond)
	func() {
		defer func() { _ = recover() }()
		_ = b.Run(context.Background(), func() error { panic("boom") })
	}()
	if err := b.Run(context.Background(), func() error { return nil }); err != nil {
		t.Fatalf("the slot stayed taken after a panic: %v", err)
	}
}

// TestBulkheadWaitersInMetrics: the waiters show in /metrics as the gauge
// docs/observability.md names.
func TestBulkheadWaitersInMetrics(t *testing.T) {
	m, err := processMetrics()
	if err != nil {
		t.Fatal(err)
	}
	b := bulkhead.New(1, time.Minute)
	release := hold(t, b)
	done := make(chan error, 1)
	go func() { done <- b.Run(context.Background(), func() error { return nil }) }()
	waitFor(t, b, 1)
	if got := scrapeLine(t, m.Handler, "eventapi_large_reads_waiting"); got != "eventapi_large_reads_waiting 1" {
		t.Fatalf("while one waits: %q", got)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := scrapeLine(t, m.Handler, "eventapi_large_reads_waiting"); got != "eventapi_large_reads_waiting 0" {
		t.Fatalf("after: %q", got)
	}
}

// processMetrics installs the global meter provider once: instruments made
// before the first provider follow only that one, as in a real process.
var processMetrics = sync.OnceValues(func() (*telemetry.Metrics, error) {
	return telemetry.SetupPrometheusMetrics(context.Background(), "bulkhead-test")
})

// scrapeLine returns the exposition line of the unlabelled series name.
func scrapeLine(t *testing.T, h http.Handler, name string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			return line
		}
	}
	return ""
}

// TestBulkheadRunUnderHoldBuildsAtOnce: a request that took its slot with
// Hold runs its build under that slot, not a second one (with one slot it
// would wait for itself), and its release frees the slot for the next; a
// slot held for another bulkhead counts for nothing here.
func TestBulkheadRunUnderHoldBuildsAtOnce(t *testing.T) {
	b, other := bulkhead.New(1, time.Minute), bulkhead.New(1, time.Minute)
	ctx, release, err := b.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Run(ctx, func() error { return nil }); err != nil {
		t.Fatalf("Run under the request's own slot: %v", err)
	}
	otherCtx, releaseOther, err := other.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer releaseOther()
	ran := make(chan error, 1)
	go func() { ran <- b.Run(otherCtx, func() error { return nil }) }()
	waitFor(t, b, 1) // waits: the slot it holds is the other bulkhead's
	release()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if _, _, err := bulkhead.New(1, time.Minute).Hold(ctx); err != nil {
		t.Fatalf("Hold on a fresh bulkhead with ctx marked by b: %v", err)
	}
	var none *bulkhead.Slots
	if got, release, err := none.Hold(ctx); err != nil || got != ctx {
		t.Fatalf("nil *Slots' Hold: %v, %v; want ctx as it is", got, err)
	} else {
		release()
	}
}

// TestBulkheadLeavesASlotToOtherOrganizations: one organization, with its
// sandbox, holds at most all the slots but one; its next large read waits
// for its own, and
// another organization's runs at once in the slot left. Without the cap,
// one tenant's slow reads could take every slot and another tenant's quote
// answer 503 after ten seconds.
func TestBulkheadLeavesASlotToOtherOrganizations(t *testing.T) {
	b := bulkhead.New(3, time.Minute)
	home := uuid.New()
	// The organization's live key and its test key (its sandbox) take one
	// share: with a share each, the two could hold every slot.
	live := tenancy.WithPrincipal(context.Background(), &tenancy.Principal{OrganizationID: home, HomeOrganizationID: home})
	test := tenancy.WithPrincipal(context.Background(), &tenancy.Principal{OrganizationID: uuid.New(), HomeOrganizationID: home, Sandbox: true})
	orgA, orgB := live, orgContext()
	releases := []func(){holdAs(t, b, live), holdAs(t, b, test)}
	third := make(chan error, 1)
	go func() { third <- b.Run(orgA, func() error { return nil }) }()
	waitFor(t, b, 1)
	if err := b.Run(orgB, func() error { return nil }); err != nil {
		t.Fatalf("another organization's read: %v", err)
	}
	select {
	case err := <-third:
		t.Fatalf("the organization's read beyond its share ran (%v) while its share was held", err)
	default:
	}
	releases[0]()
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	for _, release := range releases[1:] {
		release()
	}
	waitFor(t, b, 0)
}

// orgContext is a context of a request of a new organization.
func orgContext() context.Context {
	return tenancy.WithPrincipal(context.Background(), &tenancy.Principal{OrganizationID: uuid.New()})
}

// holdAs takes a slot of b for ctx's request until release is called; it
// returns once the slot is held.
func holdAs(t *testing.T, b *bulkhead.Slots, ctx context.Context) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go func() {
		_ = b.Run(ctx, func() error { close(held); <-done; return nil })
	}()
	<-held
	return func() { close(done) }
}

// TestBulkheadSharesSlotsFairly: a slot that frees goes to the waiting
// organization that holds the fewest, not to the request that came first:
// with every slot held, requests of A (holding three), B (one) and C (none)
// queued in that order get the freed slots C first, then B, then A. One
// line in arrival order would serve B's, then A's, then C's.
func TestBulkheadSharesSlotsFairly(t *testing.T) {
	b := bulkhead.New(4, time.Minute)
	a, bOrg, c := orgContext(), orgContext(), orgContext()
	aHeld := []func(){holdAs(t, b, a), holdAs(t, b, a), holdAs(t, b, a)}
	bHeld := holdAs(t, b, bOrg)

	started := make(chan string, 3)
	finish := make(chan struct{})
	defer close(finish)
	for i, q := range []struct {
		name string
		ctx  context.Context
	}{{"A", a}, {"B", bOrg}, {"C", c}} {
		go func() {
			_ = b.Run(q.ctx, func() error { started <- q.name; <-finish; return nil })
		}()
		waitFor(t, b, int64(i+1)) // queued in this order
	}
	next := func(release func()) string {
		release()
		select {
		case name := <-started:
			return name
		case <-time.After(time.Minute):
			t.Fatal("no waiter got the freed slot")
			return ""
		}
	}
	got := []string{next(aHeld[0]), next(bHeld), next(aHeld[1])}
	if want := []string{"C", "B", "A"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("freed slots went to %v, want %v (the fewest held first)", got, want)
	}
	aHeld[2]()
}

// TestBulkheadServesATenantInOrder: within one organization the requests
// are served in the order they came.
func TestBulkheadServesATenantInOrder(t *testing.T) {
	b := bulkhead.New(3, time.Minute) // an organization holds 2 at most
	a := orgContext()
	held := []func(){holdAs(t, b, a), holdAs(t, b, a)}
	started := make(chan int, 3)
	finish := make(chan struct{})
	defer close(finish)
	for i := range 3 {
		go func() { _ = b.Run(a, func() error { started <- i; <-finish; return nil }) }()
		waitFor(t, b, int64(i+1))
	}
	for want := range 2 {
		held[want]()
		if got := <-started; got != want {
			t.Fatalf("request %d got the slot, want %d", got, want)
		}
	}
}

// TestBulkheadNeverOverfills: many requests of several organizations, some
// giving up while they wait, never build more at once than the slots, nor
// more of one organization than its share, and every slot comes back.
func TestBulkheadNeverOverfills(t *testing.T) {
	const slots = 3
	b := bulkhead.New(slots, 2*time.Millisecond)
	orgs := []context.Context{orgContext(), orgContext(), orgContext(), context.Background()}
	var mu sync.Mutex
	inAll, inOrg := 0, map[int]int{}
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := i % len(orgs)
			_ = b.Run(orgs[o], func() error {
				mu.Lock()
				inAll++
				inOrg[o]++
				if inAll > slots || (o < 3 && inOrg[o] > int(bulkhead.PerOrganization(slots))) {
					t.Errorf("%d building at once, %d of organization %d", inAll, inOrg[o], o)
				}
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				inAll--
				inOrg[o]--
				mu.Unlock()
				return nil
			})
		}()
	}
	wg.Wait()
	waitFor(t, b, 0)
	for i := range slots { // every slot is free again: as many are held at once
		_, release, err := b.Hold(context.Background())
		if err != nil {
			t.Fatalf("slot %d of %d after the requests: %v", i+1, slots, err)
		}
		defer release()
	}
}

// TestShares: how many slots one organization may hold of a large-read
// bulkhead (all but one); how many writes a pool runs (all but a quarter of
// its connections) and one organization of them (all but a quarter of
// those); always at least one.
func TestShares(t *testing.T) {
	for _, tc := range []struct {
		slots                 int
		largeReads            int64
		writeSlots            int
		writesPerOrganization int64
	}{
		{1, 1, 1, 1},
		{2, 1, 1, 1},
		{4, 3, 3, 2},
		{8, 7, 6, 5},
		{20, 19, 15, 12},
		{100, 99, 75, 57},
	} {
		if got := bulkhead.PerOrganization(tc.slots); got != tc.largeReads {
			t.Errorf("PerOrganization(%d) = %d, want %d", tc.slots, got, tc.largeReads)
		}
		if got := bulkhead.WriteSlots(tc.slots); got != tc.writeSlots {
			t.Errorf("WriteSlots(%d) = %d, want %d", tc.slots, got, tc.writeSlots)
		}
		if got := bulkhead.WritesPerOrganization(tc.slots); got != tc.writesPerOrganization {
			t.Errorf("WritesPerOrganization(%d) = %d, want %d", tc.slots, got, tc.writesPerOrganization)
		}
	}
}

// TestWriteBulkheadSaysWhatIsBusy: a write that waited its whole wait is a
// 503 naming writes, not large reads.
func TestWriteBulkheadSaysWhatIsBusy(t *testing.T) {
	b := bulkhead.NewWrites(1, 10*time.Millisecond)
	release := hold(t, b)
	defer release()
	_, _, err := b.Hold(context.Background())
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.ServiceUnavailable || !strings.Contains(e.Message, "writes in progress") {
		t.Fatalf("Hold = %v, want a 503 about writes", err)
	}
}

// TestBulkheadTryHoldNeverWaits: TryHold takes a free slot, reports false
// at once when none is free, and succeeds again once the slot is back.
func TestBulkheadTryHoldNeverWaits(t *testing.T) {
	b := bulkhead.New(1, time.Hour)
	_, release, ok := b.TryHold(context.Background())
	if !ok {
		t.Fatal("TryHold of a free slot failed")
	}
	if _, _, ok := b.TryHold(context.Background()); ok {
		t.Fatal("TryHold succeeded with the only slot held")
	}
	if b.Waiting() != 0 {
		t.Fatalf("TryHold left %d waiting", b.Waiting())
	}
	release()
	if _, release, ok := b.TryHold(context.Background()); !ok {
		t.Fatal("TryHold failed once the slot was back")
	} else {
		release()
	}
}
