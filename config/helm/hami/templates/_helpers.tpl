{{/* Names are fixed so that the RBAC subjects, the admission policy and the Lease agree. */}}
{{- define "hami.scheduler" -}}hami-scheduler{{- end -}}
{{- define "hami.nodeAgent" -}}hami-node-agent{{- end -}}
{{- define "hami.webhookSecret" -}}hami-webhook-tls{{- end -}}

{{- define "hami.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "hami.labels" -}}
app.kubernetes.io/name: hami
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "hami.selector" -}}
app.kubernetes.io/name: hami
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
