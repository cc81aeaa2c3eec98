import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { OPERATOR_METRICS_PATH, OPERATOR_PORTS } from "../lib/api/operator-ports.js";
import { LEADER_LEASE_NAME } from "../lib/cluster/leader-election.js";
import { OPERATOR_IMAGE } from "../lib/package/operator-image.js";
import { operatorLabels, operatorSelectorLabels } from "./operator-labels.js";

// The parts of the operator chart that no construct renders: its named templates (_helpers.tpl), the
// checks of values that one value's schema cannot make, the system namespace, the ServiceMonitor and
// NOTES.txt. The objects the NaviqueOperator construct renders become templates in operator-chart.ts.

/** `{{ include "navique-ai-core-operator.NAME" . }}`: a named template of the chart. */
export function include(name: string): string {
  return `{{ include "${OPERATOR_NAME}.${name}" . }}`;
}

/** A named template as a block under a key at `column`: `{{- include … | nindent column }}`. */
export function includeBlock(name: string, column: number): string {
  return `{{- include "${OPERATOR_NAME}.${name}" . | nindent ${column} }}`;
}

const q = JSON.stringify;

/** The messages of the chart's refusals: each names the value, what is wrong and what to set. */
export const CHART_REFUSALS = {
  mirrorRequired:
    "chartMirror.volume: required with chartSource dir:PATH, whose charts are read from a volume: set it to a VolumeSource holding the packaged charts (e.g. persistentVolumeClaim: {claimName: chart-mirror})",
  mirrorRefused: "chartMirror.volume is read only with a dir: chartSource: drop it, or set chartSource to dir:PATH",
  serviceAccountName:
    "serviceAccount.name: required with serviceAccount.create false: name the existing ServiceAccount the operator runs as, to which the chart binds its ClusterRole and its Role",
  serviceMonitorWithoutMetrics:
    "metrics.serviceMonitor.enabled needs metrics.enabled: the ServiceMonitor scrapes the metrics Service, which metrics.enabled false does not render; enable both, or neither",
  minAvailable:
    "podDisruptionBudget.minAvailable %v leaves no pod to evict with replicaCount %v: every drain of their nodes would wait forever; set it below replicaCount (1 keeps one pod running)",
  ingressWithoutConsole:
    "console.ingress.enabled needs console.enabled: the Ingress leads to the console's Service, which console.enabled false does not render; enable both, or neither",
  noImage: "image.tag and image.digest are both empty: set image.tag, image.digest or both (docs/operator-chart.md)",
} as const;

