import { stringify } from "yaml";
import * as z from "zod";
import { SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { IMAGE_DIGEST, IMAGE_REPOSITORY, IMAGE_TAG } from "../lib/api/image-reference.js";
import { OPERATOR_PORTS } from "../lib/api/operator-ports.js";
import { OPERATOR_RESOURCES } from "../lib/api/operator-process.js";
import { namespaceName, objectName } from "../lib/api/refs.js";
import { resourceRequirements } from "../lib/api/resource-requirements.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { OPERATOR_IMAGE } from "../lib/package/operator-image.js";
import { OPERATOR_REPLICAS, operatorReplicas } from "./navique-operator.js";

// The operator chart's values: one zod schema, from which values.yaml (each value under its description)
// and values.schema.json (which helm checks every install, upgrade, template and lint against) are
// generated, so that the values, their documentation and their validation cannot drift apart. Every
// object is strict: helm refuses a misspelt key (`--set resyncSecond=5`) naming it. What one value
// cannot say alone (a dir: chart source needs its volume…) the templates check, in _helpers.tpl.

/** Annotations or labels: string keys, string values. */
const stringMap = z.record(z.string(), z.string());

/** A Kubernetes object the chart passes through as given (an affinity, a toleration, a VolumeSource). */
const kubernetesObject = z.record(z.string(), z.unknown());

/** A Prometheus duration, as the Prometheus Operator's CRDs validate it (pkg/apis/monitoring/v1 `Duration`). */
const prometheusDuration = z
  .string()
  .min(1)
  .regex(/^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/);

/** The release's own image, as `npm run image -- OUT_DIR --pin` recorded it. */
const image = z
  .strictObject({
    repository: z
      .string()
      .max(255)
      .regex(new RegExp(`^${IMAGE_REPOSITORY}$`))
      .default(OPERATOR_IMAGE.repository)
      .describe("Where the image is pulled from: REGISTRY/PATH, without tag or digest."),
    tag: z
      .string()
      .regex(new RegExp(`^(${IMAGE_TAG})?$`))
      .default(OPERATOR_IMAGE.tag)
      .describe("The image's tag; empty to pull by digest alone."),
    digest: z
      .string()
      .regex(new RegExp(`^(${IMAGE_DIGEST})?$`))
      .default(OPERATOR_IMAGE.digest)
      .describe(
        "The image's digest, sha256:<64 hex digits>, which the kubelet pulls whatever the tag says; empty to pull by tag. It is the release's build: with your own build set it to the digest `npm run image` printed, or empty it (docs/operator-chart.md).",
      ),
    pullPolicy: z
      .enum(["IfNotPresent", "Always", "Never"])
      .default("IfNotPresent")
      .describe("When the kubelet pulls the image: IfNotPresent, Always or Never."),
  })
  .prefault({})
  .describe(
    "The operator's image, pinned by tag and digest to the release's build. To run your own build (npm run image, pushed to your registry), set repository and tag to it and digest to its digest or to empty; a digest left at the release's pulls the release's image from your repository, whatever the tag (docs/operator-chart.md).",
  );

const serviceAccount = z
  .strictObject({
    create: z
      .boolean()
      .default(true)
      .describe("Create the operator's ServiceAccount; false: the chart binds its roles to `name`, which must exist."),
    name: z
      .union([z.literal(""), objectName])
      .default("")
      .describe("Its name; empty: the chart's full name (navique-ai-core-operator unless fullnameOverride)."),
    annotations: stringMap
      .default({})
      .describe("Annotations of the ServiceAccount, e.g. a cloud workload identity to reach a private registry."),
  })
  .prefault({})
  .describe("The ServiceAccount the operator runs as, to which its ClusterRole and its Role are bound.");

const metrics = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        `Serve Prometheus metrics on the container port \`metrics\` (${OPERATOR_PORTS.metrics.port}) and expose them by the Service <fullname>-metrics; false passes --metrics-bind-address 0 and renders neither (docs/operator.md lists the metrics).`,
      ),
    service: z
      .strictObject({
        port: z
          .int()
          .min(1)
          .max(65_535)
          .default(OPERATOR_PORTS.metrics.port)
          .describe("The Service's port, named metrics, forwarded to the container's."),
        annotations: stringMap
          .default({})
          .describe("Annotations of the Service, e.g. prometheus.io/scrape for a Prometheus that discovers by them."),
      })
      .prefault({})
      .describe("The metrics Service, of type ClusterIP."),
    serviceMonitor: z
      .strictObject({
        enabled: z
          .boolean()
          .default(false)
          .describe(
            "Render a ServiceMonitor (monitoring.coreos.com/v1) scraping the metrics Service; needs the Prometheus Operator's CRDs in the cluster and metrics.enabled.",
          ),
        interval: prometheusDuration
          .default("30s")
          .describe("How often Prometheus scrapes the operator, as a Prometheus duration (30s, 1m)."),
        labels: stringMap
          .default({})
          .describe("Labels added to the ServiceMonitor, e.g. the one your Prometheus selects ServiceMonitors by."),
      })
      .prefault({})
      .describe("A ServiceMonitor for the Prometheus Operator."),
  })
  .prefault({})
  .describe("The operator's Prometheus metrics.");

