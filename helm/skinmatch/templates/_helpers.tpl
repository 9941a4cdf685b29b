{{/* Names, labels and the references every template shares. */}}

{{- define "skinmatch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every resource name: fullnameOverride, or release name + chart name (once). */}}
{{- define "skinmatch.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "skinmatch.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "skinmatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: call with (dict "ctx" $ "component" "core"). */}}
{{- define "skinmatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "skinmatch.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "skinmatch.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "skinmatch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "skinmatch.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Whether the chart creates its own Secret: for the database URL, the service's secrets, or both. */}}
{{- define "skinmatch.createSecret" -}}
{{- if or (not .Values.database.existingSecret) (not .Values.secrets.existingSecret) }}true{{ end }}
{{- end }}

{{- define "skinmatch.secretName" -}}
{{- default (include "skinmatch.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/* The database URL as an env entry, read from database.existingSecret or the chart's Secret. */}}
{{- define "skinmatch.databaseUrlEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- if .Values.database.existingSecret }}
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.existingSecretKey }}
      {{- else }}
      name: {{ include "skinmatch.fullname" . }}
      key: DATABASE_URL
      {{- end }}
{{- end }}

{{/* One key of the service's Secret as an env entry: call with (dict "ctx" $ "key" "TOKEN_PEPPER"). */}}
{{- define "skinmatch.secretEnv" -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "skinmatch.secretName" .ctx }}
      key: {{ .key }}
{{- end }}

{{/* What every container shares: security context, /tmp, the ConfigMap. */}}
{{- define "skinmatch.containerCommon" -}}
image: {{ include "skinmatch.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
securityContext:
  {{- toYaml .Values.pod.containerSecurityContext | nindent 2 }}
volumeMounts:
  - name: tmp
    mountPath: /tmp
{{- end }}

{{/* What every pod spec shares. */}}
{{- define "skinmatch.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ if kindIs "string" . }}{{ . }}{{ else }}{{ .name }}{{ end }}
  {{- end }}
{{- end }}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext:
  {{- toYaml .Values.pod.securityContext | nindent 2 }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ .Values.pod.tmpSizeLimit }}
{{- end }}

{{/* Scheduling values of one component: call with the component's values. */}}
{{- define "skinmatch.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Pod annotations that restart pods when the configuration or the chart's Secret changes. */}}
{{- define "skinmatch.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}

{{/*
The metrics port of one component's container (a ports entry), when metrics are on.
Called with (dict "ctx" $ "component" "core").
*/}}
{{- define "skinmatch.metricsPort" -}}
{{- if .ctx.Values.metrics.enabled }}
- name: metrics
  containerPort: {{ index .ctx.Values.metrics.ports .component }}
  protocol: TCP
{{- end }}
{{- end }}

{{/*
Prometheus's scrape annotations of one component's pods, when metrics and their annotations are on.
Called with (dict "ctx" $ "component" "core").
*/}}
{{- define "skinmatch.metricsAnnotations" -}}
{{- if and .ctx.Values.metrics.enabled .ctx.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ index .ctx.Values.metrics.ports .component | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end }}

{{/*
The NetworkPolicy ingress rule that lets the configured scrapers reach one component's metrics port.
Called with (dict "ctx" $ "component" "core").
*/}}
{{- define "skinmatch.metricsIngress" -}}
{{- $m := .ctx.Values.metrics }}
{{- if and $m.enabled (or $m.scrapeFrom.namespaceLabels $m.scrapeFrom.podLabels) }}
- ports:
    - port: metrics
      protocol: TCP
  from:
    - {{- with $m.scrapeFrom.namespaceLabels }}
      namespaceSelector:
        matchLabels:
          {{- toYaml . | nindent 10 }}
      {{- end }}
      {{- with $m.scrapeFrom.podLabels }}
      podSelector:
        matchLabels:
          {{- toYaml . | nindent 10 }}
      {{- end }}
{{- end }}
{{- end }}
