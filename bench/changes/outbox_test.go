// Package changes measures what the change feed's outbox costs a write: the
// same writes with the record_change trigger enabled and disabled, in one
// run (docs/changes.md, bench/README.md).
package changes

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// BenchmarkWrite creates a client and updates it (two autocommitted
// statements, as an unkeyed POST and PATCH run them), from parallel writers
// in 50 organizations, with the outbox on and off.
func BenchmarkWrite(b *testing.B) {
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewDatabase(b), database.Options{MaxOpenConns: 16})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var orgs []tenancy.OrganizationID
	for i := 0; i < 50; i++ {
		o, err := tenancy.CreateOrganization(ctx, db, fmt.Sprintf("Bench %d", i), nil)
		if err != nil {
			b.Fatal(err)
		}
		orgs = append(orgs, tenancy.OrganizationID{UUID: o.ID})
	}
	for _, mode := range []string{"on", "off"} {
		b.Run("outbox="+mode, func(b *testing.B) {
			toggle(b, db, mode == "on")
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					org := orgs[i%len(orgs)]
					i++
					var ch storage.Changes
					ch.Set("name", "Client "+uuid.NewString())
					c, err := clients.Create(ctx, db, tenancy.Tenant{Org: org}, ch)
					if err != nil {
						b.Error(err)
						return
					}
					var up storage.Changes
					up.Set("notes", "updated")
					if _, err := clients.Update(ctx, db, org, c.ID, up); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
	toggle(b, db, true)
}

// toggle enables or disables the clients table's change trigger.
func toggle(b *testing.B, db *bun.DB, on bool) {
	if _, err := db.ExecContext(context.Background(), toggleSQL("clients", on)); err != nil {
		b.Fatal(err)
	}
}

// toggleSQL enables or disables the outbox triggers of table: every trigger
// of it named record_change or record_change_* (quotes and invoices have
// two; a variant tried with -*.ddl may split the outbox into one trigger
// per operation).
func toggleSQL(table string, on bool) string {
	verb := "DISABLE"
	if on {
		verb = "ENABLE"
	}
	return `DO $$
DECLARE t name;
BEGIN
    FOR t IN SELECT tgname FROM pg_trigger
             WHERE tgrelid = '` + table + `'::regclass AND NOT tgisinternal
               AND (tgname = 'record_change' OR tgname LIKE 'record\_change\_%')
    LOOP
        EXECUTE format('ALTER TABLE ` + table + ` ` + verb + ` TRIGGER %I', t);
    END LOOP;
END $$`
}
