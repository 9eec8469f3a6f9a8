{{/*
Expand the name of the chart.
*/}}
{{- define "eventapi.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
If release name contains chart name it will be used as a full name.
*/}}
{{- define "eventapi.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The full name with a suffix, within the 63 characters of a Service or Job
name. A name too long for both is cut and gets 8 characters of a hash of
the whole name before the suffix, so two long release names that share
their first characters still name different objects; the suffix is never
cut. Call with (dict "ctx" $ "suffix" "-operator").
*/}}
{{- define "eventapi.suffixed" -}}
{{- $full := include "eventapi.fullname" .ctx -}}
{{- if le (add (len $full) (len .suffix)) 63 -}}
{{- printf "%s%s" $full .suffix -}}
{{- else -}}
{{- printf "%s-%s%s" ($full | trunc (int (sub 54 (len .suffix))) | trimSuffix "-") (sha256sum $full | trunc 8) .suffix -}}
{{- end -}}
{{- end }}

{{/*
Name of the operator's objects (Deployment, Service, ServiceAccount, RBAC).
*/}}
{{- define "eventapi.operatorFullname" -}}
{{- include "eventapi.suffixed" (dict "ctx" . "suffix" "-operator") }}
{{- end }}

{{/*
Name of the operator's cluster-scoped RBAC (ClusterRole, ClusterRoleBinding):
the operator's name prefixed with the release's namespace, so that releases
of one name in several namespaces do not claim the same object (helm refuses
the second install). RBAC names may be 253 characters long: a namespace (63)
and a name (63) fit.
*/}}
{{- define "eventapi.operatorClusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "eventapi.operatorFullname" .) }}
{{- end }}

{{/*
Names of the metrics Services (eventapi.suffixed).
*/}}
{{- define "eventapi.metricsServiceName" -}}
{{- include "eventapi.suffixed" (dict "ctx" . "suffix" "-metrics") }}
{{- end }}
{{- define "eventapi.operatorMetricsServiceName" -}}
{{- include "eventapi.suffixed" (dict "ctx" . "suffix" "-operator-metrics") }}
{{- end }}

{{/*
Name of the migration Job.
*/}}
{{- define "eventapi.migrationFullname" -}}
{{- include "eventapi.suffixed" (dict "ctx" . "suffix" "-migrate") }}
{{- end }}

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "eventapi.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels
*/}}
{{- define "eventapi.labels" -}}
helm.sh/chart: {{ include "eventapi.chart" . }}
{{ include "eventapi.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: eventapi
{{- end }}

{{/*
Selector labels
*/}}
{{- define "eventapi.selectorLabels" -}}
app.kubernetes.io/name: {{ include "eventapi.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels and selector labels of one component: call with (dict "ctx" $ "component" "api").
*/}}
{{- define "eventapi.componentLabels" -}}
{{ include "eventapi.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "eventapi.componentSelectorLabels" -}}
{{ include "eventapi.selectorLabels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Create the name of the service account to use
*/}}
{{- define "eventapi.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "eventapi.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The operator's ServiceAccount. Without create, a name is required
(eventapi.validate): the operator's ClusterRole or Roles, which read and
write Secrets, must never be bound to the namespace's default
ServiceAccount. The API's may fall back to default: the chart binds no
role to it and mounts no token by default.
*/}}
{{- define "eventapi.operatorServiceAccountName" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (include "eventapi.operatorFullname" .) .Values.operator.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image (one image holds both binaries).
*/}}
{{- define "eventapi.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
EVENTAPI_DATABASE_URL from the existing Secret.
*/}}
{{- define "eventapi.databaseEnv" -}}
- name: EVENTAPI_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret | quote }}
      key: {{ .Values.database.secretKey | quote }}
{{- end }}

{{/*
The whole environment of the API: the chart's own variables, then extraEnv.
*/}}
{{- define "eventapi.apiEnv" -}}
{{ include "eventapi.chartEnv" . }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The environment of the migration Job before eventapi.migrateEnv: the API's
without EVENTAPI_REDIS_URL, which `eventapi migrate` never reads (it
connects to PostgreSQL only), so a Redis URL reaches no pod that does not
use it (docs/helm.md, "Secrets").
*/}}
{{- define "eventapi.jobEnv" -}}
{{ include "eventapi.databaseEnv" . }}
{{ include "eventapi.settingsEnv" . }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The variables the chart sets itself in the API container (and, but for
EVENTAPI_REDIS_URL, the migration Job), from values. extraEnv may not
repeat one of them (eventapi.validate): Kubernetes takes the last of two
entries, so the extraEnv one would win while the chart computes
terminationGracePeriodSeconds and its checks from the values.
*/}}
{{- define "eventapi.chartEnv" -}}
{{ include "eventapi.databaseEnv" . }}{{ include "eventapi.redisEnv" . }}
{{ include "eventapi.settingsEnv" . }}
{{- end }}

