package v1alpha1_test

import (
	"os"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// The scope enum of the ApiKey CRD must list exactly tenancy.AllScopes, in
// the same order, so the API server refuses what the service would refuse.
func TestScopeEnumMatchesTenancy(t *testing.T) {
	items := specProperty(t, "eventapi.io_apikeys.yaml", "scopes").Items.Schema
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

// specProperty returns the schema of spec.<name> in a generated CRD file.
func specProperty(t *testing.T, file, name string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	crd := readCRD(t, file)
	p, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties[name]
	if !ok {
		t.Fatalf("%s has no spec.%s", file, name)
	}
	return p
}

// readCRD reads a generated CRD file.
func readCRD(t *testing.T, file string) apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile("../../config/crd/bases/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// keyMarkerLength is the length of the marker the operator appends to every
// key name it issues, " [k8s:<ApiKey uid>]" (keyMarker in
// operator/internal/controller/apikey_keys.go, unexported there): 6
// characters, a 36-character uid, and "]".
const keyMarkerLength = len(" [k8s:") + 36 + len("]")

// The name limits of the CRDs keep the API server refusing a name the
// service would refuse (tenancy.MaxNameLength): a sandbox's name is stored
// as it is, and a key's name with the marker appended.
func TestNameLengthsFitTenancy(t *testing.T) {
	tests := []struct {
		file, source string
		extra        int // characters the operator appends
		exact        bool
	}{
		{"eventapi.io_sandboxorganizations.yaml", "sandboxorganization_types.go", 0, true},
		{"eventapi.io_apikeys.yaml", "apikey_types.go", keyMarkerLength, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := specProperty(t, tt.file, "name")
			if p.MaxLength == nil {
				t.Fatalf("spec.name has no maxLength")
			}
			got := int(*p.MaxLength) + tt.extra
			switch {
			case tt.exact && got != tenancy.MaxNameLength:
				t.Errorf("spec.name maxLength %d + %d appended = %d, want tenancy.MaxNameLength %d\n(edit the MaxLength marker in %s and run operator/hack/generate.sh)",
					*p.MaxLength, tt.extra, got, tenancy.MaxNameLength, tt.source)
			case got > tenancy.MaxNameLength:
				t.Errorf("spec.name maxLength %d + %d appended = %d, over tenancy.MaxNameLength %d\n(edit the MaxLength marker in %s and run operator/hack/generate.sh)",
					*p.MaxLength, tt.extra, got, tenancy.MaxNameLength, tt.source)
			}
		})
	}
}

// The deletionPolicy of the SandboxOrganization CRD offers exactly the
// policies the operator knows, defaults to Delete (what every
// SandboxOrganization did before the field) and shows under -o wide.
func TestDeletionPolicyInTheCRD(t *testing.T) {
	p := specProperty(t, "eventapi.io_sandboxorganizations.yaml", "deletionPolicy")
	var enum []string
	for _, e := range p.Enum {
		var s string
		if err := yaml.Unmarshal(e.Raw, &s); err != nil {
			t.Fatal(err)
		}
		enum = append(enum, s)
	}
	if want := []string{string(v1alpha1.DeletionDelete), string(v1alpha1.DeletionOrphan)}; !slices.Equal(enum, want) {
		t.Errorf("deletionPolicy enum %v, want %v", enum, want)
	}
	var def string
	if p.Default == nil || yaml.Unmarshal(p.Default.Raw, &def) != nil || def != string(v1alpha1.DeletionDelete) {
		t.Errorf("deletionPolicy default %v, want %s", p.Default, v1alpha1.DeletionDelete)
	}
	columns := readCRD(t, "eventapi.io_sandboxorganizations.yaml").Spec.Versions[0].AdditionalPrinterColumns
	i := slices.IndexFunc(columns, func(c apiextensionsv1.CustomResourceColumnDefinition) bool {
		return c.JSONPath == ".spec.deletionPolicy"
	})
	if i < 0 || columns[i].Priority != 1 {
		t.Errorf("printer columns %+v: want .spec.deletionPolicy at priority 1 (-o wide)", columns)
	}
}
