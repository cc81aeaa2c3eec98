import { Chart, Testing } from "cdk8s";
import { Document, stringify, type YAMLMap, type YAMLSeq } from "yaml";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { OPERATOR_RESOURCES } from "../lib/api/operator-process.js";
import { crdFiles, GENERATED_HEADER as HEADER } from "../lib/kinds/crd-files.js";
import { OPERATOR_IMAGE } from "../lib/package/operator-image.js";
import {
  type OperatorRule,
  operatorClusterRules,
  operatorSystemNamespaceRules,
  policyRules,
} from "../lib/package/operator-rbac.js";
import { NaviqueOperator } from "./navique-operator.js";

// Sentinels replaced by template expressions: the chart renders what the NaviqueOperator construct does.
// Each is a value the construct accepts (an image reference, a dir: chart source, a namespace name).
const IMAGE = "navique-image-sentinel";
const RESYNC = "__NAVIQUE_RESYNC__";
const MIRROR_PATH = "/navique-chart-mirror-sentinel";
const CHART_SOURCE = `dir:${MIRROR_PATH}`;
const MIRROR_VOLUME = "navique-chart-mirror-sentinel";
const WATCH_NAMESPACES = "navique-watch-namespaces-sentinel";
const RESOURCES = "navique-resources-sentinel";

const IF_MIRROR = '{{- if hasPrefix "dir:" .Values.chartSource }}';
const MIRROR_REQUIRED =
  "chartSource dir:PATH is read from a volume: set chartMirror.volume to a VolumeSource holding the packaged charts (e.g. persistentVolumeClaim: {claimName: chart-mirror})";
const WRONG_NAMESPACE = `the operator runs in ${SYSTEM_NAMESPACE}, where its install locks are: install the chart with -n ${SYSTEM_NAMESPACE} --create-namespace`;
const MIRROR_REFUSED =
  "chartMirror.volume is read only with a dir: chartSource: drop it, or set chartSource to dir:PATH";

/** `text` with the one occurrence of `from` replaced: a construct change that moves it fails here, not in the chart. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at === -1 || text.indexOf(from, at + 1) !== -1) {
    throw new Error(`operator chart: expected exactly one ${JSON.stringify(from)} in the construct's YAML`);
  }
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/**
 * An object as YAML; a ClusterRole's or Role's rules each under a comment saying why the operator needs
 * it, so that whoever reviews the chart reads the reasons beside the permissions.
 */
function objectYaml(object: { kind: string; rules?: unknown }): string {
  const reasons: Record<string, readonly OperatorRule[]> = {
    ClusterRole: operatorClusterRules(),
    Role: operatorSystemNamespaceRules(),
  };
  const explained = reasons[object.kind];
  if (!explained) return stringify(object, { lineWidth: 0 });
  // The construct's rules are these, in this order: a reason can only sit above its own rule.
  const canonical = (rules: unknown) =>
    JSON.stringify(rules, (_key, value: unknown) =>
      value && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
        : value,
    );
  if (canonical(object.rules) !== canonical(policyRules(explained))) {
    throw new Error(`operator chart: the construct's ${object.kind} rules are not lib/package/operator-rbac.ts's`);
  }
  const document = new Document(object);
  const rules = document.get("rules") as YAMLSeq<YAMLMap>;
  rules.items.forEach((rule, index) => {
    rule.commentBefore = ` ${explained[index]?.why ?? ""}`;
  });
  return document.toString({ lineWidth: 0 });
}

/**
 * The operator's Helm chart, path → text: Chart.yaml, values.yaml, the CRDs in crds/, and the
 * namespace, RBAC and Deployment of the NaviqueOperator construct as one template.
 */
