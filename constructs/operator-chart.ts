import { Chart, Testing } from "cdk8s";
import { Document, stringify, type YAMLMap, type YAMLSeq } from "yaml";
import { OPERATOR_NAME } from "../lib/api/group.js";
import { OPERATOR_PORTS } from "../lib/api/operator-ports.js";
import { crdFiles, GENERATED_HEADER as HEADER } from "../lib/kinds/crd-files.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import {
  type OperatorRule,
  operatorClusterRules,
  operatorSystemNamespaceRules,
  policyRules,
} from "../lib/package/operator-rbac.js";
import { NaviqueOperator } from "./navique-operator.js";
import {
  consoleIngressYaml,
  helpersTpl,
  include,
  includeBlock,
  notesTxt,
  serviceMonitorYaml,
  systemNamespaceYaml,
} from "./operator-chart-helpers.js";
import { operatorChartValuesSchema, operatorChartValuesYaml } from "./operator-chart-values.js";
import { operatorLabels, operatorSelectorLabels } from "./operator-labels.js";

// The chart renders what the NaviqueOperator construct does: the construct is synthesized once with
// sentinels — values it accepts, which no real install has — and its objects become templates, each
// sentinel replaced by the template expression of its value. A construct change reaches the chart by
// `npm run generate`; one that moves what a replacement expects fails here, not in a cluster.
const IMAGE = "navique-image-sentinel";
const MIRROR_PATH = "/navique-chart-mirror-sentinel";
const CHART_SOURCE = `dir:${MIRROR_PATH}`;
const MIRROR_VOLUME = "navique-chart-mirror-sentinel";
const WATCH_NAMESPACES = "navique-watch-namespaces-sentinel";
const RELEASE_NAMESPACE = "navique-release-namespace-sentinel";

/**
 * Tokens put in the construct's objects, then replaced in their YAML. A scalar token becomes an
 * expression in place; a block token, alone after its key, becomes that key's block.
 */
const SCALARS: Readonly<Record<string, string>> = {
  __FULLNAME__: include("fullname"),
  __NAMESPACE__: include("namespace"),
  __SERVICE_ACCOUNT__: include("serviceAccountName"),
  __REPLICAS__: "{{ .Values.replicaCount }}",
  __IMAGE__: `{{ include "${OPERATOR_NAME}.image" . | quote }}`,
  __PULL_POLICY__: "{{ .Values.image.pullPolicy }}",
  __RESYNC__: "{{ .Values.resyncSeconds | quote }}",
  __METRICS_ADDRESS__: `{{ ternary ":${OPERATOR_PORTS.metrics.port}" "0" .Values.metrics.enabled | quote }}`,
  __HEALTH_ADDRESS__: `":${OPERATOR_PORTS.health.port}"`,
  __CONSOLE_ADDRESS__: `{{ ternary ":${OPERATOR_PORTS.console.port}" "0" .Values.console.enabled | quote }}`,
  __CONSOLE_SERVICE_PORT__: "{{ .Values.console.service.port }}",
  __CONSOLE_SERVICE_TYPE__: "{{ .Values.console.service.type }}",
  __METRICS_SERVICE_PORT__: "{{ .Values.metrics.service.port }}",
  __MIN_AVAILABLE__: "{{ .Values.podDisruptionBudget.minAvailable }}",
};

/** Block tokens: the lines that follow `key:` at `column`, the key's own column plus two. */
const BLOCKS: Readonly<Record<string, (column: number) => string[]>> = {
  __LABELS__: (column) => [includeBlock("labels", column)],
  __SELECTOR__: (column) => [includeBlock("selectorLabels", column)],
  __POD_LABELS__: (column) => [
    includeBlock("labels", column),
    "{{- with .Values.podLabels }}",
    `{{- toYaml . | nindent ${column} }}`,
    "{{- end }}",
  ],
  __RESOURCES__: (column) => [`{{- toYaml .Values.resources | nindent ${column} }}`],
  __MANAGEMENT_PLANE_SPEC__: (column) => [`{{- toYaml .Values.managementPlane.spec | nindent ${column} }}`],
};

/** Optional tokens: the key and its block, rendered only when the value is not empty. */
const OPTIONAL: Readonly<Record<string, string>> = {
  __SA_ANNOTATIONS__: ".Values.serviceAccount.annotations",
  __POD_ANNOTATIONS__: ".Values.podAnnotations",
  __SERVICE_ANNOTATIONS__: ".Values.metrics.service.annotations",
  __CONSOLE_SERVICE_ANNOTATIONS__: ".Values.console.service.annotations",
  __PULL_SECRETS__: ".Values.imagePullSecrets",
  __NODE_SELECTOR__: ".Values.nodeSelector",
  __TOLERATIONS__: ".Values.tolerations",
  __SPREAD__: ".Values.topologySpreadConstraints",
};

