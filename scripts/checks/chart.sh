#!/usr/bin/env bash
# Checks the Helm chart charts/eventapi:
#   1. helm lint --strict passes with the default and the production values;
#   2. helm template renders both;
#   3. values.schema.json makes lint and template FAIL on a values file with
#      wrong types, the chart refuses several replicas without Redis and the
#      other configurations that cannot work, and the settings of the API
#      pods, the migration Job and the operator land where they should;
#   4. every rendered object (hooks included, CRDs installed first) is
#      accepted by a real kube-apiserver through a server-side dry-run, the
#      operator's RBAC equals the controllers' rbac markers, and known-bad
#      objects are refused (operator/chartcheck).
# helm comes from hack/helm.sh and kube-apiserver + etcd from
# hack/envtest-assets.sh (both pinned and cached).
set -euo pipefail
cd "$(dirname "$0")/../.."
HELM="$(hack/helm.sh)"
if [ -z "${KUBEBUILDER_ASSETS:-}" ]; then
  KUBEBUILDER_ASSETS="$(hack/envtest-assets.sh)"
  export KUBEBUILDER_ASSETS
fi
chart=charts/eventapi
prod="$chart/ci/production-values.yaml"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() { echo "chart: FAIL: $*" >&2; exit 1; }

echo "chart: helm lint (default values)" >&2
"$HELM" lint --strict "$chart" >"$tmp/lint-default.txt" 2>&1 || { cat "$tmp/lint-default.txt" >&2; fail "helm lint with default values"; }
echo "chart: helm lint (production values)" >&2
"$HELM" lint --strict "$chart" -f "$prod" >"$tmp/lint-prod.txt" 2>&1 || { cat "$tmp/lint-prod.txt" >&2; fail "helm lint with $prod"; }
for f in "$tmp"/lint-*.txt; do
  if grep -E '^\[(WARNING|ERROR)\]' "$f" >&2; then fail "helm lint reported warnings ($f)"; fi
done

echo "chart: helm template (default and production values)" >&2
"$HELM" template eventapi "$chart" --namespace eventapi >"$tmp/default.yaml" || fail "helm template with default values"
"$HELM" template eventapi "$chart" --namespace eventapi -f "$prod" \
  --api-versions monitoring.coreos.com/v1 >"$tmp/production.yaml" || fail "helm template with $prod"
grep -q '^kind: ServiceMonitor' "$tmp/production.yaml" || fail "production values with monitoring.coreos.com/v1 render no ServiceMonitor"
# Rendered to a file, never piped into grep -q: under pipefail, grep -q's early
# exit would kill helm with SIGPIPE and make the pipeline's status lie.
"$HELM" template eventapi "$chart" --namespace eventapi -f "$prod" >"$tmp/production-no-monitoring.yaml" ||
  fail "helm template with $prod (no monitoring.coreos.com/v1)"
if grep -qE '^kind: (ServiceMonitor|PrometheusRule)' "$tmp/production-no-monitoring.yaml"; then
  fail "a ServiceMonitor or PrometheusRule is rendered although the cluster has no monitoring.coreos.com/v1"
fi

echo "chart: values.schema.json and the chart refuse bad values" >&2
schema_bad="$chart/testdata/bad-values.yaml"
if "$HELM" lint --strict "$chart" -f "$schema_bad" >"$tmp/bad.txt" 2>&1; then cat "$tmp/bad.txt" >&2; fail "helm lint accepted $schema_bad"; fi
grep -q "want integer" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm lint refused $schema_bad, but not for its wrong types"; }
if "$HELM" template eventapi "$chart" -f "$schema_bad" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $schema_bad"; fi
echo "chart:   refused $schema_bad: $(grep -m1 -oE "at '[^']+': got [a-z]+, want [a-z]+" "$tmp/bad.txt")" >&2
# helm lint only reports a template's fail() as INFO, so the chart's own
# refusals are checked through helm template.
no_redis="$chart/testdata/replicas-without-redis.yaml"
if "$HELM" template eventapi "$chart" -f "$no_redis" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $no_redis"; fi
grep -q "needs Redis" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $no_redis for another reason"; }
if "$HELM" template eventapi "$chart" --set autoscaling.enabled=true >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted autoscaling without Redis"; fi
echo "chart:   refused several replicas and autoscaling without Redis" >&2
# A duration the service needs positive: zero is refused by the schema, as
# the service would refuse it at start (a crash loop).
for zero in config.rateWindow=0s config.shutdownTimeout=0s config.requestTimeout=0ms webhooks.pollInterval=0.0s config.requestLogRetention=0h; do
  if "$HELM" template eventapi "$chart" --set "$zero" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $zero"; fi
  grep -q "'not' failed" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $zero for another reason"; }
done
echo "chart:   refused zero durations the service refuses" >&2
# Values the service would refuse at start (the migration Job's retries
# would fail the install) are refused by the schema: a rate window that is
# not whole seconds, a sunset date that is no date.
for bad in config.rateWindow=1500ms config.rateWindow=90.5s config.v1Sunset=2027-13-45 config.v1Sunset=2027-00-10; do
  if "$HELM" template eventapi "$chart" --set "$bad" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $bad"; fi
  grep -q "does not match pattern\|doesn't match pattern" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $bad for another reason"; }
done
for good in config.rateWindow=1m30s config.rateWindow=1h config.v1Sunset=2027-12-31; do
  "$HELM" template eventapi "$chart" --set "$good" >/dev/null 2>"$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $good"; }
