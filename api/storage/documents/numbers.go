package documents

import (
	"context"
	"fmt"
	"regexp"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Numbering is one per-organization document number sequence.
type Numbering struct {
	kind   string // number_counters.kind
	prefix string
	table  string
	column string
}

// The two sequences: Q-000001 for quotes, INV-000001 for invoices.
var (
	QuoteNumbers   = Numbering{kind: "quote", prefix: "Q-", table: "quotes", column: "quote_number"}
	InvoiceNumbers = Numbering{kind: "invoice", prefix: "INV-", table: "invoices", column: "invoice_number"}
)

// Format renders the n-th number of the sequence.
func (n Numbering) Format(v int64) string { return fmt.Sprintf("%s%06d", n.prefix, v) }

// Next takes the next number of org's sequence. It must run inside the
// transaction that inserts the document: the counter row stays locked until
// that transaction ends, so concurrent creates queue up, and a rollback gives
// the number back, so the sequence has no gaps. A number a caller already
// supplied by hand is stepped over (it is in use, not missing): when the
// counter's next number is taken, one more statement moves the counter to
// the first free number past it (skipTaken), however long the run of
// supplied numbers.
func Next(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, n Numbering) (string, error) {
	var v int64
	err := tx.NewRaw(`INSERT INTO number_counters (organization_id, kind, last_value) VALUES (?, ?, 1)
		ON CONFLICT (organization_id, kind) DO UPDATE SET last_value = number_counters.last_value + 1
		RETURNING last_value`, org, n.kind).Scan(ctx, &v)
	if err != nil {
		return "", database.Error(err)
	}
	taken, err := tx.NewSelect().Table(n.table).
		Where("organization_id = ?", org).Where("? = ?", bun.Ident(n.column), n.Format(v)).Exists(ctx)
	if err != nil {
		return "", database.Error(err)
	}
	if taken {
		if v, err = n.skipTaken(ctx, tx, org, v); err != nil {
			return "", err
		}
	}
	return n.Format(v), nil
}

// skipTaken moves org's counter from v, whose number is taken, to the
// smallest number past v that no document holds, and returns it. The free
// number is v+1 or one past a taken number (the end of a run), so the
// statement reads the organization's documents once rather than trying
// each number in turn. formatted matches exactly the texts Format makes
// (six digits, zero-padded, or more digits without a leading zero).
func (n Numbering) skipTaken(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, v int64) (int64, error) {
	formatted := "^" + regexp.QuoteMeta(n.prefix) + "([0-9]{6}|[1-9][0-9]{6,17})$"
	err := tx.NewRaw(`WITH taken AS MATERIALIZED (
			SELECT substr(?0, ?1)::bigint AS v FROM ?2
			WHERE organization_id = ?3 AND ?0 ~ ?4)
		UPDATE number_counters SET last_value = (
			SELECT min(c) FROM (SELECT ?5::bigint + 1 AS c UNION ALL SELECT v + 1 FROM taken WHERE v > ?5) AS candidates
			WHERE NOT EXISTS (SELECT FROM taken WHERE taken.v = candidates.c))
		WHERE organization_id = ?3 AND kind = ?6
		RETURNING last_value`,
		bun.Ident(n.column), len(n.prefix)+1, bun.Ident(n.table), org, formatted, v, n.kind).Scan(ctx, &v)
	if err != nil {
		return 0, database.Error(err)
	}
	return v, nil
}

// CheckFree returns 409 duplicate_record, naming the holder in
// details.existing_id, when number is already used by a document of org
// other than self (uuid.Nil on create).
func CheckFree(ctx context.Context, tx bun.IDB, org tenancy.OrganizationID, n Numbering, number string, self uuid.UUID) error {
	// Take the counter row lock that Next holds, so a supplied number and an
	// automatic one are never chosen at the same time: otherwise a create
	// that sent no number could collide with this one and get a 409.
	if _, err := tx.NewRaw(`INSERT INTO number_counters (organization_id, kind, last_value) VALUES (?, ?, 0)
		ON CONFLICT (organization_id, kind) DO UPDATE SET last_value = number_counters.last_value`,
		org, n.kind).Exec(ctx); err != nil {
		return database.Error(err)
	}
	var ids []uuid.UUID
	err := tx.NewSelect().Table(n.table).Column("id").
		Where("organization_id = ?", org).Where("? = ?", bun.Ident(n.column), number).
		Where("id <> ?", self).Limit(1).Scan(ctx, &ids)
	if err != nil {
		return database.Error(err)
	}
	if len(ids) > 0 {
		return errs.Newf(errs.DuplicateRecord, "%s %s is already in use", n.column, number).
			WithDetails(map[string]any{"field": n.column, "existing_id": ids[0]})
	}
	return nil
}
