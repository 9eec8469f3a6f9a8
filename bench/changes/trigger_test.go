package changes

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/pgtest"
)

var (
	triggerRounds = flag.Int("trigger.rounds", 7, "BenchmarkTriggerCPU: measured rounds per mode (modes alternate)")
	triggerPairs  = flag.Int("trigger.pairs", 10000, "BenchmarkTriggerCPU: inserts and updates of a client per round")
	triggerDDL    = flag.String("trigger.ddl", "", "BenchmarkTriggerCPU: SQL run before measuring (to try a variant of record_change); @file reads it from a file")
	triggerObject = flag.String("trigger.object", "client", "BenchmarkTriggerCPU: the record written: client, or quote (two line items; its change is taken at commit by record_document_change)")
	triggerDDLB   = flag.String("trigger.ddl-b", "", "BenchmarkTriggerCPU: a second variant, on a database of its own, measured in the same rounds (with -trigger.ddl: A against B); @file reads it from a file")
)

// pairsLoop creates a client and updates it, each in its own transaction,
// %d times, over the benchmark's organizations. Commits do not wait for the
// WAL flush (synchronous_commit is off in the session), so the disk's fsync,
// the same with or without the outbox, does not drown the trigger.
const pairsLoop = `
DO $$
DECLARE orgs uuid[]; cid uuid;
BEGIN
    SELECT array_agg(id) INTO orgs FROM organizations;
    FOR i IN 1..%d LOOP
        INSERT INTO clients (organization_id, name, email)
        VALUES (orgs[1 + i %% cardinality(orgs)], 'Bench client', 'bench@example.com') RETURNING id INTO cid;
        COMMIT;
        UPDATE clients SET notes = 'updated', updated_at = clock_timestamp()
        WHERE organization_id = orgs[1 + i %% cardinality(orgs)] AND id = cid;
        COMMIT;
    END LOOP;
END $$`

// quotePairsLoop is pairsLoop for a quote: one transaction creates it with
// two line items, the next changes its title.
const quotePairsLoop = `
DO $$
DECLARE orgs uuid[]; org uuid; qid uuid;
BEGIN
    SELECT array_agg(id) INTO orgs FROM organizations;
    FOR i IN 1..%d LOOP
        org := orgs[1 + i %% cardinality(orgs)];
        INSERT INTO quotes (organization_id, quote_number, title)
        VALUES (org, 'Q-' || gen_random_uuid(), 'Bench quote') RETURNING id INTO qid;
        INSERT INTO quote_line_items (organization_id, quote_id, position, description, quantity, unit_price, line_total)
        VALUES (org, qid, 1, 'Line', 1, 10, 10), (org, qid, 2, 'Line', 2, 5, 10);
        COMMIT;
        UPDATE quotes SET title = 'updated', updated_at = clock_timestamp()
        WHERE organization_id = org AND id = qid;
        COMMIT;
    END LOOP;
END $$`

// triggerLoop is the loop of -trigger.object, and the table whose outbox
// triggers the benchmark switches.
func triggerLoop(tb testing.TB) (loop, table string) {
	switch *triggerObject {
	case "client":
		return pairsLoop, "clients"
	case "quote":
		return quotePairsLoop, "quotes"
	}
	tb.Fatalf("-trigger.object %q: want client or quote", *triggerObject)
	return "", ""
}

// ddlFlag is the SQL of a -*.ddl flag: the value itself, or the contents of
// the file named after an @.
func ddlFlag(tb testing.TB, v string) string {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v
	}
	sql, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(sql)
}

// triggerVariant is one schema the trigger benchmark measures: a database
// of its own, migrated, with its DDL run, and the connection whose backend
// runs the loop.
type triggerVariant struct {
	name     string
	conn     *pgx.Conn
	pid      int
	perPair  map[bool][]float64
	wal      map[bool][]float64
	diffs    []float64 // on − off of each round, the two back to back
	lastMode map[bool]float64
}

func newTriggerVariant(b *testing.B, name, ddl string) *triggerVariant {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(context.Background()) })
	setup := []string{
		`INSERT INTO organizations (name) SELECT 'Bench ' || g FROM generate_series(1, 300) g`,
		`SET synchronous_commit = off`,
	}
	if ddl != "" {
		setup = append(setup, ddl)
	}
	for _, sql := range setup {
		if _, err := conn.Exec(ctx, sql); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	loop, _ := triggerLoop(b)
	if _, err := conn.Exec(ctx, fmt.Sprintf(loop, 500)); err != nil { // warm-up
		b.Fatalf("%s: %v", name, err)
	}
	return &triggerVariant{name: name, conn: conn, pid: int(conn.PgConn().PID()),
		perPair: map[bool][]float64{}, wal: map[bool][]float64{}, lastMode: map[bool]float64{}}
}