done
echo "chart:   refused rate windows of part seconds and sunset dates out of range" >&2
# OTEL_* values the service refuses at start (telemetry.CheckEnv), as
# strings: --set would make "10" a number.
for bad in otel.endpoint=collector:4318 otel.endpoint=grpc://collector:4317 otel.tracesSamplerArg=10 otel.tracesSamplerArg=0.1x; do
  if "$HELM" template eventapi "$chart" --set-string "$bad" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $bad"; fi
  grep -q "does not match pattern\|doesn't match pattern" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $bad for another reason"; }
done
if "$HELM" template eventapi "$chart" --set-string otel.tracesSampler=sometimes >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted otel.tracesSampler=sometimes"; fi
grep -q "must be one of\|value must be" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused otel.tracesSampler=sometimes for another reason"; }
for good in otel.endpoint=http://otel-collector:4318 otel.endpoint=https://traces.example.com/otlp otel.tracesSampler=parentbased_traceidratio otel.tracesSamplerArg=0.1 otel.tracesSamplerArg=1; do
  "$HELM" template eventapi "$chart" --set-string "$good" >/dev/null 2>"$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $good"; }
done
echo "chart:   refused OTLP endpoints without a scheme, unknown samplers and ratios over 1" >&2
# A Redis URL with a password, in its user info or as ?password=, is
# refused: values are stored in the Helm release and rendered as a plain env
# value (docs/helm.md, "Secrets"). A user name alone is no secret.
redis_password="$chart/testdata/redis-password-in-values.yaml"
if "$HELM" lint --strict "$chart" -f "$redis_password" >"$tmp/bad.txt" 2>&1; then cat "$tmp/bad.txt" >&2; fail "helm lint accepted $redis_password"; fi
grep -q "'/redis/url': 'not' failed" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm lint refused $redis_password for another reason"; }
for bad in 'redis://:s3cret@r:6379/0' 'redis://app:s3cret@r:6379/0' 'redis://app:@r:6379/0' 'rediss://r:6379/0?password=s3cret' \
  'redis://r:6379/0?db=1&password=s3cret' 'redis+cluster://app:s3cret@a:6379\,b:6379'; do
  if "$HELM" template eventapi "$chart" --set-string "redis.url=$bad" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted redis.url=$bad (a password in values)"; fi
  grep -q "'/redis/url': 'not' failed" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused redis.url=$bad for another reason"; }
done
for good in 'redis://r:6379/0' 'redis://app@r:6379/0' 'rediss://r:6379/0?client_name=api' 'redis+cluster://a:6379\,b:6379'; do
  "$HELM" template eventapi "$chart" --set-string "redis.url=$good" >/dev/null 2>"$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused redis.url=$good"; }
done
echo "chart:   refused redis.url with a password (user info or ?password=)" >&2
# An HPA's utilization targets are shares of the container's requests.
if "$HELM" template eventapi "$chart" --set redis.url=redis://r:6379/0 --set autoscaling.enabled=true --set resources.requests=null >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted autoscaling without a CPU request"
fi
grep -q "needs resources.requests.cpu" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "autoscaling without a CPU request was refused for another reason"; }
if "$HELM" template eventapi "$chart" --set redis.url=redis://r:6379/0 --set autoscaling.enabled=true --set autoscaling.targetMemoryUtilizationPercentage=80 --set resources.requests.memory=null --set resources.limits.memory=null >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted a memory target without a memory request"
fi
grep -q "needs resources.requests.memory" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "a memory target without a memory request was refused for another reason"; }
echo "chart:   refused autoscaling targets without the requests they are shares of" >&2
# A budget given as a quoted number, or below zero, is refused as the
# number itself would be (the template's guard reads numbers only).
for pdb in podDisruptionBudget.maxUnavailable=0 podDisruptionBudget.maxUnavailable=0% podDisruptionBudget.minAvailable=3 podDisruptionBudget.minAvailable=-1; do
  if "$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set-string "$pdb" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted the string $pdb"; fi
done
if "$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set podDisruptionBudget.maxUnavailable=-1 >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted maxUnavailable -1"; fi
echo "chart:   refused disruption budgets given as strings or below zero" >&2
if "$HELM" template eventapi "$chart" --set-string 'podLabels.app\.kubernetes\.io/component=other' >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted podLabels overriding a selector label"; fi
grep -q "selector label" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused podLabels for another reason"; }
echo "chart:   refused podLabels that override a selector label" >&2
# Labels and annotations are strings to the API server, which refuses a
# bool or a number at install although helm lint and template take them.
for bad in podAnnotations.prometheus\\.io/scrape=true podLabels.canary=true service.annotations.internal=true ingress.annotations.a=1 \
  serviceAccount.annotations.a=true operator.podAnnotations.sidecar\\.istio\\.io/inject=false operator.serviceAccount.annotations.a=1 \
  metrics.serviceMonitor.labels.release=1 metrics.grafanaDashboard.labels.grafana_dashboard=1 metrics.grafanaDashboard.annotations.a=true; do
  if "$HELM" template eventapi "$chart" --set "$bad" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $bad (not a string)"; fi
  grep -q "want string" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $bad for another reason"; }
done
"$HELM" template eventapi "$chart" --set-string 'operator.podAnnotations.sidecar\.istio\.io/inject=false' --set-string 'metrics.grafanaDashboard.labels.grafana_dashboard=1' >/dev/null ||
  fail "helm template refused string annotations and labels"