{{/*
EVENTAPI_REDIS_URL, from the existing Secret or else redis.url (which the
schema keeps free of passwords); nothing without either. It begins with a
newline when set.
*/}}
{{- define "eventapi.redisEnv" -}}
{{- if .Values.redis.existingSecret }}
- name: EVENTAPI_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.existingSecret | quote }}
      key: {{ .Values.redis.secretKey | quote }}
{{- else if .Values.redis.url }}
- name: EVENTAPI_REDIS_URL
  value: {{ .Values.redis.url | quote }}
{{- end }}
{{- end }}

{{/*
The chart's variables of the API and the migration Job other than the
database and Redis URLs.
*/}}
{{- define "eventapi.settingsEnv" -}}
- name: EVENTAPI_DATABASE_POOLER
  value: {{ .Values.database.pooler | quote }}
- name: EVENTAPI_DRAIN_DELAY
  value: {{ .Values.config.drainDelay | quote }}
- name: EVENTAPI_ADDR
  value: ":8080"
- name: EVENTAPI_LOG_LEVEL
  value: {{ .Values.config.logLevel | quote }}
- name: EVENTAPI_RATE_WINDOW
  value: {{ .Values.config.rateWindow | quote }}
- name: EVENTAPI_V1_RATE_LIMIT
  value: {{ int64 .Values.config.v1RateLimit | toString | quote }}
- name: EVENTAPI_V2_RATE_LIMIT
  value: {{ int64 .Values.config.v2RateLimit | toString | quote }}
- name: EVENTAPI_DB_MAX_CONNS
  value: {{ int64 .Values.config.dbMaxConns | toString | quote }}
{{- if .Values.config.largeReads }}
- name: EVENTAPI_LARGE_READS
  value: {{ int64 .Values.config.largeReads | toString | quote }}
{{- end }}
- name: EVENTAPI_SHUTDOWN_TIMEOUT
  value: {{ .Values.config.shutdownTimeout | quote }}
- name: EVENTAPI_REQUEST_TIMEOUT
  value: {{ .Values.config.requestTimeout | quote }}
- name: EVENTAPI_METRICS_ADDR
  value: {{ printf ":%v" .Values.metrics.port | quote }}
- name: EVENTAPI_REQUEST_LOG_RETENTION
  value: {{ .Values.config.requestLogRetention | quote }}
- name: EVENTAPI_REQUEST_LOG_BUFFER
  value: {{ int64 .Values.config.requestLogBuffer | toString | quote }}
- name: EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL
  value: {{ .Values.config.requestLogFlushInterval | quote }}
{{- if .Values.config.trustedProxies }}
- name: EVENTAPI_TRUSTED_PROXIES
  value: {{ join "," .Values.config.trustedProxies | quote }}
{{- end }}
- name: EVENTAPI_WEBHOOK_WORKERS
  value: {{ int64 .Values.webhooks.workers | toString | quote }}
- name: EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY
  value: {{ int64 .Values.webhooks.endpointConcurrency | toString | quote }}
- name: EVENTAPI_WEBHOOK_POLL_INTERVAL
  value: {{ .Values.webhooks.pollInterval | quote }}
- name: EVENTAPI_WEBHOOK_ALLOW_PRIVATE
  value: {{ .Values.webhooks.allowPrivate | quote }}
{{- if .Values.config.v1Sunset }}
- name: EVENTAPI_V1_SUNSET
  value: {{ .Values.config.v1Sunset | quote }}
{{- end }}
{{ include "eventapi.otelEnv" . }}
{{- end }}