const consoleValues = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        `Serve the read-only console from every replica on the container port \`console\` (${OPERATOR_PORTS.console.port}), behind the Service <fullname>-console, and render the ClusterRole <fullname>-console-viewer that lets a user read it (docs/console.md); false passes --console-bind-address 0 and renders none of them.`,
      ),
    service: z
      .strictObject({
        type: z
          .enum(["ClusterIP", "NodePort", "LoadBalancer"])
          .default("ClusterIP")
          .describe(
            "The Service's type: ClusterIP (reached by port-forward or the Ingress), NodePort or LoadBalancer.",
          ),
        port: z
          .int()
          .min(1)
          .max(65_535)
          .default(80)
          .describe("The Service's port, named http, forwarded to the container's."),
        annotations: stringMap.default({}).describe("Annotations of the Service, e.g. a cloud load balancer's."),
      })
      .prefault({})
      .describe("The console's Service."),
    ingress: z
      .strictObject({
        enabled: z
          .boolean()
          .default(false)
          .describe("Render an Ingress (networking.k8s.io/v1) to the console's Service."),
        className: z.string().default("").describe("The IngressClass; empty: the cluster's default."),
        host: z
          .string()
          .regex(/^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/)
          .default("console.example.com")
          .describe("The host name the console answers on."),
        annotations: stringMap
          .default({})
          .describe("Annotations of the Ingress, e.g. cert-manager.io/cluster-issuer to have its certificate issued."),
        tlsSecretName: z
          .union([z.literal(""), objectName])
          .default("")
          .describe(
            "The Secret holding the host's certificate; empty: no TLS. Tokens cross this Ingress: serve it over TLS, and the session cookie is then marked Secure.",
          ),
      })
      .prefault({})
      .describe("An optional Ingress to the console."),
  })
  .prefault({})
  .describe(
    "The admin console: read-only, authenticated by TokenReview, authorised by SubjectAccessReview (docs/console.md).",
  );

const managementPlane = z
  .strictObject({
    create: z
      .boolean()
      .default(true)
      .describe(
        "Render the ManagementPlane navique, the console's settings; one per cluster, kept while the release is.",
      ),
    spec: REGISTRY.managementPlane.definition.spec
      .prefault({})
      .describe("Its spec (docs/reference/management-plane.md)."),
  })
  .prefault({})
  .describe("The ManagementPlane, the console's settings, deployed by default.");