echo "chart:   refused labels and annotations that are not strings" >&2
if "$HELM" template eventapi "$chart" --set ingress.enabled=true --set-json 'ingress.tls=[{"hosts":["a.example.com"],"secretname":"tls"}]' >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted ingress.tls with a misspelt secretName (the Ingress got no certificate)"
fi
grep -q "additional properties 'secretname' not allowed\|additionalProperties 'secretname' not allowed" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "ingress.tls with secretname was refused for another reason"; }
for bad in podDisruptionBudget.minAvailable=0 probes.readiness.timeoutSeconds=2 'config.trustedProxies[0]=300.1.1.1' 'config.trustedProxies[0]=:::'; do
  if "$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set "$bad" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $bad"; fi
  grep -q "minimum\|does not match pattern\|doesn't match pattern" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $bad for another reason"; }
done
for pct in 0% 100% 150%; do
  if "$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set-string "podDisruptionBudget.minAvailable=$pct" >/dev/null 2>"$tmp/bad.txt"; then
    fail "helm template accepted podDisruptionBudget.minAvailable $pct"
  fi
done
# Kubernetes rounds a percentage up: 67% of 3 pods keeps all 3.
for pct in 67% 99%; do
  if "$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set-string "podDisruptionBudget.minAvailable=$pct" >/dev/null 2>"$tmp/bad.txt"; then
    fail "helm template accepted podDisruptionBudget.minAvailable $pct of 3 pods (it keeps all 3)"
  fi
  grep -q "keeps 3 of 3 pods" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "minAvailable $pct of 3 pods was refused for another reason"; }
done
"$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set-string podDisruptionBudget.minAvailable=66% >/dev/null ||
  fail "helm template refused podDisruptionBudget.minAvailable 66% of 3 pods (it keeps 2)"
"$HELM" template eventapi "$chart" --set redis.url=redis://r:6379/0 --set autoscaling.enabled=true --set autoscaling.targetCPUUtilizationPercentage=150 \
  --set 'config.trustedProxies[0]=10.0.0.0/8' --set 'config.trustedProxies[1]=255.255.255.255' --set 'config.trustedProxies[2]=::ffff:10.0.0.1' \
  --set 'config.trustedProxies[3]=fd00::/8' >/dev/null 2>"$tmp/bad.txt" ||
  { cat "$tmp/bad.txt" >&2; fail "helm template refused a CPU target of 150% or good trusted proxies"; }
echo "chart:   refused a misspelt TLS key, a budget of 0, 0%, 100% or 150%, or a percentage that keeps every pod, a readiness timeout under the 2 s database ping, an IPv4 octet over 255, IPv6 text :::" >&2
# Two long release names that differ only at their end name different
# objects (the cut name gets a hash of the whole).
blue=$("$HELM" template production-eu-west-1-rentals-api-release-2025-blue "$chart" | grep -E '^  name: ' | sort -u)
green=$("$HELM" template production-eu-west-1-rentals-api-release-2025-green "$chart" | grep -E '^  name: ' | sort -u)
if [ -n "$(comm -12 <(echo "$blue") <(echo "$green") | grep -v 'name: eventapi' )" ]; then
  comm -12 <(echo "$blue") <(echo "$green") >&2; fail "two long release names share object names"
fi
echo "chart:   two long release names share no object name" >&2
# One release name in two namespaces (staging and production of one
# cluster): their cluster-scoped objects must differ, or helm refuses the
# second install ("invalid ownership metadata"). With and without
# watchNamespaces, which switch the operator's ClusterRoles.
cluster_names() { "$HELM" template eventapi "$chart" -n "$1" "${@:2}" | awk '/^kind: (ClusterRole|ClusterRoleBinding)$/ {k=1; next} k && /^  name: / {print; k=0}' | sort -u; }
for watch in "" "--set operator.watchNamespaces[0]=integrations"; do
  # shellcheck disable=SC2086 # $watch is empty or two words on purpose
  staging=$(cluster_names staging $watch); production=$(cluster_names production $watch)
  [ -n "$staging" ] || fail "no cluster-scoped object rendered (the check would check nothing)"
  if [ -n "$(comm -12 <(echo "$staging") <(echo "$production"))" ]; then
    comm -12 <(echo "$staging") <(echo "$production") >&2; fail "one release name in two namespaces shares cluster-scoped names"
  fi
done
echo "chart:   one release name in two namespaces shares no cluster-scoped name" >&2
short_grace="$chart/testdata/short-grace-period.yaml"
if "$HELM" template eventapi "$chart" -f "$short_grace" >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted $short_grace"; fi
grep -q "must cover config.drainDelay" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused $short_grace for another reason"; }
if "$HELM" template eventapi "$chart" --set terminationGracePeriodSeconds=39 >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted a grace period 1 s short of what follows the drain"; fi
grep -q "plus 15 s after the drain (40 s)" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused grace 39 for another reason"; }
echo "chart:   refused a grace period shorter than the drain delay plus the shutdown timeout plus 15 s" >&2
if "$HELM" template eventapi "$chart" --set metrics.port=8080 >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted metrics.port 8080"; fi
grep -q "metrics.port must not be 8080" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template refused metrics.port 8080 for another reason"; }
echo "chart:   refused a metrics port equal to the API's" >&2
# extraEnv may not repeat a variable the chart sets: Kubernetes keeps the
# last of two entries, which the grace period and the other checks never see
# (an EVENTAPI_SHUTDOWN_TIMEOUT of 60s there left the pods 40 s to stop).
if "$HELM" template eventapi "$chart" --set 'extraEnv[0].name=EVENTAPI_SHUTDOWN_TIMEOUT' --set 'extraEnv[0].value=60s' >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted extraEnv setting EVENTAPI_SHUTDOWN_TIMEOUT (the grace period is computed from config.shutdownTimeout)"
fi
grep -q "extraEnv must not set EVENTAPI_SHUTDOWN_TIMEOUT.*set config.shutdownTimeout instead" "$tmp/bad.txt" ||
  { cat "$tmp/bad.txt" >&2; fail "extraEnv setting EVENTAPI_SHUTDOWN_TIMEOUT was refused for another reason"; }