{{/*
What the migration Job gets after eventapi.jobEnv.
*/}}
{{- define "eventapi.migrateEnv" -}}
{{- if .Values.database.migrationSecret -}}
# A direct connection for DDL, bypassing the transaction pooler.
- name: EVENTAPI_MIGRATE_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.migrationSecret | quote }}
      key: {{ .Values.database.migrationSecretKey | quote }}
{{- end }}
{{- end }}

{{/*
For each variable of eventapi.chartEnv and eventapi.migrateEnv, what to set
instead of an extraEnv entry of that name (the refusal's message). A
variable the chart renders but this list lacks makes the chart fail, and
the chart check renders every optional one (testdata/every-env.yaml).
*/}}
{{- define "eventapi.chartEnvAdvice" -}}
EVENTAPI_DATABASE_URL: set database.existingSecret and database.secretKey instead
EVENTAPI_REDIS_URL: set redis.existingSecret (and redis.secretKey) or redis.url instead
EVENTAPI_DATABASE_POOLER: set database.pooler instead
EVENTAPI_MIGRATE_DATABASE_URL: set database.migrationSecret and database.migrationSecretKey instead
EVENTAPI_DRAIN_DELAY: set config.drainDelay instead (terminationGracePeriodSeconds is computed from it)
EVENTAPI_ADDR: "the API listens on :8080, the port its probes, Services and Ingress use; it cannot be changed"
EVENTAPI_LOG_LEVEL: set config.logLevel instead
EVENTAPI_RATE_WINDOW: set config.rateWindow instead
EVENTAPI_V1_RATE_LIMIT: set config.v1RateLimit instead
EVENTAPI_V2_RATE_LIMIT: set config.v2RateLimit instead
EVENTAPI_DB_MAX_CONNS: set config.dbMaxConns instead
EVENTAPI_LARGE_READS: set config.largeReads instead
EVENTAPI_SHUTDOWN_TIMEOUT: set config.shutdownTimeout instead (terminationGracePeriodSeconds is computed from it)
EVENTAPI_REQUEST_TIMEOUT: set config.requestTimeout instead
EVENTAPI_METRICS_ADDR: set metrics.port instead (the metrics Service and ServiceMonitor use it)
EVENTAPI_REQUEST_LOG_RETENTION: set config.requestLogRetention instead
EVENTAPI_REQUEST_LOG_BUFFER: set config.requestLogBuffer instead
EVENTAPI_REQUEST_LOG_FLUSH_INTERVAL: set config.requestLogFlushInterval instead
EVENTAPI_TRUSTED_PROXIES: set config.trustedProxies instead
EVENTAPI_WEBHOOK_WORKERS: set webhooks.workers instead
EVENTAPI_WEBHOOK_ENDPOINT_CONCURRENCY: set webhooks.endpointConcurrency instead
EVENTAPI_WEBHOOK_POLL_INTERVAL: set webhooks.pollInterval instead
EVENTAPI_WEBHOOK_ALLOW_PRIVATE: set webhooks.allowPrivate instead
EVENTAPI_V1_SUNSET: set config.v1Sunset instead
OTEL_SERVICE_NAME: set otel.serviceName instead (the dashboard selects it)
OTEL_EXPORTER_OTLP_ENDPOINT: set otel.endpoint instead
OTEL_EXPORTER_OTLP_PROTOCOL: set otel.protocol instead
OTEL_TRACES_SAMPLER: set otel.tracesSampler instead
OTEL_TRACES_SAMPLER_ARG: set otel.tracesSamplerArg instead
OTEL_RESOURCE_ATTRIBUTES: set otel.resourceAttributes instead
OTEL_SDK_DISABLED: set otel.sdkDisabled instead
{{- end }}

{{/*
OTEL_* variables; empty values are left out (the SDK defaults apply).
*/}}
{{- define "eventapi.otelEnv" -}}
- name: OTEL_SERVICE_NAME
  value: {{ .Values.otel.serviceName | quote }}
{{- range $name, $value := dict "OTEL_EXPORTER_OTLP_ENDPOINT" .Values.otel.endpoint "OTEL_EXPORTER_OTLP_PROTOCOL" .Values.otel.protocol "OTEL_TRACES_SAMPLER" .Values.otel.tracesSampler "OTEL_TRACES_SAMPLER_ARG" .Values.otel.tracesSamplerArg "OTEL_RESOURCE_ATTRIBUTES" .Values.otel.resourceAttributes }}
{{- if $value }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}
{{- if .Values.otel.sdkDisabled }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- end }}
{{- end }}

