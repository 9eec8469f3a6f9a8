package database

import (
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Ident quotes a table or column name for the text of a raw statement. The
// name must come from the code (a model's table, an allow-listed column),
// never from input. A bun.Ident argument would do the same when the
// statement runs, but leave a "?" in the statement a span records
// (db.statement is the text without its values), so the span of a create
// would not say which table it wrote.
func Ident(db bun.IDB, name string) string {
	return string(dialect.AppendIdent(nil, name, db.Dialect().IdentQuote()))
}
