package storagetest

import "testing"

func TestCheck(t *testing.T) {
	g := &Guard{tables: map[string]bool{"clients": true, "quote_line_items": true, "quotes": true, "request_log_segments": true}}
	tests := []struct {
		name, query string
		ok          bool
	}{
		{"bun model select", `SELECT "c"."id", "c"."organization_id", "c"."name" FROM "clients" AS "c" WHERE ("c"."organization_id" = '1') AND ("c"."id" = '2') LIMIT 1`, true},
		{"planted select without filter", `SELECT "c"."id", "c"."organization_id" FROM "clients" AS "c" WHERE ("c"."id" = '2')`, false},
		{"prepared detail", `SELECT "c"."id" FROM "clients" AS "c" WHERE (c.organization_id = $1) AND (c.id = $2) LIMIT 1`, true},
		{"update", `UPDATE "clients" AS "c" SET "name" = 'x' WHERE ("c"."organization_id" = '1') AND ("c"."id" = '2')`, true},
		{"update without filter", `UPDATE "clients" AS "c" SET "name" = 'x' WHERE ("c"."id" = '2')`, false},
		{"delete without filter", `DELETE FROM "clients" AS "c" WHERE ("c"."id" = '2')`, false},
		{"rows of no organization", `SELECT EXISTS (SELECT 1 FROM request_log_segments WHERE organization_id IS NULL AND ? = ANY(ids))`, true},
		{"IS NOT NULL is no filter", `SELECT 1 FROM request_log_segments WHERE organization_id IS NOT NULL`, false},
		{"row comparison", `SELECT 1 FROM quotes WHERE (organization_id, id) IN (('1', '2'))`, true},
		{"join filters each table", `SELECT l.* FROM quote_line_items l JOIN quotes q ON q.organization_id = l.organization_id AND q.id = l.parent_id WHERE l.organization_id = '1'`, true},
		{"join filters one table of two", `SELECT l.* FROM quote_line_items l JOIN quotes q ON q.id = l.parent_id WHERE l.organization_id = '1'`, false},
		{"insert with organization", `INSERT INTO "clients" ("organization_id", "demo", "name") VALUES ('1', FALSE, 'x') RETURNING *`, true},
		{"insert without organization", `INSERT INTO "clients" ("demo", "name") VALUES (FALSE, 'x')`, false},
		{"marked sweep", `/* every organization: retention */ DELETE FROM clients WHERE created_at < now()`, true},
		{"other table", `SELECT * FROM "organizations" WHERE id = '1'`, true},
		{"not a table", `SELECT extract(epoch FROM created_at) FROM "clients" AS "c" WHERE "c"."organization_id" = '1'`, true},
	}
	for _, tt := range tests {
		if got := g.Check(tt.query); got != tt.ok {
			t.Errorf("%s: Check = %v, want %v\n%s", tt.name, got, tt.ok, tt.query)
		}
	}
}