// measure runs the loop once with the trigger on or off and records the
// backend's CPU and the WAL per pair.
func (v *triggerVariant) measure(b *testing.B, round int, on bool, loop string) {
	ctx := context.Background()
	_, table := triggerLoop(b)
	for _, sql := range []string{toggleSQL(table, on), "CHECKPOINT"} {
		if _, err := v.conn.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	var lsn string
	if err := v.conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		b.Fatal(err)
	}
	before, err := catalogue.ReadCPU(v.pid)
	if err != nil {
		b.Fatalf("the backend must run on this machine: %v", err)
	}
	if _, err := v.conn.Exec(ctx, loop); err != nil {
		b.Fatal(err)
	}
	after, err := catalogue.ReadCPU(v.pid)
	if err != nil {
		b.Fatal(err)
	}
	var walBytes float64
	if err := v.conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8", lsn).Scan(&walBytes); err != nil {
		b.Fatal(err)
	}
	us := float64(after-before) / float64(time.Microsecond) / float64(*triggerPairs)
	v.perPair[on] = append(v.perPair[on], us)
	v.wal[on] = append(v.wal[on], walBytes/float64(*triggerPairs))
	v.lastMode[on] = us
	fmt.Printf("round %d %-2s trigger=%-3s %6.1f µs of backend CPU and %5.0f bytes of WAL per insert and update\n",
		round, v.name, onOff(on), us, walBytes/float64(*triggerPairs))
}

func (v *triggerVariant) cost() float64 {
	return catalogue.Median(v.perPair[true]) - catalogue.Median(v.perPair[false])
}

func (v *triggerVariant) report() {
	on, off := catalogue.Median(v.perPair[true]), catalogue.Median(v.perPair[false])
	label := ""
	if v.name != "" {
		label = v.name + ": "
	}
	fmt.Printf("%smedian: trigger on %.1f µs, off %.1f µs per pair; the trigger costs %.1f µs per pair (on/off %.2f); on − off of each round's pair: median %.1f, %s\n",
		label, on, off, on-off, on/off, catalogue.Median(v.diffs), formatFloats(v.diffs, "%.0f"))
	fmt.Printf("%smedian WAL per pair: on %.0f bytes, off %.0f bytes\n", label,
		catalogue.Median(v.wal[true]), catalogue.Median(v.wal[false]))
}

// BenchmarkTriggerCPU is the outbox trigger's own cost, without HTTP, the
// pool or other writers in the way: one PostgreSQL backend runs
// -trigger.pairs autocommitted inserts and updates of a client in a
// server-side loop, with the clients table's record_change trigger enabled
// and disabled in alternating rounds (-trigger.object quote: a quote with
// two line items, and its triggers), and the backend's CPU time is read
// from /proc, and the WAL written from pg_current_wal_lsn(). It prints the
// median CPU and WAL per pair in each mode and the CPU difference, which is
// what the trigger costs. One call does the whole run (use -benchtime 1x).
//
// With -trigger.ddl-b a second database gets that variant (and the first
// -trigger.ddl, or the schema as migrated), and each round measures both,
// on and off, in an order that rotates, so that the two variants meet the
// same load; it prints, besides each variant's figures, B's cost less A's
// in each round.
func BenchmarkTriggerCPU(b *testing.B) {
	variants := []*triggerVariant{newTriggerVariant(b, "", ddlFlag(b, *triggerDDL))}
	if *triggerDDLB != "" {
		variants[0].name = "A"
		variants = append(variants, newTriggerVariant(b, "B", ddlFlag(b, *triggerDDLB)))
	}
	loopSQL, _ := triggerLoop(b)
	loop := fmt.Sprintf(loopSQL, *triggerPairs)
	var bMinusA []float64
	for r := range *triggerRounds {
		for i := range variants {
			v := variants[(i+r)%len(variants)]
			for _, on := range []bool{r%2 == 0, r%2 != 0} {
				v.measure(b, r, on, loop)
			}
			v.diffs = append(v.diffs, v.lastMode[true]-v.lastMode[false])
		}
		if len(variants) == 2 {
			bMinusA = append(bMinusA, variants[1].diffs[r]-variants[0].diffs[r])
		}
	}
	for _, v := range variants {
		v.report()
	}
	if len(variants) == 2 {
		fmt.Printf("B's trigger cost less A's, each round: median %.1f µs per pair, %s\n",
			catalogue.Median(bMinusA), formatFloats(bMinusA, "%.0f"))
		b.ReportMetric(catalogue.Median(bMinusA), "B-A-µs/pair")
	}
	v := variants[len(variants)-1]
	b.ReportMetric(v.cost(), "trigger-µs/pair")
	b.ReportMetric(catalogue.Median(v.perPair[true])/catalogue.Median(v.perPair[false]), "cpu-on/off")
}

func formatFloats(xs []float64, format string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf(format, x)
	}
	return "rounds " + strings.Join(parts, " ")
}
