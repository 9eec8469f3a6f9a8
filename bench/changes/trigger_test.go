package changes

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/pgtest"
)

var (
	triggerRounds = flag.Int("trigger.rounds", 7, "BenchmarkTriggerCPU: measured rounds per mode (modes alternate)")
	triggerPairs  = flag.Int("trigger.pairs", 10000, "BenchmarkTriggerCPU: inserts and updates of a client per round")
	triggerDDL    = flag.String("trigger.ddl", "", "BenchmarkTriggerCPU: SQL run before measuring (to try a variant of record_change)")
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

// BenchmarkTriggerCPU is the outbox trigger's own cost, without HTTP, the
// pool or other writers in the way: one PostgreSQL backend runs
// -trigger.pairs autocommitted inserts and updates of a client in a
// server-side loop, with the clients table's record_change trigger enabled
// and disabled in alternating rounds, and the backend's CPU time is read
// from /proc, and the WAL written from pg_current_wal_lsn(). It prints the
// median CPU and WAL per pair in each mode and the CPU difference, which is
// what the trigger costs. One call does the whole run (use -benchtime 1x).
func BenchmarkTriggerCPU(b *testing.B) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	setup := []string{
		`INSERT INTO organizations (name) SELECT 'Bench ' || g FROM generate_series(1, 300) g`,
		`SET synchronous_commit = off`,
	}
	if *triggerDDL != "" {
		setup = append(setup, *triggerDDL)
	}
	for _, sql := range setup {
		if _, err := conn.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	loop := fmt.Sprintf(pairsLoop, *triggerPairs)
	if _, err := conn.Exec(ctx, fmt.Sprintf(pairsLoop, 500)); err != nil { // warm-up
		b.Fatal(err)
	}
	pid := int(conn.PgConn().PID())
	perPair, wal := map[bool][]float64{}, map[bool][]float64{}
	for r := range *triggerRounds {
		for _, on := range []bool{r%2 == 0, r%2 != 0} {
			verb := "DISABLE"
			if on {
				verb = "ENABLE"
			}
			for _, sql := range []string{"ALTER TABLE clients " + verb + " TRIGGER record_change", "CHECKPOINT"} {
				if _, err := conn.Exec(ctx, sql); err != nil {
					b.Fatal(err)
				}
			}
			var lsn string
			if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
				b.Fatal(err)
			}
			before, err := catalogue.ReadCPU(pid)
			if err != nil {
				b.Fatalf("the backend must run on this machine: %v", err)
			}
			if _, err := conn.Exec(ctx, loop); err != nil {
				b.Fatal(err)
			}
			after, err := catalogue.ReadCPU(pid)
			if err != nil {
				b.Fatal(err)
			}
			var walBytes float64
			if err := conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8", lsn).Scan(&walBytes); err != nil {
				b.Fatal(err)
			}
			us := float64(after-before) / float64(time.Microsecond) / float64(*triggerPairs)
			perPair[on] = append(perPair[on], us)
			wal[on] = append(wal[on], walBytes/float64(*triggerPairs))
			fmt.Printf("round %d trigger=%-3s %6.1f µs of backend CPU and %5.0f bytes of WAL per insert and update\n",
				r, onOff(on), us, walBytes/float64(*triggerPairs))
		}
	}
	on, off := catalogue.Median(perPair[true]), catalogue.Median(perPair[false])
	fmt.Printf("median: trigger on %.1f µs, off %.1f µs per pair; the trigger costs %.1f µs per pair (on/off %.2f)\n",
		on, off, on-off, on/off)
	fmt.Printf("median WAL per pair: on %.0f bytes, off %.0f bytes\n", catalogue.Median(wal[true]), catalogue.Median(wal[false]))
	b.ReportMetric(on-off, "trigger-µs/pair")
	b.ReportMetric(on/off, "cpu-on/off")
}