const IF_MIRROR = '{{- if hasPrefix "dir:" .Values.chartSource }}';

/** `text` with the one occurrence of `from` replaced: a construct change that moves it fails here, not in the chart. */
function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at === -1 || text.indexOf(from, at + 1) !== -1) {
    throw new Error(`operator chart: expected exactly one ${JSON.stringify(from)} in the construct's YAML`);
  }
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** Each line `key: TOKEN` (or `- key: TOKEN`) replaced by what `expand` makes of the key at its column. */
function expandLines(text: string, token: string, expand: (key: string, indent: string, column: number) => string[]) {
  const line = new RegExp(`^( *)(- )?([^\\s:]+): ${token}$`, "gm");
  return text.replace(line, (_match, indent: string, dash: string | undefined, key: string) => {
    const keyIndent = indent + (dash ? "  " : "");
    const [first = "", ...rest] = expand(key, keyIndent, keyIndent.length + 2);
    return [`${indent}${dash ?? ""}${first.trimStart()}`, ...rest].join("\n");
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameMap(value: unknown, map: Readonly<Record<string, string>>): boolean {
  return (
    isRecord(value) &&
    Object.keys(value).length === Object.keys(map).length &&
    Object.entries(map).every(([k, v]) => value[k] === v)
  );
}

/** Every map equal to the construct's labels or selector labels, anywhere in `value`, as its token. */
function tokenizeLabels(value: unknown): unknown {
  if (sameMap(value, operatorLabels())) return "__LABELS__";
  if (sameMap(value, operatorSelectorLabels())) return "__SELECTOR__";
  if (Array.isArray(value)) return value.map(tokenizeLabels);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tokenizeLabels(v)]));
}

/** What the chart reads and sets of the construct's objects; the rest passes through. */
interface ConstructObject {
  readonly kind: string;
  readonly metadata: { name: string; namespace?: string; annotations?: unknown };
  readonly roleRef?: { name: string };
  readonly subjects?: { kind: string; name: string; namespace?: string }[];
  readonly rules?: unknown;
  readonly spec?: Record<string, unknown>;
}

interface DeploymentObject {
  readonly spec: {
    replicas: unknown;
    readonly template: {
      readonly metadata: { labels?: unknown; annotations?: unknown };
      readonly spec: Record<string, unknown> & {
        readonly containers: ({ image: unknown; args: string[] } & Record<string, unknown>)[];
      };
    };
  };
}

/** The object's names and namespaces as the release's: the chart's full name, its namespace, its ServiceAccount. */
function releaseNames(object: ConstructObject): void {
  const { metadata } = object;
  if (metadata.name === OPERATOR_NAME) metadata.name = "__FULLNAME__";
  else if (metadata.name.startsWith(`${OPERATOR_NAME}-`))
    metadata.name = `__FULLNAME__${metadata.name.slice(OPERATOR_NAME.length)}`;
  if (metadata.namespace === RELEASE_NAMESPACE) metadata.namespace = "__NAMESPACE__";
  if (object.roleRef?.name === OPERATOR_NAME) object.roleRef.name = "__FULLNAME__";
  for (const subject of object.subjects ?? []) {
    if (subject.kind === "ServiceAccount" && subject.name === OPERATOR_NAME) subject.name = "__SERVICE_ACCOUNT__";
    if (subject.namespace === RELEASE_NAMESPACE) subject.namespace = "__NAMESPACE__";
  }
}