# Every variable the chart renders for the API and the migration Job (every
# optional one set) has its advice (the chart fails on one without), and
# those the chart derives its checks from, or sets only from an optional
# value, are refused in extraEnv.
every_env="$chart/testdata/every-env.yaml"
"$HELM" template eventapi "$chart" -f "$every_env" >"$tmp/every-env.yaml" 2>"$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "helm template with $every_env"; }
for name in EVENTAPI_DRAIN_DELAY EVENTAPI_ADDR EVENTAPI_METRICS_ADDR EVENTAPI_MIGRATE_DATABASE_URL OTEL_SERVICE_NAME OTEL_SDK_DISABLED; do
  grep -q "^ *- name: $name\$" "$tmp/every-env.yaml" || fail "$every_env does not render $name"
  if "$HELM" template eventapi "$chart" -f "$every_env" --set "extraEnv[0].name=$name" --set 'extraEnv[0].value=x' >/dev/null 2>"$tmp/bad.txt"; then
    fail "helm template accepted extraEnv setting $name, which the chart sets itself"
  fi
  grep -q "extraEnv must not set $name: .*; [a-z]" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "extraEnv setting $name was refused for another reason"; }
done
# The secrets' URLs are refused even when the chart renders none: from
# extraEnv they would reach the migration Job and escape the chart's checks.
for name in EVENTAPI_REDIS_URL EVENTAPI_MIGRATE_DATABASE_URL; do
  if "$HELM" template eventapi "$chart" --set "extraEnv[0].name=$name" --set 'extraEnv[0].value=x' >/dev/null 2>"$tmp/bad.txt"; then
    fail "helm template accepted extraEnv setting $name without the values that render it"
  fi
  grep -q "extraEnv must not set $name: .*; [a-z]" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "extraEnv setting $name was refused for another reason"; }
done
"$HELM" template eventapi "$chart" --set 'extraEnv[0].name=EVENTAPI_WEBHOOK_TIMEOUT' --set 'extraEnv[0].value=5s' >"$tmp/extra-env.yaml" ||
  fail "helm template refused extraEnv setting a variable the chart leaves alone"
echo "chart:   refused extraEnv setting a variable the chart sets itself" >&2
"$HELM" template eventapi "$chart" --set config.v2RateLimit=1000000 --set config.requestLogBuffer=2000000 >"$tmp/big.txt" || fail "helm template with large numbers"
grep -q 'value: "1000000"' "$tmp/big.txt" && grep -q 'value: "2000000"' "$tmp/big.txt" && ! grep -q 'e+0' "$tmp/big.txt" ||
  fail "large numbers are not rendered as digits (the service refuses 1e+06)"
grep -A1 'name: EVENTAPI_DATABASE_POOLER' "$tmp/production.yaml" | grep -c 'value: "transaction"' | grep -q '^3$' ||
  fail "the API, the migration Job and the operator do not all get EVENTAPI_DATABASE_POOLER"