{{/*
Refuse configurations that cannot work.
*/}}
{{- define "eventapi.validate" -}}
{{- if not .Values.database.existingSecret }}
{{- fail "database.existingSecret is required: the name of a Secret holding the PostgreSQL URL (key database.secretKey)" }}
{{- end }}
{{- if and (or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled) (not .Values.redis.existingSecret) (not .Values.redis.url) }}
{{- fail "replicaCount > 1 or autoscaling.enabled needs Redis: set redis.existingSecret or redis.url (without Redis, rate limits and idempotency are per pod, so they would be wrong)" }}
{{- end }}
{{- $stop := include "eventapi.stopSeconds" . | int }}
{{- if and (not (kindIs "invalid" .Values.terminationGracePeriodSeconds)) (lt (int .Values.terminationGracePeriodSeconds) $stop) }}
{{- fail (printf "terminationGracePeriodSeconds (%v) must cover config.drainDelay plus config.shutdownTimeout plus %d s after the drain (%d s), or Kubernetes kills pods before they have stopped" .Values.terminationGracePeriodSeconds (include "eventapi.afterDrainSeconds" . | int) $stop) }}
{{- end }}
{{- if include "eventapi.pdbEnabled" . }}
{{- $pdb := .Values.podDisruptionBudget }}
{{- $replicas := ternary .Values.autoscaling.minReplicas .Values.replicaCount .Values.autoscaling.enabled | int }}
{{- $maxSet := include "eventapi.isSet" $pdb.maxUnavailable }}
{{- $minSet := include "eventapi.isSet" $pdb.minAvailable }}
{{- if and $maxSet (not (kindIs "string" $pdb.maxUnavailable)) (eq (int $pdb.maxUnavailable) 0) }}
{{- fail "podDisruptionBudget.maxUnavailable 0 lets no pod be evicted, so every node drain blocks; leave it empty or set at least 1" }}
{{- end }}
{{- if and (not $maxSet) (not $minSet) }}
{{- fail "podDisruptionBudget needs minAvailable or maxUnavailable: both are empty, and a budget with neither protects no pod; set one of them (minAvailable: 1, or maxUnavailable: 1), or podDisruptionBudget.enabled: false" }}
{{- end }}
{{- if and (not $maxSet) (not (kindIs "string" $pdb.minAvailable)) (ge (int $pdb.minAvailable) $replicas) }}
{{- fail (printf "podDisruptionBudget.minAvailable (%v) must be below the replica count (%d), or no pod can be evicted and every node drain blocks" $pdb.minAvailable $replicas) }}
{{- end }}
{{- /* Kubernetes rounds a percentage minAvailable up: 67% of 3 pods is 3. */}}
{{- if and (not $maxSet) (kindIs "string" $pdb.minAvailable) (hasSuffix "%" $pdb.minAvailable) }}
{{- $kept := div (add (mul (trimSuffix "%" $pdb.minAvailable | int) $replicas) 99) 100 }}
{{- if ge (int $kept) $replicas }}
{{- fail (printf "podDisruptionBudget.minAvailable (%s) keeps %d of %d pods (Kubernetes rounds it up), so no pod can be evicted and every node drain blocks; set a lower percentage or a number below the replica count" $pdb.minAvailable (int $kept) $replicas) }}
{{- end }}
{{- end }}
{{- end }}
{{- if eq (int .Values.metrics.port) 8080 }}
{{- fail "metrics.port must not be 8080, the API's own port" }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail "autoscaling.minReplicas must not exceed autoscaling.maxReplicas" }}
{{- end }}
{{- if .Values.autoscaling.enabled }}
{{- /* A utilization target is a share of the container's request (its limit when only that is set): without either the HPA reports "missing request" and never scales. */}}
{{- $res := .Values.resources | default dict }}
{{- $requests := $res.requests | default dict }}
{{- $limits := $res.limits | default dict }}
{{- if not (or $requests.cpu $limits.cpu) }}
{{- fail "autoscaling.enabled needs resources.requests.cpu: the HPA's CPU target is a share of it, and without it the HPA never scales" }}
{{- end }}
{{- if and .Values.autoscaling.targetMemoryUtilizationPercentage (not (or $requests.memory $limits.memory)) }}
{{- fail "autoscaling.targetMemoryUtilizationPercentage needs resources.requests.memory: the target is a share of it, and without it the HPA never scales" }}
{{- end }}
{{- end }}
{{- $own := include "eventapi.chartEnv" . | fromYamlArray }}
{{- if .Values.migrations.enabled }}
{{- range include "eventapi.migrateEnv" . | fromYamlArray }}
{{- $own = append $own . }}
{{- end }}
{{- end }}
{{- /* The URLs of secrets are refused whether rendered this time or not:
from extraEnv they would reach the migration Job, unseen by the chart's
checks and its notes (docs/helm.md, "Secrets"). */}}
{{- range $name := list "EVENTAPI_REDIS_URL" "EVENTAPI_MIGRATE_DATABASE_URL" }}
{{- $own = append $own (dict "name" $name) }}
{{- end }}
{{- $advice := include "eventapi.chartEnvAdvice" . | fromYaml }}
{{- range $own }}
{{- if not (hasKey $advice .name) }}
{{- fail (printf "chart bug: eventapi.chartEnvAdvice lacks %s, which the chart renders" .name) }}
{{- end }}
{{- end }}
{{- range $e := .Values.extraEnv }}
{{- range $own }}
{{- if eq (toString $e.name) .name }}
{{- fail (printf "extraEnv must not set %s: it is the chart's to set, from its values, and of two entries Kubernetes keeps the last, unseen by the chart (terminationGracePeriodSeconds and the chart's checks read the values); %s" .name (get $advice .name)) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .Values.operator.enabled (not .Values.operator.serviceAccount.create) (not .Values.operator.serviceAccount.name) }}
{{- fail "operator.serviceAccount.name is required when operator.serviceAccount.create is false: name the existing ServiceAccount the operator runs as (it is bound to the operator's ClusterRole or Roles, which read and write Secrets), or set operator.serviceAccount.create: true; the chart never binds them to the namespace's default ServiceAccount" }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.hosts) }}
{{- fail "ingress.enabled needs at least one entry in ingress.hosts (a host and its paths, such as /api): an Ingress with no rules and no default backend is refused by the API server" }}
{{- end }}
{{- range $i, $h := .Values.ingress.hosts }}
{{- if not $h.paths }}
{{- fail (printf "ingress.hosts[%d] (%s) has no paths: give it at least one, such as /api (Prefix); an Ingress rule without paths is refused by the API server" $i (toString $h.host)) }}
{{- end }}
{{- end }}
{{- range .Values.extraVolumes }}
{{- if eq (toString .name) "tmp" }}
{{- fail "extraVolumes must not name a volume tmp: the chart mounts its own tmp volume (an emptyDir) at /tmp in the API pods" }}
{{- end }}
{{- end }}
{{- range .Values.extraVolumeMounts }}
{{- if or (eq (toString .name) "tmp") (eq (trimSuffix "/" (toString .mountPath)) "/tmp") }}
{{- fail "extraVolumeMounts must not use the volume tmp or the path /tmp: the chart mounts its own emptyDir there in the API pods" }}
{{- end }}
{{- end }}
{{- if and .Values.operator.enabled (gt (int .Values.operator.replicaCount) 1) (not .Values.operator.leaderElection) }}
{{- fail "operator.replicaCount > 1 needs operator.leaderElection: true" }}
{{- end }}
{{- end }}

