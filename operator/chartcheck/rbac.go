package main

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkOperatorRules compares the rules of every rendered operator
// ClusterRole or Role (not the leader-election Role) with the generated
// ClusterRole, permission by permission. The chart must grant the operator
// exactly what its controllers declare: no less (it would fail), no more
// (least privilege).
func checkOperatorRules(path string, objs []*unstructured.Unstructured, rolePath string) []string {
	gen, err := readObjects(rolePath)
	if err != nil || len(gen) != 1 {
		return []string{fmt.Sprintf("read %s: %v", rolePath, err)}
	}
	want, err := permissions(gen[0])
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	seen := 0
	for _, o := range objs {
		if (o.GetKind() != "ClusterRole" && o.GetKind() != "Role") ||
			o.GetLabels()["app.kubernetes.io/component"] != "operator" || strings.HasSuffix(o.GetName(), "-leader-election") {
			continue
		}
		seen++
		got, err := permissions(o)
		if err != nil {
			return []string{err.Error()}
		}
		if !slices.Equal(got, want) {
			problems = append(problems, fmt.Sprintf("%s: %s %s/%s grants %v\n    the controllers' rbac markers (%s) declare %v",
				path, o.GetKind(), o.GetNamespace(), o.GetName(), got, rolePath, want))
		}
	}
	if seen == 0 {
		problems = append(problems, path+": no operator ClusterRole or Role rendered")
	}
	return problems
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