/** The Deployment's values put in: replicas, pod metadata and scheduling, image, args, resources. */
function deploymentValues(deployment: DeploymentObject): { defaultAffinity: unknown } {
  deployment.spec.replicas = "__REPLICAS__";
  const { template } = deployment.spec;
  template.metadata.labels = "__POD_LABELS__";
  template.metadata.annotations = "__POD_ANNOTATIONS__";
  const pod = template.spec;
  pod.serviceAccountName = "__SERVICE_ACCOUNT__";
  const defaultAffinity = pod.affinity;
  if (!defaultAffinity) throw new Error("operator chart: the construct's Deployment of two replicas has no affinity");
  pod.affinity = "__AFFINITY__";
  pod.imagePullSecrets = "__PULL_SECRETS__";
  pod.nodeSelector = "__NODE_SELECTOR__";
  pod.tolerations = "__TOLERATIONS__";
  pod.topologySpreadConstraints = "__SPREAD__";
  pod.priorityClassName = "__PRIORITY_CLASS__";
  const [container] = pod.containers;
  if (!container) throw new Error("operator chart: the construct's Deployment has no container");
  if (container.image !== IMAGE)
    throw new Error("operator chart: the construct's container does not run the image given");
  container.image = "__IMAGE__";
  container.imagePullPolicy = "__PULL_POLICY__";
  container.resources = "__RESOURCES__";
  const { args } = container;
  const at = (flag: string) => {
    const index = args.indexOf(flag);
    if (index === -1) throw new Error(`operator chart: the construct's container passes no ${flag}`);
    return index + 1;
  };
  args[at("--resync")] = "__RESYNC__";
  args[at("--metrics-bind-address")] = "__METRICS_ADDRESS__";
  args[at("--health-probe-bind-address")] = "__HEALTH_ADDRESS__";
  args[at("--console-bind-address")] = "__CONSOLE_ADDRESS__";
  return { defaultAffinity: tokenizeLabels(defaultAffinity) };
}

/**
 * An object as YAML, keys sorted; a ClusterRole's or Role's rules each under a comment saying why the
 * operator needs it, so that whoever reviews the chart reads the reasons beside the permissions.
 */
function objectYaml(object: ConstructObject): string {
  const reasons: Record<string, readonly OperatorRule[]> = {
    ClusterRole: operatorClusterRules(),
    Role: operatorSystemNamespaceRules(),
  };
  // The operator's own roles, not the console viewer's, which grants one read and needs no reasons.
  const explained = object.metadata.name === "__FULLNAME__" ? reasons[object.kind] : undefined;
  const document = new Document(object, { sortMapEntries: true });
  if (explained) {
    // The construct's rules are these, in this order: a reason can only sit above its own rule.
    const canonical = (rules: unknown) =>
      JSON.stringify(rules, (_key, value: unknown) =>
        isRecord(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) : value,
      );
    if (canonical(object.rules) !== canonical(policyRules(explained))) {
      throw new Error(`operator chart: the construct's ${object.kind} rules are not lib/package/operator-rbac.ts's`);
    }
    const rules = document.get("rules") as YAMLSeq<YAMLMap>;
    rules.items.forEach((rule, index) => {
      rule.commentBefore = ` ${explained[index]?.why ?? ""}`;
    });
  }
  return document.toString({ lineWidth: 0 });
}

/** The affinity the values give, or the construct's preference for distinct nodes when several replicas run. */
function affinityBlock(defaultAffinity: unknown): (key: string, indent: string, column: number) => string[] {
  return (key, indent, column) => {
    const pad = " ".repeat(column);
    const defaults = stringify(defaultAffinity, { lineWidth: 0, sortMapEntries: true })
      .trimEnd()
      .split("\n")
      .map((line) => pad + line);
    return [
      `${indent}{{- if .Values.affinity }}`,
      `${indent}${key}:`,
      `${pad}{{- toYaml .Values.affinity | nindent ${column} }}`,
      `${indent}{{- else if gt (int .Values.replicaCount) 1 }}`,
      `${indent}${key}:`,
      ...defaults,
      `${indent}{{- end }}`,
    ];
  };
}

/** The YAML of the construct's objects with every token replaced by its template. */
function templated(yaml: string, defaultAffinity: unknown): string {
  let text = expandLines(yaml, "__AFFINITY__", affinityBlock(defaultAffinity));
  for (const [token, value] of Object.entries(OPTIONAL)) {
    text = expandLines(text, token, (key, indent, column) => [
      `${indent}{{- with ${value} }}`,
      `${indent}${key}:`,
      `${" ".repeat(column)}{{- toYaml . | nindent ${column} }}`,
      `${indent}{{- end }}`,
    ]);
  }
  text = expandLines(text, "__PRIORITY_CLASS__", (key, indent) => [
    `${indent}{{- with .Values.priorityClassName }}`,
    `${indent}${key}: {{ . }}`,
    `${indent}{{- end }}`,
  ]);
  for (const [token, block] of Object.entries(BLOCKS)) {
    text = expandLines(text, token, (key, indent, column) => [
      `${indent}${key}:`,
      ...block(column).map((line) => " ".repeat(column) + line),
    ]);
  }
  for (const [token, value] of Object.entries(SCALARS)) text = text.replaceAll(token, value);
  const left = /__[A-Z_]+__/.exec(text);
  if (left) throw new Error(`operator chart: ${left[0]} left in a template`);
  return text;
}