{{/*
The operator's permissions on what it reconciles. Keep in step with
operator/config/rbac/role.yaml (generated from the controllers' rbac
markers); the chart check compares them. They come in two parts: on its own
resources (ApiKeys, SandboxOrganizations), and on what it writes beside them
(Secrets, events). With operator.watchNamespaces the first part is still
granted cluster-wide and the second per namespace: deleting a watched
namespace deletes its RoleBinding with no order against the ApiKeys'
finalizers, and the operator must still see the deletions, revoke the keys
and take its finalizers off (docs/helm.md, "Watched namespaces").
*/}}
{{- define "eventapi.operatorRules" -}}
{{ include "eventapi.operatorResourceRules" . }}
{{ include "eventapi.operatorNamespacedRules" . }}
{{- end }}

{{- define "eventapi.operatorResourceRules" -}}
- apiGroups: ["eventapi.io"]
  resources: ["apikeys", "sandboxorganizations"]
  verbs: ["get", "list", "patch", "watch"]
- apiGroups: ["eventapi.io"]
  resources: ["apikeys/finalizers", "sandboxorganizations/finalizers"]
  verbs: ["update"]
- apiGroups: ["eventapi.io"]
  resources: ["apikeys/status", "sandboxorganizations/status"]
  verbs: ["get", "patch", "update"]
{{- end }}