echo "chart:   large numbers rendered as digits; every database client gets the pooler mode" >&2
# The migration Job gets no Redis URL (eventapi migrate reads PostgreSQL
# only), from a Secret or a plain value; the API does.
redis_env() { # $@: the values that set Redis
  "$HELM" template eventapi "$chart" "$@" --show-only templates/migration-job.yaml >"$tmp/job.yaml" || fail "helm template of the migration Job with $*"
  "$HELM" template eventapi "$chart" "$@" --show-only templates/api-deployment.yaml >"$tmp/api.yaml" || fail "helm template of the API with $*"
  if grep -q 'EVENTAPI_REDIS_URL' "$tmp/job.yaml"; then fail "the migration Job gets EVENTAPI_REDIS_URL ($*), which it never reads"; fi
  grep -q '^            - name: EVENTAPI_REDIS_URL$' "$tmp/api.yaml" || fail "the API lacks EVENTAPI_REDIS_URL ($*)"
}
redis_env -f "$every_env"
redis_env --set redis.url=redis://r:6379/0
echo "chart:   the API gets the Redis URL, the migration Job does not" >&2
long="production-eu-west-1-blue-green-canary-release-a1b2cd" # 53 characters, Helm's longest release name
"$HELM" template "$long" "$chart" >"$tmp/long.yaml" || fail "helm template with a long release name"
# Service names are DNS labels (63 characters); most other kinds allow 253.
awk '/^kind: /{k=$2} /^  name: /{if (k == "Service" && length($2) > 63) print k, $2}' "$tmp/long.yaml" >"$tmp/too-long.txt"
[ ! -s "$tmp/too-long.txt" ] || { cat "$tmp/too-long.txt" >&2; fail "Service names over 63 characters with a long release name"; }
echo "chart:   every Service name fits 63 characters with a long release name" >&2
if "$HELM" template eventapi "$chart" --set podDisruptionBudget.enabled=true >/dev/null 2>"$tmp/bad.txt"; then fail "helm template accepted a budget of one pod out of one"; fi
grep -q "must be below the replica count" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "a budget of one out of one was refused for another reason"; }
if "$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set podDisruptionBudget.maxUnavailable=0 >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted podDisruptionBudget.maxUnavailable 0"
fi
"$HELM" template eventapi "$chart" --set replicaCount=3 --set redis.url=redis://r:6379/0 --set podDisruptionBudget.maxUnavailable=1 >"$tmp/pdb.yaml" || fail "helm template with maxUnavailable 1"
grep -q '^  maxUnavailable: 1$' "$tmp/pdb.yaml" || fail "podDisruptionBudget.maxUnavailable 1 is not rendered"
echo "chart:   refused budgets that block every node drain" >&2
# null is unset, as "" is: it neither renders an empty field nor reads as 0.
pdb3=(--set replicaCount=3 --set redis.url=redis://r:6379/0 --show-only templates/api-pdb.yaml)
"$HELM" template eventapi "$chart" "${pdb3[@]}" --set podDisruptionBudget.maxUnavailable=null >"$tmp/pdb-null.yaml" 2>"$tmp/bad.txt" ||
  { cat "$tmp/bad.txt" >&2; fail "helm template refused podDisruptionBudget.maxUnavailable null (unset: minAvailable applies)"; }
grep -q '^  minAvailable: 1$' "$tmp/pdb-null.yaml" || { cat "$tmp/pdb-null.yaml" >&2; fail "podDisruptionBudget.maxUnavailable null does not leave minAvailable 1"; }
"$HELM" template eventapi "$chart" "${pdb3[@]}" --set podDisruptionBudget.minAvailable=null --set podDisruptionBudget.maxUnavailable=1 >"$tmp/pdb-null.yaml" ||
  fail "helm template with podDisruptionBudget.minAvailable null and maxUnavailable 1"
grep -q '^  maxUnavailable: 1$' "$tmp/pdb-null.yaml" && ! grep -q 'minAvailable' "$tmp/pdb-null.yaml" ||
  { cat "$tmp/pdb-null.yaml" >&2; fail "podDisruptionBudget.minAvailable null with maxUnavailable 1 does not render maxUnavailable 1 alone"; }
for unset in "minAvailable=null" "minAvailable=null,podDisruptionBudget.maxUnavailable=null"; do
  if "$HELM" template eventapi "$chart" "${pdb3[@]}" --set "podDisruptionBudget.$unset" >"$tmp/pdb-null.yaml" 2>"$tmp/bad.txt"; then
    cat "$tmp/pdb-null.yaml" >&2; fail "helm template accepted a budget with neither minAvailable nor maxUnavailable (podDisruptionBudget.$unset)"
  fi
  grep -q "podDisruptionBudget needs minAvailable or maxUnavailable" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "podDisruptionBudget.$unset was refused for another reason"; }
done
echo "chart:   a null budget field is unset; refused a budget with neither field" >&2

echo "chart: service accounts, Ingress hosts, the migration Job's pod and extra volumes" >&2
# The operator's ClusterRole reads and writes every Secret: never bound to
# the namespace's default ServiceAccount.
if "$HELM" template eventapi "$chart" --set operator.serviceAccount.create=false >"$tmp/sa.yaml" 2>"$tmp/bad.txt"; then
  grep -A3 '^subjects:' "$tmp/sa.yaml" >&2; fail "helm template accepted operator.serviceAccount.create=false without a name (the operator's RBAC went to the default ServiceAccount)"
fi
grep -q "operator.serviceAccount.name is required when operator.serviceAccount.create is false" "$tmp/bad.txt" ||
  { cat "$tmp/bad.txt" >&2; fail "operator.serviceAccount.create=false without a name was refused for another reason"; }
"$HELM" template eventapi "$chart" --namespace eventapi --set operator.serviceAccount.create=false --set operator.serviceAccount.name=eventapi-ops \
  --show-only templates/operator-rbac.yaml --show-only templates/operator-deployment.yaml >"$tmp/sa.yaml" ||
  fail "helm template with operator.serviceAccount.create=false and a name"
grep -A2 '^  - kind: ServiceAccount$' "$tmp/sa.yaml" | grep -q '^    name: eventapi-ops$' && grep -q '^      serviceAccountName: eventapi-ops$' "$tmp/sa.yaml" ||
  { cat "$tmp/sa.yaml" >&2; fail "operator.serviceAccount.name is not what the operator runs as and its RBAC binds"; }
if grep -qE '^ *(name|serviceAccountName): default$' "$tmp/sa.yaml"; then fail "the operator's RBAC or pods name the default ServiceAccount"; fi
# The API needs no permission and mounts no token: without create it may
# run as the namespace's default ServiceAccount.
"$HELM" template eventapi "$chart" --set serviceAccount.create=false --show-only templates/api-deployment.yaml >"$tmp/sa.yaml" ||
  fail "helm template refused serviceAccount.create=false for the API"
grep -q '^      serviceAccountName: default$' "$tmp/sa.yaml" && grep -q '^      automountServiceAccountToken: false$' "$tmp/sa.yaml" ||
  fail "the API without its own ServiceAccount does not run as default without a token"
