package main

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkOperatorRules compares the rules the chart renders for the operator
// (every operator ClusterRole and Role but the leader-election Role) with
// the generated ClusterRole, permission by permission. The chart must grant
// the operator exactly what its controllers declare: no less (it would
// fail), no more (least privilege). Watching the whole cluster, one
// ClusterRole holds it all. Watching listed namespaces, a ClusterRole holds
// the operator's own resources and a Role in each namespace the rest, and
// each namespace's Role with the ClusterRole must make the whole; the
// ClusterRole then holds the eventapi.io rules only, and the Roles none of
// them (docs/helm.md, "Watched namespaces").
func checkOperatorRules(path string, objs []*unstructured.Unstructured, rolePath string) []string {
	gen, err := readObjects(rolePath)
	if err != nil || len(gen) != 1 {
		return []string{fmt.Sprintf("read %s: %v", rolePath, err)}
	}
	want, err := permissions(gen[0])
	if err != nil {
		return []string{err.Error()}
	}
	var cluster []string
	var roles []*unstructured.Unstructured
	for _, o := range objs {
		if (o.GetKind() != "ClusterRole" && o.GetKind() != "Role") ||
			o.GetLabels()["app.kubernetes.io/component"] != "operator" || strings.HasSuffix(o.GetName(), "-leader-election") {
			continue
		}
		got, err := permissions(o)
		if err != nil {
			return []string{err.Error()}
		}
		if o.GetKind() == "Role" {
			roles = append(roles, o)
			continue
		}
		cluster = union(cluster, got)
	}
	if cluster == nil && roles == nil {
		return []string{path + ": no operator ClusterRole or Role rendered"}
	}
	mismatch := func(what string, got []string) string {
		return fmt.Sprintf("%s: %s grants %v\n    the controllers' rbac markers (%s) declare %v", path, what, got, rolePath, want)
	}
	if roles == nil {
		if !slices.Equal(cluster, want) {
			return []string{mismatch("the operator's ClusterRole", cluster)}
		}
		return nil
	}
	var problems []string
	if wide := slices.DeleteFunc(slices.Clone(cluster), ownResource); len(wide) > 0 {
		problems = append(problems, fmt.Sprintf("%s: watching listed namespaces, the operator's ClusterRole grants %v cluster-wide (only its own eventapi.io resources belong there)", path, wide))
	}
	for _, r := range roles {
		got, _ := permissions(r)
		if own := slices.DeleteFunc(slices.Clone(got), func(p string) bool { return !ownResource(p) }); len(own) > 0 {
			problems = append(problems, fmt.Sprintf("%s: Role %s/%s grants %v: the operator's own resources must be granted cluster-wide, or a namespace's deletion strands them", path, r.GetNamespace(), r.GetName(), own))
		}
		if all := union(cluster, got); !slices.Equal(all, want) {
			problems = append(problems, mismatch("Role "+r.GetNamespace()+"/"+r.GetName()+" with the operator's ClusterRole", all))
		}
	}
	return problems
}

// ownResource reports whether a permission is on the operator's own
// resources (the eventapi.io group).
func ownResource(p string) bool { return strings.HasPrefix(p, "eventapi.io/") }

// union is the sorted union of two sorted permission lists.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// permissions flattens rules into sorted group/resource:verb strings.
func permissions(o *unstructured.Unstructured) ([]string, error) {
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	var out []string
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, g+"/"+res+":"+v)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