export function operatorChartFiles(version: string): Map<string, string> {
  const chart = new Chart(Testing.app(), "operator-chart", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator", {
    image: IMAGE,
    chartSource: CHART_SOURCE,
    chartMirrorVolume: { [MIRROR_VOLUME]: {} },
    watchNamespaces: [WATCH_NAMESPACES],
  });
  const objects = (
    chart.toJson() as { kind: string; spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } }[]
  ).filter(
    // CRDs go to crds/; the namespace is helm's (--create-namespace), not a template.
    (o) => o.kind !== "CustomResourceDefinition" && o.kind !== "Namespace",
  );
  for (const object of objects) {
    const container = object.spec?.template?.spec?.containers?.[0];
    if (container?.args) container.args = container.args.map((arg) => (arg === "30" ? RESYNC : arg));
    if (container) (container as Record<string, unknown>).resources = RESOURCES;
  }
  let template = objects.map(objectYaml).join("---\n");
  const replacements: [string, string][] = [
    [
      `image: ${IMAGE}`,
      'image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}{{ with .Values.image.digest }}@{{ . }}{{ end }}"',
    ],
    [RESYNC, "{{ .Values.resyncSeconds | quote }}"],
    [`resources: ${RESOURCES}`, "resources: {{- toYaml .Values.resources | nindent 12 }}"],
    // The default source and an empty namespace list are the operator's defaults: no flag, as the
    // construct passes none for them.
    [
      `            - --chart-source\n            - ${CHART_SOURCE}\n`,
      '            {{- if and .Values.chartSource (ne .Values.chartSource "official") }}\n            - --chart-source\n            - {{ .Values.chartSource | quote }}\n            {{- end }}\n',
    ],
    // The mirror's mount and volume exist for a dir: source only.
    [
      `            - mountPath: ${MIRROR_PATH}\n              name: chart-mirror\n              readOnly: true\n`,
      `            ${IF_MIRROR}\n            - mountPath: {{ trimPrefix "dir:" .Values.chartSource | quote }}\n              name: chart-mirror\n              readOnly: true\n            {{- end }}\n`,
    ],
    [
      `        - name: chart-mirror\n          ${MIRROR_VOLUME}: {}\n`,
      `        ${IF_MIRROR}\n        - name: chart-mirror\n          {{- required ${JSON.stringify(MIRROR_REQUIRED)} .Values.chartMirror.volume | toYaml | nindent 10 }}\n        {{- end }}\n`,
    ],
    [
      `            - --watch-namespaces\n            - ${WATCH_NAMESPACES}\n`,
      '            {{- with .Values.watchNamespaces }}\n            - --watch-namespaces\n            - {{ join "," . | quote }}\n            {{- end }}\n',
    ],
  ];
  for (const [from, to] of replacements) template = replaceOnce(template, from, to);
  const namespaceGuard = `{{- if ne .Release.Namespace ${JSON.stringify(SYSTEM_NAMESPACE)} }}{{ fail ${JSON.stringify(WRONG_NAMESPACE)} }}{{ end }}\n`;
  const guard = `{{- if and .Values.chartMirror.volume (not (hasPrefix "dir:" .Values.chartSource)) }}{{ fail ${JSON.stringify(MIRROR_REFUSED)} }}{{ end }}\n`;
  const files = new Map<string, string>();
  files.set(
    "Chart.yaml",
    `${HEADER}apiVersion: v2\nname: ${OPERATOR_NAME}\ndescription: The navique ai-core operator, its CRDs and permissions.\ntype: application\nversion: ${version}\nappVersion: "${version}"\n`,
  );
  files.set(
    "values.yaml",
    `${HEADER}# Operator image: the release's, pinned by tag and digest (an empty digest pulls by tag alone).\nimage:\n  repository: ${OPERATOR_IMAGE.repository}\n  tag: "${OPERATOR_IMAGE.tag}"\n  digest: ${OPERATOR_IMAGE.digest}\n# Seconds between full resyncs.\nresyncSeconds: 30\n# Where capability charts come from: official, dir:PATH or oci://REGISTRY.\nchartSource: official\n# With chartSource dir:PATH: chartMirror.volume, the volume holding the packaged charts (a VolumeSource), mounted read-only at PATH.\nchartMirror: {}\n# Namespaces the operator serves (every namespace adopted from must be among them); empty: every namespace.\nwatchNamespaces: []\n# The operator container's requests and limits (measured: docs/performance.md).\n${stringify({ resources: OPERATOR_RESOURCES })}`,
  );
  files.set("templates/operator.yaml", `${HEADER}${namespaceGuard}${guard}${template}`);
  for (const [name, text] of crdFiles()) files.set(`crds/${name}`, text);
  return files;
}
