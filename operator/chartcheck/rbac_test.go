package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCheckOperatorRules(t *testing.T) {
	secrets := rule("", "secrets", "get", "watch")
	keys := rule("eventapi.io", "apikeys", "get", "patch")
	events := rule("events.k8s.io", "events", "create")
	lease := rule("coordination.k8s.io", "leases", "get", "delete")
	tests := []struct {
		name    string
		objs    []*unstructured.Unstructured
		problem string // a part of the one problem expected; "" for none
	}{
		{"one ClusterRole with it all", objs(role("ClusterRole", "", "op", secrets, events, keys)), ""},
		{"a ClusterRole missing a permission", objs(role("ClusterRole", "", "op", keys, events)), "declare"},
		{"a ClusterRole with one too many", objs(role("ClusterRole", "", "op", secrets, events, keys, lease)), "declare"},
		{"resources cluster-wide, Secrets and events per namespace",
			objs(role("ClusterRole", "", "op-resources", keys), role("Role", "a", "op", secrets, events), role("Role", "b", "op", secrets, events)), ""},
		{"one namespace's Role short",
			objs(role("ClusterRole", "", "op-resources", keys), role("Role", "a", "op", secrets, events), role("Role", "b", "op", events)), "Role b/op"},
		{"Secrets cluster-wide beside the Roles",
			objs(role("ClusterRole", "", "op-resources", keys, secrets), role("Role", "a", "op", secrets, events)), "cluster-wide"},
		{"events cluster-wide beside the Roles",
			objs(role("ClusterRole", "", "op-resources", keys, events), role("Role", "a", "op", secrets, events)), "cluster-wide"},
		{"everything in each namespace's Role (before 0.2.35)",
			objs(role("Role", "a", "op", secrets, events, keys)), "strands them"},
		{"the leader-election Role is not counted",
			objs(role("ClusterRole", "", "op", secrets, events, keys), role("Role", "rel", "op-leader-election", lease)), ""},
		{"nothing rendered", nil, "no operator ClusterRole or Role"},
	}
	gen := filepath.Join(t.TempDir(), "role.yaml")
	writeObjects(t, gen, role("ClusterRole", "", "generated", secrets, events, keys))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := checkOperatorRules("chart.yaml", tt.objs, gen)
			switch {
			case tt.problem == "" && len(problems) > 0:
				t.Fatalf("problems %q, want none", problems)
			case tt.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.problem)):
				t.Fatalf("problems %q, want one naming %q", problems, tt.problem)
			}
		})
	}
}

func rule(group, resource string, verbs ...string) map[string]any {
	vs := make([]any, len(verbs))
	for i, v := range verbs {
		vs[i] = v
	}
	return map[string]any{"apiGroups": []any{group}, "resources": []any{resource}, "verbs": vs}
}

func role(kind, namespace, name string, rules ...map[string]any) *unstructured.Unstructured {
	rs := make([]any, len(rules))
	for i, r := range rules {
		rs[i] = r
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "rules": rs}}
	u.SetName(name)
	u.SetNamespace(namespace)
	u.SetLabels(map[string]string{"app.kubernetes.io/component": "operator"})
	return u
}

func objs(o ...*unstructured.Unstructured) []*unstructured.Unstructured { return o }

// writeObjects writes o to path as JSON, which readObjects reads as YAML.
func writeObjects(t *testing.T, path string, o *unstructured.Unstructured) {
	t.Helper()
	raw, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