echo "chart:   refused the operator on the default ServiceAccount; the API may use it, without a token" >&2
if "$HELM" template eventapi "$chart" --set ingress.enabled=true --set-json 'ingress.hosts=[]' >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted ingress.enabled with no hosts (an Ingress with no rules and no backend)"
fi
grep -q "ingress.enabled needs at least one entry in ingress.hosts" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "an Ingress with no hosts was refused for another reason"; }
if "$HELM" template eventapi "$chart" --set ingress.enabled=true --set-json 'ingress.hosts=[{"host":"api.example.com","paths":[]}]' >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted an Ingress host with no paths"
fi
grep -q "ingress.hosts\[0\] (api.example.com) has no paths" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "an Ingress host with no paths was refused for another reason"; }
echo "chart:   refused an Ingress with no hosts, or a host with no paths" >&2
# The hook Job's pod: the API pods' scheduling and priority, the extra
# volumes, and annotations of its own (an injected sidecar never exits and
# hangs every install and upgrade). The same render is dry-run below.
pod_settings="$chart/testdata/pod-settings.yaml"
"$HELM" template eventapi "$chart" --namespace eventapi -f "$pod_settings" >"$tmp/pod-settings.yaml" 2>"$tmp/bad.txt" ||
  { cat "$tmp/bad.txt" >&2; fail "helm template with $pod_settings"; }
"$HELM" template eventapi "$chart" --namespace eventapi -f "$pod_settings" --show-only templates/migration-job.yaml >"$tmp/job.yaml" ||
  fail "helm template of the migration Job with $pod_settings"
for want in '^      annotations:$' '^        sidecar.istio.io/inject: "false"$' '^      priorityClassName: eventapi-high$' '^      nodeSelector:$' '^        pool: general$' \
  '^      affinity:$' '- key: kubernetes.io/arch$' '^      tolerations:$' 'key: dedicated$' \
  '^          volumeMounts:$' 'mountPath: /etc/eventapi/db-ca$' '^      volumes:$' 'secretName: eventapi-db-ca$'; do
  grep -qE -- "$want" "$tmp/job.yaml" || { cat "$tmp/job.yaml" >&2; fail "the migration Job's pod lacks '$want' ($pod_settings)"; }
done
# The API's pod annotations stay the API's.
"$HELM" template eventapi "$chart" --set podAnnotations.only-api=x --show-only templates/migration-job.yaml >"$tmp/job.yaml" || fail "helm template with podAnnotations"
if grep -q 'only-api' "$tmp/job.yaml"; then fail "the API's podAnnotations reach the migration Job"; fi
# It runs as migrations.serviceAccountName when set, else as default.
if grep -q '^ *serviceAccountName:' "$tmp/job.yaml"; then fail "the migration Job names a ServiceAccount by default"; fi
"$HELM" template eventapi "$chart" --set migrations.serviceAccountName=eventapi-migrator --show-only templates/migration-job.yaml >"$tmp/job.yaml" ||
  fail "helm template with migrations.serviceAccountName"
grep -q '^      serviceAccountName: eventapi-migrator$' "$tmp/job.yaml" && grep -q '^      automountServiceAccountToken: false$' "$tmp/job.yaml" ||
  { cat "$tmp/job.yaml" >&2; fail "the migration Job does not run as migrations.serviceAccountName without a token"; }
# The CA file is mounted in the API, the Job and the operator (each connects
# with the database URL that names it), beside the API's own /tmp.
[ "$(grep -c 'mountPath: /etc/eventapi/db-ca$' "$tmp/pod-settings.yaml")" = 3 ] && [ "$(grep -c 'secretName: eventapi-db-ca$' "$tmp/pod-settings.yaml")" = 3 ] ||
  fail "extraVolumes/extraVolumeMounts and operator.extraVolumes/extraVolumeMounts are not each rendered once in the API, the Job and the operator"
grep -q 'mountPath: /tmp$' "$tmp/pod-settings.yaml" || fail "extraVolumeMounts replaced the API's /tmp"
if "$HELM" template eventapi "$chart" --set 'extraVolumes[0].name=tmp' --set 'extraVolumes[0].emptyDir.medium=Memory' >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted an extra volume named tmp (the chart's own)"
fi
grep -q "extraVolumes must not name a volume tmp" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "an extra volume named tmp was refused for another reason"; }
echo "chart:   the migration Job gets its pod annotations, its ServiceAccount and the API's scheduling, priority and extra volumes; the CA mount reaches all three" >&2

echo "chart: the dashboard reads this release's service only" >&2
"$HELM" template eventapi "$chart" --set otel.serviceName=rentals-api >"$tmp/dash.yaml" || fail "helm template with otel.serviceName"
grep -qF 'label_values(target_info{service_name=\"rentals-api\"}, namespace)' "$tmp/dash.yaml" ||
  fail "the dashboard's namespace variable does not select otel.serviceName's namespaces"
grep -qF 'label_values(target_info{service_name=\"rentals-api\", namespace=~\"$namespace\"}, job)' "$tmp/dash.yaml" ||
  fail "the dashboard's job variable does not select otel.serviceName's jobs in the chosen namespaces"
if grep -qE '__EVENTAPI_SERVICE_NAME__|"allValue": "\.\*"' "$tmp/dash.yaml"; then
  fail "the dashboard keeps its placeholder or an All that matches every job"
fi

echo "chart: the alerting rules select this release's scrape jobs" >&2
grep -q '^kind: PrometheusRule' "$tmp/production.yaml" || fail "production values render no PrometheusRule"
for want in 'job="eventapi-metrics", namespace="eventapi"' 'job="eventapi-operator-metrics", namespace="eventapi"' 'team: rentals' 'severity: critical'; do
  grep -qF "$want" "$tmp/production.yaml" || fail "the PrometheusRule lacks '$want'"