/** _helpers.tpl: names, namespaces, labels, the image, the system namespace decision, and the checks. */
export function helpersTpl(header: string): string {
  const p = OPERATOR_NAME;
  const selector = Object.entries(operatorSelectorLabels()).map(([k, v]) => `${k}: ${v}`);
  const own = Object.entries(operatorLabels())
    .filter(([k]) => !(k in operatorSelectorLabels()))
    .map(([k, v]) => `${k}: ${v}`);
  return `{{- /*
${header.replace(/^# /, "").trimEnd()}
*/ -}}

{{- /*
The name of every object of the release (the metrics Service adds -metrics). Not the release name: the
operator is one per cluster, and its objects are named as the product and the NaviqueOperator construct
name them, whatever the release is called.
*/ -}}
{{- define "${p}.fullname" -}}
{{- default ${q(p)} .Values.fullnameOverride -}}
{{- end }}

{{- /* Where the Deployment, ServiceAccount, metrics Service, PodDisruptionBudget and ServiceMonitor go. */ -}}
{{- define "${p}.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end }}

{{- /* The ServiceAccount the operator runs as, to which its roles are bound. */ -}}
{{- define "${p}.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "${p}.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required ${q(CHART_REFUSALS.serviceAccountName)} .Values.serviceAccount.name -}}
{{- end -}}
{{- end }}

{{- /*
The labels that select the operator's pods: nothing in them changes with a release, since a Deployment's
selector cannot change; the same as the NaviqueOperator construct's.
*/ -}}
{{- define "${p}.selectorLabels" -}}
${selector.join("\n")}
{{- end }}

{{- /* The labels of every object of the release. */ -}}
{{- define "${p}.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "${p}.selectorLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
${own.join("\n")}
{{- end }}

{{- /* The image reference: repository, then :tag and @digest when given (the kubelet pulls the digest). */ -}}
{{- define "${p}.image" -}}
{{- if not (or .Values.image.tag .Values.image.digest) }}{{ fail ${q(CHART_REFUSALS.noImage)} }}{{ end -}}
{{ .Values.image.repository }}{{ with .Values.image.tag }}:{{ . }}{{ end }}{{ with .Values.image.digest }}@{{ . }}{{ end }}
{{- end }}

{{- /*
"true" when the release renders the Namespace ${SYSTEM_NAMESPACE} (docs/adr/0041-operator-chart-namespaces.md):
installed elsewhere, and the cluster has none, or has the one this release made (rendered again, so that
an upgrade keeps it). A ${SYSTEM_NAMESPACE} made otherwise (the operator, \`navique plan\`, the Pulumi front
end, an administrator) is used as it is. Installed in ${SYSTEM_NAMESPACE}, helm's --create-namespace makes it.
*/ -}}
{{- define "${p}.rendersSystemNamespace" -}}
{{- if and .Values.systemNamespace.create (ne .Release.Namespace ${q(SYSTEM_NAMESPACE)}) -}}
{{- $found := lookup "v1" "Namespace" "" ${q(SYSTEM_NAMESPACE)} -}}
{{- $annotations := dig "metadata" "annotations" (dict) $found -}}
{{- $ours := and (eq (get $annotations "meta.helm.sh/release-name") .Release.Name) (eq (get $annotations "meta.helm.sh/release-namespace") .Release.Namespace) -}}
{{- if or (not $found) $ours }}true{{ end -}}
{{- end -}}
{{- end }}

{{- /* Whether the PodDisruptionBudget is rendered: with one replica it would forbid every drain. */ -}}
{{- define "${p}.rendersDisruptionBudget" -}}
{{- if and .Values.podDisruptionBudget.enabled (gt (int .Values.replicaCount) 1) }}true{{ end -}}
{{- end }}

{{- /* What the values schema cannot say of one value alone; each refusal names the value and what to set. */ -}}
{{- define "${p}.checks" -}}
{{- if and (hasPrefix "dir:" .Values.chartSource) (not .Values.chartMirror.volume) }}{{ fail ${q(CHART_REFUSALS.mirrorRequired)} }}{{ end -}}
{{- if and .Values.chartMirror.volume (not (hasPrefix "dir:" .Values.chartSource)) }}{{ fail ${q(CHART_REFUSALS.mirrorRefused)} }}{{ end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) }}{{ fail ${q(CHART_REFUSALS.serviceMonitorWithoutMetrics)} }}{{ end -}}
{{- $minAvailable := .Values.podDisruptionBudget.minAvailable -}}
{{- if and (include "${p}.rendersDisruptionBudget" .) (not (kindIs "string" $minAvailable)) (ge (int $minAvailable) (int .Values.replicaCount)) -}}
{{- fail (printf ${q(CHART_REFUSALS.minAvailable)} $minAvailable .Values.replicaCount) -}}
{{- end -}}
{{- end }}
`;
}

/** templates/system-namespace.yaml: ${SYSTEM_NAMESPACE}, when the release renders it, kept on uninstall. */
export function systemNamespaceYaml(header: string): string {
  return `${header}{{- if include "${OPERATOR_NAME}.rendersSystemNamespace" . }}
apiVersion: v1
kind: Namespace
metadata:
  name: ${SYSTEM_NAMESPACE}
  labels:
    ${includeBlock("labels", 4)}
  annotations:
    # Kept when the release is uninstalled: the install locks of the Pulumi front end and of
    # \`navique plan\` live here too, and whatever else was put in it is not this chart's to delete.
    helm.sh/resource-policy: keep
{{- end }}
`;
}

/** templates/servicemonitor.yaml: the Prometheus Operator's scrape of the metrics Service, when asked. */
export function serviceMonitorYaml(header: string): string {
  return `${header}{{- if .Values.metrics.serviceMonitor.enabled }}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: ${include("fullname")}
  namespace: ${include("namespace")}
  labels:
    ${includeBlock("labels", 4)}
    {{- with .Values.metrics.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      ${includeBlock("selectorLabels", 6)}
  endpoints:
    - port: ${OPERATOR_PORTS.metrics.name}
      path: ${OPERATOR_METRICS_PATH}
      interval: {{ .Values.metrics.serviceMonitor.interval }}
{{- end }}
`;
}

