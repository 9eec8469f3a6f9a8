package v1alpha1_test

import (
	"os"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/eventapi/eventapi/tenancy"
)

// The scope enum of the ApiKey CRD must list exactly tenancy.AllScopes, in
// the same order, so the API server refuses what the service would refuse.
func TestScopeEnumMatchesTenancy(t *testing.T) {
	raw, err := os.ReadFile("../../config/crd/bases/eventapi.io_apikeys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatal(err)
	}
	items := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["scopes"].Items.Schema
	var got []string
	for _, e := range items.Enum {
		var s string
		if err := yaml.Unmarshal(e.Raw, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := make([]string, len(tenancy.AllScopes))
	for i, s := range tenancy.AllScopes {
		want[i] = string(s)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("CRD scope enum %v\nwant tenancy.AllScopes %v\n(edit the Scope enum marker in apikey_types.go and run operator/hack/generate.sh)", got, want)
	}
}
