{{/*
  What values.schema.json cannot say: relations between values. Included by configmap.yaml, which every
  render contains, so a bad combination fails the install with one of these messages.
*/}}
{{- define "skinmatch.validate" -}}
{{- if ne (len .Values.oauth.identityProviders) 2 }}
{{- fail "oauth.identityProviders must list exactly two providers (production requires both)" }}
{{- end }}
{{- if and (not .Values.secrets.existingSecret) (ne (len .Values.secrets.identityProviderClientSecrets) 2) }}
{{- fail "secrets.identityProviderClientSecrets must hold one client secret per identity provider (or set secrets.existingSecret)" }}
{{- end }}
{{- range $component := list "facade" "core" "inference" }}
{{- $autoscaling := (index $.Values $component).autoscaling }}
{{- if gt (int $autoscaling.minReplicas) (int $autoscaling.maxReplicas) }}
{{- fail (printf "%s.autoscaling.minReplicas must not exceed maxReplicas" $component) }}
{{- end }}
{{- end }}
{{- $admissions := .Values.config.admissions }}
{{- if ge (int $admissions.resumeQueued) (int $admissions.pauseQueued) }}
{{- fail "config.admissions.resumeQueued must be below pauseQueued" }}
{{- end }}
{{- if ge (int $admissions.resumeAgeSeconds) (int $admissions.pauseAgeSeconds) }}
{{- fail "config.admissions.resumeAgeSeconds must be below pauseAgeSeconds" }}
{{- end }}
{{- $shutdown := .Values.config.shutdown }}
{{- if ge (int $shutdown.drainDelaySeconds) (int $shutdown.timeoutSeconds) }}
{{- fail "config.shutdown.drainDelaySeconds must be below config.shutdown.timeoutSeconds" }}
{{- end }}
{{- if ge (int $shutdown.timeoutSeconds) (int .Values.pod.terminationGracePeriodSeconds) }}
{{- fail "config.shutdown.timeoutSeconds must be below pod.terminationGracePeriodSeconds (Kubernetes kills the pod then)" }}
{{- end }}
{{- if regexMatch "^https://(localhost|[^/]*\\.localhost|127\\.[0-9.]+|\\[::1\\]|0\\.0\\.0\\.0)(:[0-9]+)?$" .Values.publicBaseUrl }}
{{- fail "publicBaseUrl must be the façade's public address, not localhost (production refuses it)" }}
{{- end }}
{{- /* Kubernetes refuses an Ingress host with capitals (RFC 1123), and the address is also the OAuth issuer,
which clients compare character for character with the one they were given: refused here, in words. */}}
{{- if ne .Values.publicBaseUrl (lower .Values.publicBaseUrl) }}
{{- fail (printf "publicBaseUrl must be lower case: %s (Kubernetes refuses an Ingress host with capitals, and it is the OAuth issuer clients compare exactly)" (lower .Values.publicBaseUrl)) }}
{{- end }}
{{- /* The façade refuses /mcp requests whose Host it does not accept (DNS-rebinding protection). */}}
{{- if and .Values.ingress.enabled .Values.publicBaseUrl }}
{{- $base := urlParse .Values.publicBaseUrl }}
{{- $host := lower (default $base.hostname .Values.ingress.host) }}
{{- $accepted := list }}
{{- range (default (list $base.host) .Values.config.allowedHosts) }}
{{- $accepted = append $accepted (regexReplaceAll ":[0-9]+$" (lower .) "") }}
{{- end }}
{{- if not (has $host $accepted) }}
{{- fail (printf "the Ingress's host %s is not one the façade accepts (%s): it would refuse every MCP request through the Ingress; add it to config.allowedHosts" $host (join ", " $accepted)) }}
{{- end }}
{{- end }}
{{- if .Values.metrics.enabled }}
{{- range $component := list "facade" "core" "inference" }}
{{- if eq (int (index $.Values.metrics.ports $component)) (int (index $.Values $component).port) }}
{{- fail (printf "metrics.ports.%s must differ from %s.port" $component $component) }}
{{- end }}
{{- end }}
{{- end }}
{{- if gt (int .Values.keda.minReplicaCount) (int .Values.keda.maxReplicaCount) }}
{{- fail "keda.minReplicaCount must not exceed keda.maxReplicaCount" }}
{{- end }}
{{- end }}