const podDisruptionBudget = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Render the PodDisruptionBudget when replicaCount is above 1 (with one replica it would forbid every drain).",
      ),
    minAvailable: z
      .union([
        z.int().min(0).max(10),
        z
          .string()
          .regex(/^[0-9]{1,3}%$/)
          .describe("A percentage of replicaCount, e.g. 50%."),
      ])
      .default(1)
      .describe(
        "Pods a voluntary disruption (a drain, an eviction) must leave running: a number below replicaCount, or a percentage.",
      ),
  })
  .prefault({})
  .describe(
    "Keeps a standby running while a node is drained: evictions wait until another pod is ready, so the operator is never without a pod whose caches are synced.",
  );

const systemNamespace = z
  .strictObject({
    create: z
      .boolean()
      .default(true)
      .describe(
        `Render the Namespace ${SYSTEM_NAMESPACE}, kept on uninstall, when the release is installed elsewhere and the cluster has none (or this release made it); false when ${SYSTEM_NAMESPACE} is made otherwise, before the chart is installed. \`helm template\` cannot look, and renders it.`,
      ),
  })
  .prefault({})
  .describe(
    `${SYSTEM_NAMESPACE} holds the operator's install locks and leader Lease, which the Pulumi front end and \`navique plan\` take too, and the Role that lets the operator take them; it stays ${SYSTEM_NAMESPACE} whichever namespace the operator runs in (docs/adr/0041-operator-chart-namespaces.md).`,
  );

const chartMirror = z
  .strictObject({
    volume: kubernetesObject.optional().meta({
      description:
        "The volume holding the packaged charts, a Kubernetes VolumeSource, mounted read-only at PATH; required with chartSource dir:PATH, refused with another.",
      examples: [{ persistentVolumeClaim: { claimName: "chart-mirror" } }],
    }),
  })
  .prefault({})
  .describe("With chartSource dir:PATH: where the mirrored charts are.");

/** The operator chart's values: each with its default and its description. */
export const operatorChartValues = z
  .strictObject({
    image,
    imagePullSecrets: z
      .array(z.strictObject({ name: objectName }))
      .default([])
      .describe(
        "Secrets in the release namespace holding credentials for the image's registry, e.g. [{name: regcred}].",
      ),
    replicaCount: operatorReplicas
      .default(OPERATOR_REPLICAS)
      .describe(
        "Operator pods: one leads and reconciles, the others stand by with warm caches and take over within ~15 s of its loss (docs/adr/0027-leader-election.md). Above 1, a PodDisruptionBudget and a preference for distinct nodes keep a standby apart.",
      ),
    resources: resourceRequirements
      .default(OPERATOR_RESOURCES)
      .describe(
        "The operator container's requests and limits, measured by bench/operator-scale.ts (docs/performance.md); no CPU limit, so that a burst of work is slowed by nothing but the node.",
      ),
    nodeSelector: stringMap.default({}).describe("Node labels the operator's pods must run on."),
    tolerations: z.array(kubernetesObject).default([]).describe("Taints the operator's pods tolerate."),
    affinity: kubernetesObject
      .default({})
      .describe(
        "The pods' affinity; given, it replaces the default, which with replicaCount above 1 prefers to place the pods on distinct nodes (kubernetes.io/hostname).",
      ),
    topologySpreadConstraints: z
      .array(kubernetesObject)
      .default([])
      .describe(
        "How the pods spread over zones or nodes, each constraint with the labelSelector of the chart's pods (matchLabels with its app.kubernetes.io/name and app.kubernetes.io/component).",
      ),
    priorityClassName: z
      .union([z.literal(""), objectName])
      .default("")
      .describe("The pods' PriorityClass, e.g. system-cluster-critical; empty: the cluster's default."),
    podAnnotations: stringMap.default({}).describe("Annotations added to the operator's pods."),
    podLabels: stringMap.default({}).describe("Labels added to the operator's pods, besides the chart's own."),
    serviceAccount,
    fullnameOverride: z
      .string()
      .max(55)
      .regex(/^([a-z]([-a-z0-9]*[a-z0-9])?)?$/)
      .default("")
      .describe(
        "The name of the Deployment, ServiceAccount, ClusterRole, Roles and bindings (the Service adds -metrics); empty: navique-ai-core-operator. The release name does not enter it: there is one operator per cluster.",
      ),
    namespaceOverride: z
      .union([z.literal(""), namespaceName])
      .default("")
      .describe(
        "The namespace of the Deployment, ServiceAccount, metrics Service, PodDisruptionBudget and ServiceMonitor, which must exist; empty: the release's.",
      ),
    systemNamespace,
    resyncSeconds: z.int().min(1).max(86_400).default(30).describe("Seconds between full resyncs of every resource."),
    chartSource: z
      .string()
      .regex(/^(official|dir:\/.+|oci:\/\/.+)$/)
      .default("official")
      .describe(
        "Where capability charts come from: official (their repositories), dir:PATH (packaged charts in chartMirror.volume) or oci://REGISTRY/PATH.",
      ),
    chartMirror,
    watchNamespaces: z
      .array(namespaceName)
      .default([])
      .describe("Namespaces the operator serves (every namespace adopted from among them); empty: every namespace."),
    metrics,
    console: consoleValues,
    managementPlane,
    podDisruptionBudget,
    global: kubernetesObject
      .optional()
      .describe("What a parent chart shares with its subcharts; helm sets it, this chart reads none of it."),
  })
  .describe("Values of the navique ai-core operator chart.");