done
if grep -qE '__API__|__OPERATOR__' "$tmp/production.yaml"; then fail "the PrometheusRule keeps a placeholder"; fi
"$HELM" template eventapi "$chart" --namespace eventapi --api-versions monitoring.coreos.com/v1 --set metrics.prometheusRule.enabled=true \
  --set operator.enabled=false --set 'metrics.prometheusRule.apiSelector=job="api"' >"$tmp/rules-no-operator.yaml" ||
  fail "helm template with the rules and no operator"
if grep -qE 'eventapi\.operator|Operator' "$tmp/rules-no-operator.yaml"; then fail "the operator's alerts are rendered without the operator"; fi
grep -qF 'up{job="api"} == 0' "$tmp/rules-no-operator.yaml" || fail "metrics.prometheusRule.apiSelector is not used"
# A selector holding YAML's own characters reaches every expression intact.
"$HELM" template eventapi "$chart" --namespace eventapi --api-versions monitoring.coreos.com/v1 --set metrics.prometheusRule.enabled=true \
  --set operator.enabled=false --set 'metrics.prometheusRule.apiSelector=job=~"a: b #c"' >"$tmp/rules-odd.yaml" ||
  fail "helm template with a selector holding ': ' and ' #'"
# (Long expressions are folded over lines: count on the text unfolded.)
want=$(grep -v '^ *#' "$chart/alerts/eventapi.rules.yaml" | grep -o '__API__' | wc -l)
got=$(tr '\n' ' ' <"$tmp/rules-odd.yaml" | tr -s ' ' | grep -oF 'job=~"a: b #c"' | wc -l)
[ "$got" = "$want" ] || fail "the rules hold the odd selector $got times, want $want (one per __API__)"
# Every alert names the release's namespace, aggregates and absent() too.
[ "$(grep -c '^        - alert: ' "$tmp/production.yaml")" = "$(grep -c '^            namespace: eventapi$' "$tmp/production.yaml")" ] ||
  fail "an alert lacks the release's namespace label"
if "$HELM" template eventapi "$chart" --api-versions monitoring.coreos.com/v1 --set metrics.prometheusRule.enabled=true >/dev/null 2>"$tmp/bad.txt"; then
  fail "helm template accepted alerting rules with neither the ServiceMonitors nor selectors"
fi
grep -q "selects the scrape jobs" "$tmp/bad.txt" || { cat "$tmp/bad.txt" >&2; fail "rules without ServiceMonitors were refused for another reason"; }
echo "chart:   rendered for the release's jobs and namespace, the operator's group only with the operator; refused with no job to select" >&2

echo "chart: network policies" >&2
if grep -q '^kind: NetworkPolicy' "$tmp/default.yaml"; then fail "a NetworkPolicy is rendered by default"; fi
[ "$(grep -c '^kind: NetworkPolicy' "$tmp/production.yaml")" = 2 ] && grep -q 'kubernetes.io/metadata.name: ingress-nginx' "$tmp/production.yaml" ||
  fail "the production values do not render the API's and the operator's NetworkPolicies with their peers"
echo "chart:   none by default; the API's and the operator's with networkPolicy.enabled (dry-run below)" >&2

echo "chart: NOTES.txt" >&2
# helm template does not render NOTES.txt: a copy of the chart renders it
# inside a ConfigMap, as one JSON string (the notes are not YAML).
cp -r "$chart" "$tmp/notes-chart"
{ echo '{{- define "notes.body" }}'; cat "$chart/templates/NOTES.txt"; echo '{{- end }}'
  echo 'kind: ConfigMap'; echo 'data:'; echo '  notes: {{ include "notes.body" . | toJson }}'; } >"$tmp/notes-chart/templates/notes.yaml"
"$HELM" template eventapi "$tmp/notes-chart" --set replicaCount=2 --set redis.url='redis://eventapi-app@redis:6379/0' --set ingress.enabled=true \
  --set-json 'ingress.hosts=[{"host":"a.example.com","paths":[{"path":"/api","pathType":"Prefix"}]},{"host":"b.example.com","paths":[{"path":"/api","pathType":"Prefix"}]}]' \
  --set-json 'ingress.tls=[{"hosts":["a.example.com"],"secretName":"a-tls"}]' --show-only templates/notes.yaml >"$tmp/notes.txt" ||
  fail "NOTES.txt does not render"
if grep -q 'eventapi-app' "$tmp/notes.txt"; then fail "NOTES.txt prints the user info of redis.url"; fi
grep -q 'Redis at redis://redis:6379/0' "$tmp/notes.txt" && grep -q 'https://a.example.com/' "$tmp/notes.txt" && grep -q 'http://b.example.com/' "$tmp/notes.txt" &&
  grep -q 'kubectl apply --server-side --force-conflicts' "$tmp/notes.txt" ||
  { cat "$tmp/notes.txt" >&2; fail "NOTES.txt names Redis, the hosts' schemes or the CRD command wrongly"; }