{{- define "eventapi.operatorNamespacedRules" -}}
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "delete", "get", "list", "update", "watch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/*
Whole seconds in a Go duration such as 5s, 1m30s or 1500ms (rounded up), for
the arithmetic of terminationGracePeriodSeconds.
*/}}
{{- define "eventapi.durationSeconds" -}}
{{- $ms := 0.0 -}}
{{- range regexFindAll "[0-9.]+(ns|us|µs|ms|s|m|h)" (toString .) -1 -}}
{{- $n := regexFind "^[0-9.]+" . | float64 -}}
{{- $unit := trimPrefix (regexFind "^[0-9.]+" .) . -}}
{{- $factor := dict "ns" 0.000001 "us" 0.001 "µs" 0.001 "ms" 1.0 "s" 1000.0 "m" 60000.0 "h" 3600000.0 -}}
{{- $ms = addf $ms (mulf $n (get $factor $unit)) -}}
{{- end -}}
{{- ceil (divf $ms 1000.0) | int -}}
{{- end }}

{{/*
The seconds a pod may need after the HTTP drain: up to 3 s for requests
cancelled at the shutdown timeout to end, then up to 10 s for the webhook
attempts still in flight to be recorded or handed back, while the request
log and the keys' last use are flushed (up to 5 s each, at the same time:
Service.Close), then up to 2 s for the last spans and OTLP metrics to leave.
*/}}
{{- define "eventapi.afterDrainSeconds" -}}15{{- end }}

{{/*
The seconds a pod may need to stop: the drain delay, the shutdown timeout
and what follows the drain (eventapi.afterDrainSeconds).
*/}}
{{- define "eventapi.stopSeconds" -}}
{{- add (include "eventapi.durationSeconds" .Values.config.drainDelay | int) (include "eventapi.durationSeconds" .Values.config.shutdownTimeout | int) (include "eventapi.afterDrainSeconds" . | int) -}}
{{- end }}

{{/*
The pod's terminationGracePeriodSeconds: the value when set, else
eventapi.stopSeconds.
*/}}
{{- define "eventapi.terminationGracePeriodSeconds" -}}
{{- if kindIs "invalid" .Values.terminationGracePeriodSeconds -}}
{{- include "eventapi.stopSeconds" . -}}
{{- else -}}
{{- .Values.terminationGracePeriodSeconds -}}
{{- end -}}
{{- end }}

{{/*
"true" when a value is set: neither null (or left out) nor "". Call with the
value itself, such as (include "eventapi.isSet" .Values.podDisruptionBudget.maxUnavailable).
*/}}
{{- define "eventapi.isSet" -}}
{{- if not (or (kindIs "invalid" .) (eq (toString .) "")) }}true{{ end -}}
{{- end }}

{{/*
Whether the API gets a PodDisruptionBudget: as set, or by default whenever
more than one replica runs.
*/}}
{{- define "eventapi.pdbEnabled" -}}
{{- $pdb := .Values.podDisruptionBudget.enabled -}}
{{- if kindIs "invalid" $pdb -}}
{{- if .Values.autoscaling.enabled -}}
{{- if gt (int .Values.autoscaling.minReplicas) 1 }}true{{ end -}}
{{- else if gt (int .Values.replicaCount) 1 }}true{{ end -}}
{{- else if $pdb }}true{{ end -}}
{{- end }}
