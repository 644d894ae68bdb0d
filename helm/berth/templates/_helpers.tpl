{{/* Named templates of the berth chart: names, labels, the Lease name, the config file, checks. */}}

{{/* The chart name (nameOverride wins), cut to 63 characters. */}}
{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: fullnameOverride, else RELEASE-NAME (just RELEASE when the
release name already contains the chart name), cut to 63 characters (a DNS label).
*/}}
{{- define "berth.fullname" -}}
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

{{/* chart-version for the helm.sh/chart label. */}}
{{- define "berth.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The labels that pick this release's berth pods (Deployment selector, Service, PDB, spread). */}}
{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels on every object the chart creates. */}}
{{- define "berth.labels" -}}
helm.sh/chart: {{ include "berth.chart" . }}
{{ include "berth.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/component: scheduler
app.kubernetes.io/part-of: berth
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The ServiceAccount berth runs as. */}}
{{- define "berth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "berth.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The scheduler name the chart is known by: the first profile's, else config.schedulerName. */}}
{{- define "berth.schedulerName" -}}
{{- if .Values.profiles }}
{{- (first .Values.profiles).schedulerName }}
{{- else }}
{{- .Values.config.schedulerName }}
{{- end }}
{{- end }}

{{/* The Lease's name: leaderElection.resourceName, else the scheduler name. */}}
{{- define "berth.leaseName" -}}
{{- default (include "berth.schedulerName" .) .Values.leaderElection.resourceName }}
{{- end }}

{{/* The image reference: repository@digest when a digest is set, else repository:tag. */}}
{{- define "berth.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
berth's configuration file (config.yaml in the ConfigMap), as `berth run --config` reads it:
berth's plain keys, or with `profiles` a KubeSchedulerConfiguration followed by a
BerthConfiguration document for berth's own keys (kube-scheduler would read the first only).
*/}}
{{- define "berth.configFile" -}}
{{- $le := .Values.leaderElection }}
{{- $election := dict
  "leaderElect" $le.leaderElect
  "leaseDuration" $le.leaseDuration
  "renewDeadline" $le.renewDeadline
  "retryPeriod" $le.retryPeriod
  "resourceName" (include "berth.leaseName" .)
  "resourceNamespace" .Release.Namespace }}
{{- if .Values.profiles }}
{{- $c := .Values.config }}
{{- $backoff := $c.backoff | default dict }}
{{- $kube := dict
  "apiVersion" "kubescheduler.config.k8s.io/v1"
  "kind" "KubeSchedulerConfiguration"
  "leaderElection" $election
  "profiles" .Values.profiles }}
{{- if hasKey $c "percentageOfNodesToScore" }}
{{- $_ := set $kube "percentageOfNodesToScore" $c.percentageOfNodesToScore }}
{{- end }}
{{- if $backoff.initialMs }}
{{- $_ := set $kube "podInitialBackoffSeconds" (div (int64 $backoff.initialMs) 1000) }}
{{- end }}
{{- if $backoff.maxMs }}
{{- $_ := set $kube "podMaxBackoffSeconds" (div (int64 $backoff.maxMs) 1000) }}
{{- end }}
{{- $own := dict "apiVersion" "berth/v1" "kind" "BerthConfiguration" }}
{{- range $key := list "maxParkedMs" "flushIntervalMs" }}
{{- if hasKey $c $key }}
{{- $_ := set $own $key (get $c $key) }}
{{- end }}
{{- end }}
{{- toYaml $kube }}
{{ print "---" }}
{{ toYaml $own }}
{{- else }}
{{- $config := deepCopy .Values.config }}
{{- $_ := set $config "leaderElection" $election }}
{{- toYaml $config }}
{{- end }}
{{- end }}

{{/* Fails the render on value combinations the schema cannot express. */}}
{{- define "berth.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.leaderElect) }}
{{- fail "replicaCount > 1 needs leaderElection.leaderElect: true (two leaders would both bind pods and overcommit nodes)" }}
{{- end }}
{{- $backoff := .Values.config.backoff | default dict }}
{{- if and $backoff.initialMs $backoff.maxMs (lt (int64 $backoff.maxMs) (int64 $backoff.initialMs)) }}
{{- fail "config.backoff.maxMs must be ≥ config.backoff.initialMs" }}
{{- end }}
{{- if .Values.profiles }}
{{- range $key := list "initialMs" "maxMs" }}
{{- $ms := get $backoff $key }}
{{- if and $ms (ne (mod (int64 $ms) 1000) (int64 0)) }}
{{- fail (printf "config.backoff.%s must be whole seconds with profiles (a KubeSchedulerConfiguration counts backoff in seconds)" $key) }}
{{- end }}
{{- end }}
{{- $names := list }}
{{- range $i, $p := .Values.profiles }}
{{- if has $p.schedulerName $names }}
{{- fail (printf "profiles[%d].schedulerName %q is already another profile's" $i $p.schedulerName) }}
{{- end }}
{{- $names = append $names $p.schedulerName }}
{{- end }}
{{- end }}
{{- end }}
