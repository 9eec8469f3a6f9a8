package changes_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/api/storage/crew"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// The writer processes of TestConcurrentWritersReaderSeesEachChangeOnce are
// this test binary run again with these variables set.
const (
	writerDBEnv  = "EVENTAPI_FEED_WRITER_DB"
	writerOrgEnv = "EVENTAPI_FEED_WRITER_ORG"
	writerHotEnv = "EVENTAPI_FEED_WRITER_HOT"
	writerN      = 4  // writers per process
	writerWrites = 40 // transactions per writer
)

// TestFeedWriterProcess is the body of a writer process; run directly, it
// has nothing to do.
func TestFeedWriterProcess(t *testing.T) {
	dbURL := os.Getenv(writerDBEnv)
	if dbURL == "" {
		return
	}
	org := tenancy.OrganizationID{UUID: uuid.MustParse(os.Getenv(writerOrgEnv))}
	hot := uuid.MustParse(os.Getenv(writerHotEnv))
	db, err := database.Open(context.Background(), dbURL, database.Options{MaxOpenConns: writerN, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < writerN; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < writerWrites; i++ {
				n, err := writeOnce(db, org, hot)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				fmt.Fprintln(out, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	_ = out.Flush()
	mu.Unlock()
}

var errRollback = errors.New("deliberate rollback")

// writeOnce runs one transaction: a new client, sometimes an increment of
// the hot client's counter (its notes), held open for a random while so
// that transactions commit out of the order they began; one in five is
// rolled back. It returns how many changes it committed.
//
// The transaction takes its id first and waits a random while before the
// insert: inserts of one organization into one table take turns, so an id
// taken by the insert itself would follow the order of commits.
func writeOnce(db *bun.DB, org tenancy.OrganizationID, hot uuid.UUID) (int, error) {
	ctx := context.Background()
	changes := 0
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		changes = 0
		if _, err := tx.ExecContext(ctx, "SELECT pg_current_xact_id()"); err != nil {
			return err
		}
		time.Sleep(time.Duration(rand.IntN(8)) * time.Millisecond)
		var ch storage.Changes
		ch.Set("name", "Writer "+uuid.NewString())
		if _, err := clients.Create(ctx, tx, tenancy.Tenant{Org: org}, ch); err != nil {
			return err
		}
		changes++
		time.Sleep(time.Duration(rand.IntN(8)) * time.Millisecond)
		if rand.IntN(3) == 0 {
			if _, err := tx.NewRaw(`UPDATE clients SET notes = (coalesce(notes, '0')::int + 1)::text
				WHERE organization_id = ? AND id = ?`, org, hot).Exec(ctx); err != nil {
				return err
			}
			changes++
		}
		if rand.IntN(5) == 0 {
			return errRollback
		}
		return nil
	})
	if errors.Is(err, errRollback) {
		return 0, nil
	}
	return changes, err
}

// TestConcurrentWritersReaderSeesEachChangeOnce runs 8 writers in two
// processes against one organization while a reader follows the feed; one
// transaction of the test itself stays open across many of theirs. The
// reader ends with exactly the committed changes: none twice, none missing,
// the hot record's updates in commit order, and no change of another
// organization.
func TestConcurrentWritersReaderSeesEachChangeOnce(t *testing.T) {
	// The reader polls as fast as it can: lift the rate limit.
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 1 << 30 }))
	a, b := env.NewOrg("A"), env.NewOrg("B")
	hot := create(t, a, "/api/v2/clients", map[string]any{"name": "Hot", "notes": "0"})
	// Start reading after the hot client's creation.
	baseCursor := ""
	deadline := time.Now().Add(60 * time.Second)
	for seenHot := false; !seenHot; {
		var got []map[string]any
		got, baseCursor = follow(t, a, "", baseCursor)
		for _, c := range got {
			seenHot = seenHot || c["object_id"] == hot["id"]
		}
		if !seenHot {
			if time.Now().After(deadline) {
				t.Fatal("the hot client's creation never reached the feed")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// A transaction that takes its id before the writers start and commits
	// after many of them: its change must still reach the reader. It
	// creates a crew member, not a client: inserts of one organization into
	// one table take turns (docs/decisions.md, "Lists: a late commit is
	// never skipped"), so an open client insert would hold every writer up.
	ctx := context.Background()
	early, err := env.Svc.DB.BeginTx(ctx, &sql.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ch storage.Changes
	ch.Set("first_name", "Early")
	ch.Set("last_name", "Crew")
	earlyMember, err := crew.Create(ctx, early, tenancy.Tenant{Org: a.OrgID()}, ch)
	if err != nil {
		t.Fatal(err)
	}

	committed := make(chan int, 2*writerN*writerWrites)
	var procs []*exec.Cmd
	var readers sync.WaitGroup
	for p := 0; p < 2; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFeedWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerDBEnv+"="+env.Cfg.DatabaseURL, writerOrgEnv+"="+a.ID.String(),
			writerHotEnv+"="+hot["id"].(string))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if n, err := strconv.Atoi(sc.Text()); err == nil {
					committed <- n
				}
			}
		}()
	}

	writersDone := make(chan struct{})
	go func() { readers.Wait(); close(writersDone) }()

	// Meanwhile B writes too, and the reader follows A's feed.
	stopB := make(chan struct{})
	var bDone sync.WaitGroup
	bDone.Add(1)
	stopWritingB := sync.OnceFunc(func() { close(stopB); bDone.Wait() })
	defer stopWritingB()
	go func() {
		defer bDone.Done()
		for i := 0; ; i++ {
			select {
			case <-stopB:
				return
			default:
			}
			b.Post("/api/v2/clients", map[string]any{"name": "B " + strconv.Itoa(i)})
		}
	}()
	var seen []map[string]any
	cursor := baseCursor
	readUntil := func(done func() bool) {
		for deadline := time.Now().Add(2 * time.Minute); !done(); {
			var got []map[string]any
			got, cursor = follow(t, a, "", cursor)
			seen = append(seen, got...)
			if len(got) == 0 {
				time.Sleep(5 * time.Millisecond) // the poll interval
			}
			if time.Now().After(deadline) {
				t.Fatalf("reader: %d changes after 2 minutes", len(seen))
			}
		}
	}
	// Commit the early transaction once the writers have committed a good
	// share of theirs.
	total := 0
	readUntil(func() bool {
		for {
			select {
			case n := <-committed:
				total += n
				continue
			default:
			}
			select {
			case <-writersDone: // they failed early, or were very quick
				return true
			default:
			}
			return total >= 40
		}
	})
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	total++       // the early client
	<-writersDone // every line read before Wait closes the pipes
	for _, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	close(committed)
	for n := range committed {
		total += n
	}
	stopWritingB()
	readUntil(func() bool { return len(seen) >= total })
	// One more read: nothing beyond the committed changes may follow.
	more, _ := follow(t, a, "", cursor)
	seen = append(seen, more...)

	var stored []string
	if err := env.Svc.DB.NewRaw(`SELECT id::text FROM changes WHERE organization_id = ? AND seq >
		(SELECT seq FROM changes WHERE organization_id = ? AND object_id = ? AND type = 'client.created')`,
		a.ID, a.ID, hot["id"]).Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	counter := 0
	sawEarly := false
	for _, c := range seen {
		id := c["id"].(string)
		if ids[id] {
			t.Errorf("change %s listed twice", id)
		}
		ids[id] = true
		if c["object_id"] == earlyMember.ID.String() {
			sawEarly = true
		}
		if c["object_id"] == hot["id"] && c["type"] == "client.updated" {
			data := c["data"].(map[string]any)
			n, _ := strconv.Atoi(data["notes"].(string))
			if n != counter+1 {
				t.Errorf("hot client's updates out of commit order: %d after %d", n, counter)
			}
			counter = n
		}
	}
	if len(seen) != total {
		t.Errorf("reader saw %d changes, writers committed %d", len(seen), total)
	}
	if len(stored) != len(seen) {
		t.Errorf("the feed table holds %d changes of A after the start, the reader saw %d", len(stored), len(seen))
	}
	for _, id := range stored {
		if !ids[id] {
			t.Errorf("committed change %s never reached the reader", id)
		}
	}
	if !sawEarly {
		t.Error("the early transaction's change never reached the reader")
	}
	t.Logf("reader saw %d changes (hot client updated %d times)", len(seen), counter)
}