echo "chart:   NOTES.txt hides Redis user info and gives https only to the hosts with TLS" >&2
# The connection budget without a pooler: 2 pods fit PostgreSQL's default
# 100 connections, an HPA of up to 10 (296) does not, PgBouncer needs no warning.
notes() { "$HELM" template eventapi "$tmp/notes-chart" --set redis.url=redis://redis:6379/0 "$@" --show-only templates/notes.yaml; }
notes --set replicaCount=2 | grep -q 'max_connections' && fail "NOTES.txt warns of the connections of 2 pods"
notes --set autoscaling.enabled=true | grep -q 'up to 296 PostgreSQL connections' ||
  { notes --set autoscaling.enabled=true >&2; fail "NOTES.txt does not warn that 10 pods may open 296 connections"; }
notes --set autoscaling.enabled=true --set database.pooler=transaction | grep -q 'max_connections' && fail "NOTES.txt warns of connections behind PgBouncer"
echo "chart:   NOTES.txt warns when the pods may open more connections than PostgreSQL's default 100" >&2

echo "chart: draining, disruption budget and scale-out settings" >&2
# Default: one replica, no budget, grace period = 5 s + 20 s + 10 s.
if grep -q '^kind: PodDisruptionBudget' "$tmp/default.yaml"; then fail "a PodDisruptionBudget is rendered for a single replica"; fi
grep -q 'terminationGracePeriodSeconds: 40$' "$tmp/default.yaml" || fail "default terminationGracePeriodSeconds is not drainDelay + shutdownTimeout + 15 s (40)"
"$HELM" template eventapi "$chart" --set replicaCount=2 --set redis.url=redis://redis:6379/0 >"$tmp/two.yaml" || fail "helm template with two replicas"
grep -q '^kind: PodDisruptionBudget' "$tmp/two.yaml" || fail "no PodDisruptionBudget by default with two replicas"
grep -q '^  unhealthyPodEvictionPolicy: AlwaysAllow$' "$tmp/two.yaml" || fail "the PodDisruptionBudget keeps unready pods from eviction (a database outage would block node drains)"
for want in 'maxUnavailable: 0' 'path: /livez' 'path: /readyz' 'name: EVENTAPI_DRAIN_DELAY' 'name: EVENTAPI_WEBHOOK_WORKERS'; do
  grep -q "$want" "$tmp/default.yaml" || fail "the default rendering lacks '$want'"
done
for want in 'value: "transaction"' 'name: EVENTAPI_MIGRATE_DATABASE_URL' 'value: "redis+cluster://' '^kind: PodDisruptionBudget'; do
  grep -q "$want" "$tmp/production.yaml" || fail "the production rendering lacks '$want'"
done

# The Ingress routes the public API only: the probes share its port.
awk '/^kind: Ingress/{i=1} /^kind: /&&!/Ingress/{i=0} i&&/- path: /{print $3}' "$tmp/production.yaml" >"$tmp/ingress-paths.txt"
[ "$(cat "$tmp/ingress-paths.txt")" = "/api" ] || { cat "$tmp/ingress-paths.txt" >&2; fail "the production Ingress routes more than /api (the probes would be public)"; }
echo "chart:   the Ingress routes /api only" >&2

echo "chart: the operator's rollout and probes" >&2
# Without leader election two operators would reconcile together while a
# rolling update runs both: the old one must stop first.
"$HELM" template eventapi "$chart" --namespace eventapi --set operator.leaderElection=false \
  --show-only templates/operator-deployment.yaml >"$tmp/operator-no-election.yaml" || fail "helm template with operator.leaderElection=false"
grep -A1 '^  strategy:$' "$tmp/operator-no-election.yaml" | grep -q '^    type: Recreate$' ||
  fail "the operator Deployment does not use the Recreate strategy without leader election"
"$HELM" template eventapi "$chart" --namespace eventapi --show-only templates/operator-deployment.yaml >"$tmp/operator.yaml" ||
  fail "helm template of the operator Deployment"
if grep -q 'type: Recreate' "$tmp/operator.yaml"; then fail "the operator Deployment uses Recreate with leader election"; fi
# Its /readyz pings PostgreSQL with a 2 s timeout: the probe must wait longer.
awk '/^          readinessProbe:/{r=1; next} r && /^          [a-z]/{r=0} r && /timeoutSeconds:/{print $2}' "$tmp/operator.yaml" >"$tmp/operator-ready-timeout.txt"
[ "$(cat "$tmp/operator-ready-timeout.txt")" -gt 2 ] 2>/dev/null ||
  fail "the operator's readiness probe timeout ($(cat "$tmp/operator-ready-timeout.txt")) does not exceed its 2 s database ping"
# It opens its probes only once the database is open, which it waits for
# (since 2.8.6): a startup probe with probes.startup's bounds must come first.
awk '/^          startupProbe:/{r=1; next} r && /^          [a-z]/{r=0} r && /failureThreshold:/{print $2}' "$tmp/operator.yaml" >"$tmp/operator-startup.txt"
[ "$(cat "$tmp/operator-startup.txt")" = "30" ] ||
  fail "the operator has no startup probe with probes.startup.failureThreshold (got '$(cat "$tmp/operator-startup.txt")')"
echo "chart:   Recreate without leader election, a rolling update with it; readiness waits past the 2 s ping; a startup probe covers the wait for the database" >&2

echo "chart: server-side dry-run against a real kube-apiserver" >&2
go run ./operator/chartcheck \
  --crds "$chart/crds" --crds operator/chartcheck/testdata/servicemonitor-crd.yaml \
  --crds operator/chartcheck/testdata/prometheusrule-crd.yaml \
  --operator-role operator/config/rbac/role.yaml \
  --must-fail operator/chartcheck/testdata/invalid-objects.yaml \
  "$tmp/default.yaml" "$tmp/production.yaml" "$tmp/pod-settings.yaml"
echo "chart: all checks passed" >&2
