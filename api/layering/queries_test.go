package layering_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// SQL is written in the storage layer only (docs/architecture.md,
// "Packages": api/storage/<resource> holds the bun model and the org-scoped
// store, api/<resource> decodes input and serves routes over it, cmd/* is
// wiring only). The HTTP packages under api/ and the binaries under cmd/
// may hold a connection or a transaction and pass it to a store, but they
// may not name a bun model or query, start a query or import a lower-level
// database package. This is read from the source: go list cannot see which
// names of github.com/uptrace/bun a package uses.

// queryFree are the parts of the module the rule covers.
var queryFree = []string{"api/", "cmd/"}

// mayQuery are the packages under queryFree that may build queries, each
// with its reason.
var mayQuery = []string{
	"api/storage", // the storage layer itself (and every package under it)
	// test support, linked only by tests: fixtures and counts straight in
	// the test database
	"api/apitest",
	"api/bookingtest",
	"api/documents/doctest",
}

// mayImport are the lower-level imports (lowerImports) a package the rule
// covers may have, by package, each with its reason.
var mayImport = map[string][]string{
	// unmigrated reads the SQLSTATE of a failed command's error
	// (undefined_table, invalid_catalog_name) to say which migrate command
	// to run; it builds no query.
	"cmd/eventapi": {"github.com/jackc/pgerrcode", "github.com/jackc/pgx/v5/pgconn"},
}

// connectionTypes are the names of github.com/uptrace/bun an HTTP package may
// use: what it holds and hands to a store.
var connectionTypes = []string{"DB", "IDB", "Tx", "Conn"}

// queryMethods start a query on a bun.IDB (or run SQL text on it or on a
// database/sql handle), whatever the receiver's name.
var queryMethods = []string{
	"NewSelect", "NewInsert", "NewUpdate", "NewDelete", "NewMerge", "NewRaw", "NewValues",
	"NewCreateTable", "NewDropTable", "NewTruncateTable", "NewCreateIndex", "NewDropIndex",
	"NewAddColumn", "NewDropColumn",
	"ExecContext", "QueryContext", "QueryRowContext",
}

// lowerImports are the database packages below bun's connection types: SQL
// text, dialects, drivers and isolation levels.
var lowerImports = []string{"github.com/uptrace/bun/", "github.com/jackc/", "database/sql"}

const bunPath = "github.com/uptrace/bun"

// mayBuildQueries reports whether pkg (a path inside the module) is exempt.
func mayBuildQueries(pkg string) bool {
	return slices.ContainsFunc(mayQuery, func(p string) bool { return pkg == p || strings.HasPrefix(pkg, p+"/") })
}

// queriesIn returns what file, of a package the rule covers, does that only
// the storage layer may: each as "line: what".
func queriesIn(fset *token.FileSet, file *ast.File) []string {
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, strconv.Itoa(fset.Position(n.Pos()).Line)+": "+what)
	}
	bunName := ""
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == bunPath {
			bunName = "bun"
			if imp.Name != nil {
				bunName = imp.Name.Name
			}
			if bunName == "." {
				report(imp, "imports bun with a dot")
			}
			continue
		}
		for _, low := range lowerImports {
			if path == strings.TrimSuffix(low, "/") || strings.HasPrefix(path, low) {
				report(imp, "imports "+path)
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && bunName != "" && id.Name == bunName &&
				!slices.Contains(connectionTypes, n.Sel.Name) {
				report(n, "uses bun."+n.Sel.Name)
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && slices.Contains(queryMethods, sel.Sel.Name) {
				report(n, "calls "+sel.Sel.Name)
			}
		}
		return true
	})
	return found
}

// TestOnlyStorageBuildsQueries: no package under queryFree outside mayQuery
// builds or runs a query (queriesIn); they call the stores of api/storage.
func TestOnlyStorageBuildsQueries(t *testing.T) {
	args := []string{"list", "-e", "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`}
	for _, part := range queryFree {
		args = append(args, module+part+"...")
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fset := token.NewFileSet()
	checked := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		if mayBuildQueries(pkg) {
			continue
		}
		for _, name := range f[2:] {
			path := filepath.Join(f[1], name)
			file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range queriesIn(fset, file) {
				if slices.ContainsFunc(mayImport[pkg], func(imp string) bool { return strings.HasSuffix(q, ": imports "+imp) }) {
					continue
				}
				t.Errorf("%s/%s:%s: only the storage layer builds queries; move it to a store in api/storage", pkg, name, q)
			}
			checked[pkg] = true
		}
	}
	// The packages that held queries before they moved to api/storage must
	// be among those read, or the rule reads nothing (the Idempotency-Key
	// middleware's are in api/storage/idempotency; the demo command's, in
	// api/storage/demo).
	for _, pkg := range []string{"api/v1", "api/events", "api/server", "api/crud", "api/middleware/idempotency", "cmd/eventapi"} {
		if !checked[pkg] {
			t.Errorf("%s was not checked (go list found %d packages to check)", pkg, len(checked))
		}
	}
}

// TestQueriesIn: what the source check sees, on small files.
func TestQueriesIn(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"a store call with a connection", `package p
			import "github.com/uptrace/bun"
			func f(db bun.IDB, tx bun.Tx, d *bun.DB) { store.Get(ctx, db) }`, nil},
		{"a select", `package p
			import "github.com/uptrace/bun"
			func f(db bun.IDB) { db.NewSelect().Model(&rs).Scan(ctx) }`, []string{"3: calls NewSelect"}},
		{"raw SQL on any handle", `package p
			func f() { env.DB.NewRaw("SELECT 1"); conn.ExecContext(ctx, "DELETE FROM x") }`,
			[]string{"2: calls NewRaw", "2: calls ExecContext"}},
		{"a query in a filter", `package p
			import "github.com/uptrace/bun"
			var f = func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("x IN (?)", bun.List(v)) }`,
			[]string{"3: uses bun.SelectQuery", "3: uses bun.SelectQuery", "3: uses bun.List"}},
		{"a table model", `package p
			import "github.com/uptrace/bun"
			type M struct { bun.BaseModel ` + "`bun:\"table:m\"`" + ` }`, []string{"3: uses bun.BaseModel"}},
		{"bun under another name", `package p
			import orm "github.com/uptrace/bun"
			func f(db orm.IDB) { _ = orm.Ident("x") }`, []string{"3: uses bun.Ident"}},
		{"lower-level imports", `package p
			import (
				"database/sql"
				"github.com/uptrace/bun/dialect/pgdialect"
				"github.com/jackc/pgx/v5/pgconn"
			)`, []string{"3: imports database/sql", "4: imports github.com/uptrace/bun/dialect/pgdialect",
			"5: imports github.com/jackc/pgx/v5/pgconn"}},
		{"without the import, bun is not the package", `package p
			func f() { bun := x; bun.List() }`, nil},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "x.go", c.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := queriesIn(fset, file); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