/** The console's optional Ingress, to its Service's http port. */
export function consoleIngressYaml(header: string): string {
  return `${header}{{- if .Values.console.ingress.enabled }}
{{- if not .Values.console.enabled }}
{{- fail ${q(CHART_REFUSALS.ingressWithoutConsole)} }}
{{- end }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ${include("fullname")}-console
  namespace: ${include("namespace")}
  labels:
    ${includeBlock("labels", 4)}
  {{- with .Values.console.ingress.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .Values.console.ingress.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with .Values.console.ingress.tlsSecretName }}
  tls:
    - hosts:
        - {{ $.Values.console.ingress.host | quote }}
      secretName: {{ . }}
  {{- end }}
  rules:
    - host: {{ .Values.console.ingress.host | quote }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: ${include("fullname")}-console
                port:
                  name: http
{{- end }}
`;
}

/** NOTES.txt: what was installed, how to check it, where the metrics are, what to do next. */
export function notesTxt(header: string): string {
  const p = OPERATOR_NAME;
  const ns = include("namespace");
  const name = include("fullname");
  return `{{- /*
${header.replace(/^# /, "").trimEnd()}
*/ -}}
The navique ai-core operator {{ .Chart.AppVersion }} is installed (release {{ .Release.Name }}):
- in the namespace ${ns}: the Deployment ${name}, {{ .Values.replicaCount }} {{ if eq (int .Values.replicaCount) 1 }}pod{{ else }}pods, one leading and the others standing by{{ end }}
  {{- if .Values.serviceAccount.create }}; the ServiceAccount ${include("serviceAccountName")}{{ end }}
  {{- if .Values.metrics.enabled }}; the Service ${name}-metrics{{ end }}
  {{- if include "${p}.rendersDisruptionBudget" . }}; a PodDisruptionBudget (minAvailable {{ .Values.podDisruptionBudget.minAvailable }}){{ end }}
  {{- if .Values.metrics.serviceMonitor.enabled }}; a ServiceMonitor (every {{ .Values.metrics.serviceMonitor.interval }}){{ end }}
- cluster-wide: the custom resource definitions of core.navique.com and the ClusterRole ${name};
- in the namespace ${SYSTEM_NAMESPACE}{{ if include "${p}.rendersSystemNamespace" . }}, created by this release and kept when it is uninstalled{{ end }}:
  the Role ${name} on the Leases of its install locks and of its leader election.

Check that it runs:
  kubectl -n ${ns} rollout status deployment/${name}
  kubectl -n ${SYSTEM_NAMESPACE} get lease ${LEADER_LEASE_NAME} -o jsonpath='{.spec.holderIdentity}'
{{- if .Values.metrics.enabled }}

Its metrics (docs/operator.md):
  kubectl -n ${ns} port-forward service/${name}-metrics ${OPERATOR_PORTS.metrics.port}:{{ .Values.metrics.service.port }}
  curl -s localhost:${OPERATOR_PORTS.metrics.port}${OPERATOR_METRICS_PATH} | grep '^navique_'
{{- end }}
{{- if .Values.console.enabled }}

The console (docs/console.md), read-only, for whoever may get the ManagementPlane navique:
  kubectl create clusterrolebinding console-reader --clusterrole=${name}-console-viewer --serviceaccount=NAMESPACE:NAME
  kubectl create token NAME -n NAMESPACE
  {{- if .Values.console.ingress.enabled }}
  open http{{ if .Values.console.ingress.tlsSecretName }}s{{ end }}://{{ .Values.console.ingress.host }}/ and sign in with the token
  {{- else }}
  kubectl -n ${ns} port-forward service/${name}-console 8082:{{ .Values.console.service.port }}
  open http://localhost:8082/ and sign in with the token
  {{- end }}
{{- end }}

Next, declare what the platform needs, and the operator installs what that takes, for example:
  kubectl apply -f - <<EOF
  apiVersion: core.navique.com/v1alpha1
  kind: PostgresCluster
  metadata: {name: app-db, namespace: default}
  spec: {databases: [{name: app}]}
  EOF
  kubectl get postgresclusters -A
  navique status
{{- if and (eq .Values.image.digest ${q(OPERATOR_IMAGE.digest)}) (or (ne .Values.image.repository ${q(OPERATOR_IMAGE.repository)}) (ne .Values.image.tag ${q(OPERATOR_IMAGE.tag)})) }}

Note: image.digest still pins the release's image while image.repository or image.tag is yours. The kubelet
pulls that digest whatever the tag says: right for a mirror of the release's image; for your own build set
image.digest to the digest \`npm run image\` printed, or to "" to pull by tag (docs/operator-chart.md).
{{- end }}
`;
}
