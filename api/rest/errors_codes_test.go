package rest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// errorCodes returns every errs.Code constant declared in platform/errs, read
// from its source: errs keeps no list of its codes, and a list written here
// would not notice a new one.
func errorCodes(t *testing.T) []errs.Code {
	t.Helper()
	dir := filepath.Join("..", "..", "platform", "errs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var codes []errs.Code
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for _, val := range v.Values {
					lit, ok := val.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a Code constant that is not a string literal", fset.Position(val.Pos()))
					}
					c, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					codes = append(codes, errs.Code(c))
				}
			}
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found %d error codes in %s; the parser missed some", len(codes), dir)
	}
	return codes
}

// TestEveryCodeHasAStatusAndAV1Name: every error code has its status in
// statusOf (else it is a 500) and a name on v1 (else it is 500 SERVER_ERROR
// there), and the v1 status is the v2 status but for the one override,
// validation_error answered 400 BAD_REQUEST.
func TestEveryCodeHasAStatusAndAV1Name(t *testing.T) {
	for _, code := range errorCodes(t) {
		t.Run(string(code), func(t *testing.T) {
			if _, ok := statusOf[code]; !ok {
				t.Errorf("%s has no status in statusOf", code)
			}
			name, ok := v1CodeOf[code]
			if !ok {
				t.Fatalf("%s has no v1 name in v1CodeOf", code)
			}
			want := Status(code)
			if code == errs.Validation {
				want = fiber.StatusBadRequest
			}
			if name == "SERVER_ERROR" && code != errs.Internal {
				t.Errorf("%s is SERVER_ERROR on v1; only internal_error is", code)
			}

			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.DiscardHandler))})
			app.Get(V1Prefix+"/x", func(*fiber.Ctx) error { return errs.New(code, "m") })
			res, err := app.Test(httptest.NewRequest("GET", V1Prefix+"/x", nil))
			if err != nil {
				t.Fatal(err)
			}
			var body V1ErrorBody
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != want || body.Error.Code != name {
				t.Errorf("v1 answer %d %s, want %d %s", res.StatusCode, body.Error.Code, want, name)
			}
		})
	}
}