/** The Deployment's flags and volumes that depend on values: each replacement must apply exactly once. */
function deploymentTemplate(text: string): string {
  const replacements: [string, string][] = [
    // The default source and an empty namespace list are the operator's defaults: no flag, as the
    // construct passes none for them.
    [
      `            - --chart-source\n            - ${CHART_SOURCE}\n`,
      '            {{- if ne .Values.chartSource "official" }}\n            - --chart-source\n            - {{ .Values.chartSource | quote }}\n            {{- end }}\n',
    ],
    [
      `            - --watch-namespaces\n            - ${WATCH_NAMESPACES}\n`,
      '            {{- with .Values.watchNamespaces }}\n            - --watch-namespaces\n            - {{ join "," . | quote }}\n            {{- end }}\n',
    ],
    // Nothing listens on the metrics port with metrics off.
    [
      `            - containerPort: ${OPERATOR_PORTS.metrics.port}\n              name: ${OPERATOR_PORTS.metrics.name}\n              protocol: TCP\n`,
      `            {{- if .Values.metrics.enabled }}\n            - containerPort: ${OPERATOR_PORTS.metrics.port}\n              name: ${OPERATOR_PORTS.metrics.name}\n              protocol: TCP\n            {{- end }}\n`,
    ],
    // Nothing listens on the console port with the console off.
    [
      `            - containerPort: ${OPERATOR_PORTS.console.port}\n              name: ${OPERATOR_PORTS.console.name}\n              protocol: TCP\n`,
      `            {{- if .Values.console.enabled }}\n            - containerPort: ${OPERATOR_PORTS.console.port}\n              name: ${OPERATOR_PORTS.console.name}\n              protocol: TCP\n            {{- end }}\n`,
    ],
    // The mirror's mount and volume exist for a dir: source only.
    [
      `            - mountPath: ${MIRROR_PATH}\n              name: chart-mirror\n              readOnly: true\n`,
      `            ${IF_MIRROR}\n            - mountPath: {{ trimPrefix "dir:" .Values.chartSource | quote }}\n              name: chart-mirror\n              readOnly: true\n            {{- end }}\n`,
    ],
    [
      `        - name: chart-mirror\n          ${MIRROR_VOLUME}: {}\n`,
      `        ${IF_MIRROR}\n        - name: chart-mirror\n          {{- toYaml .Values.chartMirror.volume | nindent 10 }}\n        {{- end }}\n`,
    ],
  ];
  let result = text;
  for (const [from, to] of replacements) result = replaceOnce(result, from, to);
  const left = /navique-[a-z-]+-sentinel/.exec(result);
  if (left) throw new Error(`operator chart: ${left[0]} left in a template`);
  return `{{- include "${OPERATOR_NAME}.checks" . }}\n${result}`;
}

/** The values put in an object of the construct; the Deployment's default affinity, kept aside. */
function valuesOf(object: ConstructObject): { defaultAffinity?: unknown } {
  if (object.kind === "ServiceAccount") object.metadata.annotations = "__SA_ANNOTATIONS__";
  if (object.kind === "Deployment") return deploymentValues(object as unknown as DeploymentObject);
  if (object.kind === "Service") {
    const isConsole = object.metadata.name.endsWith("-console");
    object.metadata.annotations = isConsole ? "__CONSOLE_SERVICE_ANNOTATIONS__" : "__SERVICE_ANNOTATIONS__";
    const [port] = (object.spec?.ports ?? []) as Record<string, unknown>[];
    if (!port || !object.spec)
      throw new Error(`operator chart: the construct's ${object.metadata.name} Service has no port`);
    port.port = isConsole ? "__CONSOLE_SERVICE_PORT__" : "__METRICS_SERVICE_PORT__";
    if (isConsole) object.spec.type = "__CONSOLE_SERVICE_TYPE__";
  }
  if (object.kind === REGISTRY.managementPlane.definition.kind && object.spec)
    (object as { spec: unknown }).spec = "__MANAGEMENT_PLANE_SPEC__";
  if (object.kind === "PodDisruptionBudget" && object.spec) object.spec.minAvailable = "__MIN_AVAILABLE__";
  return {};
}

const IF_CONSOLE = "{{- if .Values.console.enabled }}";

/**
 * The template file of each kind the construct renders, and the condition its objects are rendered on;
 * `Kind/-suffix` for the objects of a kind whose name ends so (the console's), before the kind's own.
 */
