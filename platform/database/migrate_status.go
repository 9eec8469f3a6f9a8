package database

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun/migrate"
)

// The state of a database's migrations against this binary's: which are
// applied, pending or unknown, and the messages that name them.

// MigrationStatus is one migration and whether it is applied. Unknown marks
// a migration the database records as applied that this binary does not
// know (a newer release applied it); it has no comment, since the database
// stores only the name.
type MigrationStatus struct {
	Name    string `json:"name"`
	Comment string `json:"comment"`
	Applied bool   `json:"applied"`
	Unknown bool   `json:"unknown,omitempty"`
	GroupID int64  `json:"group_id,omitempty"`
}

// String is the migration's file name stem, or its bare name when unknown.
func (s MigrationStatus) String() string {
	if s.Comment == "" {
		return s.Name
	}
	return s.Name + "_" + s.Comment
}

// Schema compares the database's applied migrations with this binary's.
type Schema struct {
	// Pending are the migrations this binary knows that are not applied,
	// in the order they would be applied.
	Pending []string
	// Unknown are the applied migrations this binary does not know, in
	// ascending order.
	Unknown []string
}

// Status lists every migration this binary knows with its state, and the
// applied ones it does not know (Unknown), in name order. It takes no lock
// and creates nothing: it answers at once while a migration runs (showing
// the state before it), and on a database never migrated lists every
// migration as pending.
func (m *Migrator) Status(ctx context.Context) ([]MigrationStatus, error) {
	return m.statuses(ctx)
}

// Schema compares the database with this binary's migrations, as Status
// does (no lock, nothing created).
func (m *Migrator) Schema(ctx context.Context) (Schema, error) {
	st, err := m.statuses(ctx)
	if err != nil {
		return Schema{}, err
	}
	return schemaOf(st), nil
}

// statuses merges the known migrations with the applied ones.
func (m *Migrator) statuses(ctx context.Context) ([]MigrationStatus, error) {
	applied, err := m.applied(ctx)
	if err != nil {
		return nil, err
	}
	return mergeStatuses(m.known.Sorted(), applied), nil
}

// mergeStatuses is known, in order, with the state applied records for
// each, followed by the applied migrations known does not hold, the whole
// sorted by name.
func mergeStatuses(known, applied migrate.MigrationSlice) []MigrationStatus {
	byName := make(map[string]migrate.Migration, len(applied))
	for _, a := range applied {
		byName[a.Name] = a
	}
	out := make([]MigrationStatus, 0, len(known)+len(applied))
	for _, k := range known {
		s := MigrationStatus{Name: k.Name, Comment: k.Comment}
		if a, ok := byName[k.Name]; ok {
			s.Applied, s.GroupID = true, a.GroupID
			delete(byName, k.Name)
		}
		out = append(out, s)
	}
	for _, a := range byName {
		out = append(out, MigrationStatus{Name: a.Name, Applied: true, Unknown: true, GroupID: a.GroupID})
	}
	slices.SortFunc(out, func(a, b MigrationStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// applied reads the applied migrations; none when the migrations table does
// not exist yet.
func (m *Migrator) applied(ctx context.Context) (migrate.MigrationSlice, error) {
	var exists bool
	if err := m.db.NewRaw("SELECT to_regclass(?) IS NOT NULL", migrationsTable).Scan(ctx, &exists); err != nil {
		return nil, fmt.Errorf("read migration status: %w", err)
	}
	if !exists {
		return nil, nil
	}
	ms, err := m.m.AppliedMigrations(ctx)
	if err != nil {
		return nil, fmt.Errorf("read migration status: %w", err)
	}
	return ms, nil
}

// schemaOf sorts st into the pending and the unknown migrations.
func schemaOf(st []MigrationStatus) Schema {
	var s Schema
	for _, m := range st {
		switch {
		case m.Unknown:
			s.Unknown = append(s.Unknown, m.String())
		case !m.Applied:
			s.Pending = append(s.Pending, m.String())
		}
	}
	return s
}

// listNames joins names for a message, eliding the middle of a long list.
func listNames(names []string) string {
	if len(names) > 4 {
		return fmt.Sprintf("%s, %s, … %s", names[0], names[1], names[len(names)-1])
	}
	return strings.Join(names, ", ")
}

// DescribePending is the message for a database that lacks migrations this
// binary needs: how many, which, and the command that applies them.
func DescribePending(pending []string) string {
	return fmt.Sprintf("the database lacks %d of this release's migrations (%s): run `eventapi migrate up` against it first (or start with `eventapi serve --migrate`)",
		len(pending), listNames(pending))
}

// DescribeUnknown is the message for a database that holds migrations this
// binary does not know.
func DescribeUnknown(unknown []string) string {
	return ErrNewerSchema.Error() + unknownList(unknown)
}

// unknownList names the applied migrations this binary does not know.
func unknownList(unknown []string) string {
	return " (applied migrations unknown to this binary: " + listNames(unknown) + ")"
}

// newerSchema is op's refusal of a database holding the unknown
// migrations, wrapping ErrNewerSchema, with advice appended.
func newerSchema(op string, unknown []string, advice string) error {
	return fmt.Errorf("%s: %w%s%s", op, ErrNewerSchema, unknownList(unknown), advice)
}