export type OperatorChartValues = z.infer<typeof operatorChartValues>;

/** The JSON Schema helm checks values against: what a user may write, defaults and descriptions included. */
export function operatorChartValuesSchema(): Record<string, unknown> {
  return z.toJSONSchema(operatorChartValues, { io: "input" }) as Record<string, unknown>;
}

interface PropertySchema {
  readonly description?: string;
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
  readonly properties?: Readonly<Record<string, PropertySchema>>;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** `text` as comment lines of at most ~110 columns at `indent`. */
function comment(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent.length + 2 + line.length + 1 + word.length > 110) {
      lines.push(`${indent}# ${line}`);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(`${indent}# ${line}`);
  return lines;
}

/** `key: value` as YAML at `indent`, a block value indented under its key. */
function entry(key: string, value: unknown, indent: string): string[] {
  return stringify({ [key]: value }, { lineWidth: 0 })
    .trimEnd()
    .split("\n")
    .map((line) => indent + line);
}

function entries(properties: Readonly<Record<string, PropertySchema>>, indent: string): string[] {
  const lines: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    // A group of values is written value by value; an object value (resources) whole, as its default.
    const grouped = property.default === undefined || isEmptyObject(property.default);
    const nested =
      grouped && property.properties && Object.keys(property.properties).length > 0 ? property.properties : undefined;
    if (property.default === undefined && !nested) {
      // No default: documented only where an example shows its shape (`global` is helm's, not shown).
      const example = property.examples?.[0];
      if (example === undefined) continue;
      lines.push(...comment(property.description ?? "", indent));
      lines.push(...entry(key, example, indent).map((line) => `${indent}# ${line.slice(indent.length)}`));
      continue;
    }
    lines.push(...comment(property.description ?? "", indent));
    if (!nested) {
      lines.push(...entry(key, property.default, indent));
      continue;
    }
    const inner = entries(nested, `${indent}  `);
    // An object whose every value is commented out is still an object, not null.
    const onlyComments = inner.every((line) => line.trimStart().startsWith("#"));
    lines.push(`${indent}${key}:${onlyComments ? " {}" : ""}`, ...inner);
  }
  return lines;
}

/** values.yaml: every value with its default, under its description; those without a default as an example. */
export function operatorChartValuesYaml(header: string): string {
  const schema = operatorChartValuesSchema() as PropertySchema;
  return `${header}${entries(schema.properties ?? {}, "").join("\n")}\n`;
}
