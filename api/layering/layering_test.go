package layering_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/eventapi/eventapi/"

// rule forbids the packages under layer (a path prefix inside the module) to
// link any package whose path starts with one of forbidden, unless it starts
// with one of allowed (the storage layer lives under api/ but is not HTTP).
type rule struct {
	layer     string
	forbidden []string
	allowed   []string
}

// storage is the storage layer: org-scoped queries, cursors and pages, every
// resource's model and store, demo seeding; no Fiber, no api/rest.
const storage = module + "api/storage"

func (r rule) forbids(dep string) (string, bool) {
	for _, a := range r.allowed {
		if strings.HasPrefix(dep, a) {
			return "", false
		}
	}
	for _, f := range r.forbidden {
		if strings.HasPrefix(dep, f) {
			return f, true
		}
	}
	return "", false
}

var fiber = "github.com/gofiber/"

// rules are the layers of docs/architecture.md, from the bottom up.
var rules = []rule{
	{"platform/", []string{module + "api/", module + "tenancy", module + "operator/", fiber}, nil},
	{"tenancy", []string{module + "api/", module + "operator/"}, nil},
	{"api/storage", []string{module + "api/", module + "operator/", module + "tenancy/auth", fiber}, []string{storage}},
	{"api/rest", []string{module + "api/", module + "operator/"}, []string{storage, module + "api/rest"}},
	{"api/rest/jsonplan", []string{module + "api/", module + "operator/", module + "tenancy", fiber}, nil},
	{"api/rest/bulkhead", []string{module + "api/", module + "operator/", module + "tenancy/auth", fiber}, nil},
	{"operator/", []string{module + "api/", module + "tenancy/auth", fiber}, []string{storage}},
	{"cmd/eventapi-operator", []string{module + "api/", module + "tenancy/auth", fiber}, []string{storage}},
}

// fiberFree lists the packages of the tenancy layer that must stay free of HTTP.
var fiberFree = []string{"tenancy", "tenancy/apikey"}

// deps returns, per package of the module, the packages it links.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "github.com/eventapi/eventapi/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		m[strings.TrimPrefix(f[0], module)] = f[1:]
	}
	return m
}

func TestLayers(t *testing.T) {
	all := deps(t)
	if len(all) < 20 {
		t.Fatalf("go list found %d packages; expected the whole module", len(all))
	}
	checked := 0
	for pkg, ds := range all {
		for _, r := range rules {
			if pkg != r.layer && !strings.HasPrefix(pkg, strings.TrimSuffix(r.layer, "/")+"/") {
				continue
			}
			checked++
			for _, d := range ds {
				if f, bad := r.forbids(d); bad {
					t.Errorf("%s links %s: the %s layer may not depend on %s", pkg, d, r.layer, f)
				}
			}
		}
	}
	for _, pkg := range fiberFree {
		for _, d := range all[pkg] {
			if strings.HasPrefix(d, fiber) || strings.HasPrefix(d, module+"api/") {
				t.Errorf("%s links %s: tenancy keeps HTTP in tenancy/auth", pkg, d)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package matched a rule")
	}
}
