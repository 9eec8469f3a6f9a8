// Command chartcheck proves that rendered Helm manifests are accepted by a
// real Kubernetes API server. It starts kube-apiserver and etcd from
// KUBEBUILDER_ASSETS (envtest), installs the chart's CRDs, creates the
// namespaces the objects live in, and sends every object as a server-side
// dry-run create, so that schema, validation and admission all run. It also
// checks that the operator's rendered RBAC rules grant exactly what the
// controllers' rbac markers declare, and that every object of the
// --must-fail files is refused (a negative control: the check can fail).
//
//	chartcheck --crds DIR [--crds DIR]... [--operator-role role.yaml]
//	           [--must-fail FILE]... MANIFEST...
//
// scripts/checks/chart.sh runs it on the output of helm template.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "chartcheck: FAIL:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var crds, mustFail listFlag
	var operatorRole string
	fs := flag.NewFlagSet("chartcheck", flag.ContinueOnError)
	fs.Var(&crds, "crds", "directory or file of CRDs to install first (repeatable)")
	fs.Var(&mustFail, "must-fail", "manifest whose every object must be refused (repeatable)")
	fs.StringVar(&operatorRole, "operator-role", "", "generated ClusterRole the rendered operator rules must equal")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no manifests given")
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return errors.New(`KUBEBUILDER_ASSETS is not set; run: KUBEBUILDER_ASSETS="$(hack/envtest-assets.sh)" && export KUBEBUILDER_ASSETS`)
	}

	var problems []string
	manifests := map[string][]*unstructured.Unstructured{}
	for _, path := range fs.Args() {
		objs, err := readObjects(path)
		if err != nil {
			return err
		}
		manifests[path] = objs
		if operatorRole != "" {
			problems = append(problems, checkOperatorRules(path, objs, operatorRole)...)
		}
	}

	start := time.Now()
	env := &envtest.Environment{CRDDirectoryPaths: crds, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("start envtest: %w", err)
	}
	defer func() { _ = env.Stop() }()
	fmt.Fprintf(os.Stderr, "chartcheck: kube-apiserver up with CRDs in %s\n", time.Since(start).Round(time.Millisecond))
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	for _, path := range fs.Args() {
		objs := manifests[path]
		accepted := 0
		for _, o := range objs {
			if err := dryRun(ctx, c, o); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s %s/%s refused: %v", path, o.GetKind(), o.GetNamespace(), o.GetName(), err))
				continue
			}
			accepted++
		}
		fmt.Fprintf(os.Stderr, "chartcheck: %s: %d of %d objects accepted by server-side dry-run (%s)\n", path, accepted, len(objs), kinds(objs))
	}
	for _, path := range mustFail {
		objs, err := readObjects(path)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := dryRun(ctx, c, o); err == nil {
				problems = append(problems, fmt.Sprintf("%s: %s %s was accepted, but the negative control must be refused", path, o.GetKind(), o.GetName()))
			}
		}
		fmt.Fprintf(os.Stderr, "chartcheck: %s: negative control, %d objects all refused as expected\n", path, len(objs))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n  "))
	}
	return nil
}