const TEMPLATE_FILES: Readonly<Record<string, { file: string; when?: string }>> = {
  "Service/-console": { file: "console-service.yaml", when: IF_CONSOLE },
  "ClusterRole/-console-viewer": { file: "console-viewer-role.yaml", when: IF_CONSOLE },
  [REGISTRY.managementPlane.definition.kind]: {
    file: "managementplane.yaml",
    when: "{{- if .Values.managementPlane.create }}",
  },
  ServiceAccount: { file: "serviceaccount.yaml", when: "{{- if .Values.serviceAccount.create }}" },
  ClusterRole: { file: "rbac.yaml" },
  ClusterRoleBinding: { file: "rbac.yaml" },
  Role: { file: "rbac.yaml" },
  RoleBinding: { file: "rbac.yaml" },
  Deployment: { file: "deployment.yaml" },
  Service: { file: "metrics-service.yaml", when: "{{- if .Values.metrics.enabled }}" },
  PodDisruptionBudget: {
    file: "poddisruptionbudget.yaml",
    when: `{{- if include "${OPERATOR_NAME}.rendersDisruptionBudget" . }}`,
  },
};

/** The construct's objects as template files: name → text. */
function constructTemplates(): Map<string, string> {
  const chart = new Chart(Testing.app(), "operator-chart", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator", {
    image: IMAGE,
    chartSource: CHART_SOURCE,
    chartMirrorVolume: { [MIRROR_VOLUME]: {} },
    watchNamespaces: [WATCH_NAMESPACES],
    namespace: RELEASE_NAMESPACE,
    replicas: 2,
  });
  // CRDs go to crds/; navique-system is templates/system-namespace.yaml, the release's is helm's.
  const objects = (chart.toJson() as ConstructObject[]).filter(
    (o) => o.kind !== "CustomResourceDefinition" && o.kind !== "Namespace",
  );
  const texts = new Map<string, string[]>();
  for (const object of objects) {
    const where =
      Object.entries(TEMPLATE_FILES).find(
        ([key]) =>
          key.startsWith(`${object.kind}/`) && object.metadata.name.endsWith(key.slice(object.kind.length + 1)),
      )?.[1] ?? TEMPLATE_FILES[object.kind];
    if (!where) throw new Error(`operator chart: the construct renders a ${object.kind}, which has no template file`);
    releaseNames(object);
    const { defaultAffinity } = valuesOf(object);
    let text = templated(objectYaml(tokenizeLabels(object) as ConstructObject), defaultAffinity);
    if (object.kind === "Deployment") text = deploymentTemplate(text);
    if (where.when) text = `${where.when}\n${text}{{- end }}\n`;
    texts.set(where.file, [...(texts.get(where.file) ?? []), text]);
  }
  return new Map([...texts].map(([file, parts]) => [`templates/${file}`, `${HEADER}${parts.join("---\n")}`]));
}

/**
 * The operator's Helm chart, path → text: Chart.yaml, values.yaml and values.schema.json (from one zod
 * schema), the CRDs in crds/, the NaviqueOperator construct's objects as templates, the system namespace,
 * the ServiceMonitor, the named templates and NOTES.txt.
 */
export function operatorChartFiles(version: string): Map<string, string> {
  const files = new Map<string, string>();
  files.set(
    "Chart.yaml",
    `${HEADER}apiVersion: v2\nname: ${OPERATOR_NAME}\ndescription: The navique ai-core operator, its CRDs and permissions.\ntype: application\nversion: ${version}\nappVersion: "${version}"\nkeywords:\n  - navique\n  - operator\n  - ai-platform\n`,
  );
  files.set("values.yaml", operatorChartValuesYaml(HEADER));
  const schema = { $comment: HEADER.replace(/^# /, "").trimEnd(), ...operatorChartValuesSchema() };
  files.set("values.schema.json", `${JSON.stringify(schema, null, 2)}\n`);
  for (const [name, text] of constructTemplates()) files.set(name, text);
  files.set("templates/system-namespace.yaml", systemNamespaceYaml(HEADER));
  files.set("templates/servicemonitor.yaml", serviceMonitorYaml(HEADER));
  files.set("templates/console-ingress.yaml", consoleIngressYaml(HEADER));
  files.set("templates/_helpers.tpl", helpersTpl(HEADER));
  files.set("templates/NOTES.txt", notesTxt(HEADER));
  for (const [name, text] of crdFiles()) files.set(`crds/${name}`, text);
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}
