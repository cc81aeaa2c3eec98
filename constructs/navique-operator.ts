import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import * as z from "zod";
import { API_GROUP_VERSION, OPERATOR_NAME, SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { imageReference, pinnedReference } from "../lib/api/image-reference.js";
import { OPERATOR_PORTS, OPERATOR_PROBE_PATHS } from "../lib/api/operator-ports.js";
import {
  OPERATOR_NODE_OPTIONS,
  OPERATOR_RESOURCES,
  OPERATOR_UID,
  OPERATOR_WRITABLE_PATHS,
} from "../lib/api/operator-process.js";
import { namespaceName } from "../lib/api/refs.js";
import { type ResourceRequirements, resourceRequirements } from "../lib/api/resource-requirements.js";
import { checkInput } from "../lib/api/validation.js";
import { type ChartSource, parseChartSource } from "../lib/catalog/chart-source.js";
import { POD_UID_ENV } from "../lib/cluster/holder-process.js";
import { CONSOLE_ACCESS, CONSOLE_VIEWER_ROLE } from "../lib/console/console-auth.js";
import { allCustomResourceDefinitions, REGISTRY } from "../lib/kinds/registry.js";
import { OPERATOR_IMAGE } from "../lib/package/operator-image.js";
import { operatorClusterRules, operatorSystemNamespaceRules, policyRules } from "../lib/package/operator-rbac.js";
import { clusterScoped } from "./cluster-scoped.js";
import { operatorLabels, operatorSelectorLabels } from "./operator-labels.js";
import { PropsProblems } from "./props-problems.js";

/** What the messages call this construct. */
const OPERATOR_CONSTRUCT = "NaviqueOperator";

/** @default image of the operator: the release's, pinned by tag and digest. */
export const DEFAULT_OPERATOR_IMAGE = pinnedReference(OPERATOR_IMAGE);

export interface NaviqueOperatorProps {
  /** The operator's image reference, best pinned with a digest. @default DEFAULT_OPERATOR_IMAGE */
  readonly image?: string;
  /** Where capability charts come from: official, dir:PATH or oci://REGISTRY. @default official */
  readonly chartSource?: string;
  /**
   * The volume holding the packaged charts of a `dir:` chart source, mounted read-only at its path: a
   * Kubernetes VolumeSource, e.g. `{ persistentVolumeClaim: { claimName: "chart-mirror" } }`. Required
   * with a `dir:` source, refused with any other.
   */
  readonly chartMirrorVolume?: Readonly<Record<string, unknown>>;
  /** Seconds between full resyncs. @default 30 */
  readonly resyncSeconds?: number;
  /**
   * Serve only these namespaces (`--watch-namespaces`); every namespace adopted from must be among them.
   * @default every namespace
   */
  readonly watchNamespaces?: readonly string[];
  /**
   * The operator container's CPU and memory requests and limits, replacing the default whole.
   * @default OPERATOR_RESOURCES (requests 100m CPU and 256Mi memory, limit 512Mi memory)
   */
  readonly resources?: ResourceRequirements;
  /**
   * How many operator pods run: one leads and reconciles, the others stand by with warm caches and take
   * over when it ends (docs/adr/0027-leader-election.md). With more than one, a PodDisruptionBudget keeps
   * one running through a drain and the pods prefer distinct nodes.
   * @default OPERATOR_REPLICAS (2)
   */
  readonly replicas?: number;
  /**
   * The namespace of the operator's Deployment, ServiceAccount, metrics Service and PodDisruptionBudget,
   * which the app makes unless it is navique-system (rendered by this construct). Its install locks and
   * leader Lease stay in navique-system whatever this says — the Pulumi front end and `navique plan` take
   * the same locks there —, and so do the Role and RoleBinding that let it take them
   * (docs/adr/0041-operator-chart-namespaces.md).
   * @default SYSTEM_NAMESPACE (navique-system)
   */
  readonly namespace?: string;
  /**
   * Serve the read-only console (docs/console.md) from every replica, behind the Service
   * `navique-ai-core-operator-console`, with the singleton `navique` of settings that configures it and the
   * ClusterRole that lets a user read it. false: none of them, and `--console-bind-address 0`.
   * @default true
   */
  readonly console?: boolean;
}

/**
 * The operator's own install, for GitOps: the product's CRDs (generated from the zod schemas), the
 * namespace of its locks, its identity and permissions, its Deployment running `navique operator` (probed
 * on /healthz and /readyz, docs/operator.md), the Service of its metrics and, with more than one replica,
 * a PodDisruptionBudget. The operator chart renders the same objects (constructs/operator-chart.ts).
 *
 * Its permissions are what the operator does (lib/package/operator-rbac.ts, each rule with its reason),
 * and a Role for its install locks and leader Lease in navique-system, wherever the operator runs. One
 * part stays broad: installing a capability chart creates that controller's RBAC, which Kubernetes
 * allows only a subject that holds every permission granted or may escalate and bind
 * (docs/adr/0024-operator-rbac.md).
 */
export class NaviqueOperator extends Construct {
  constructor(scope: Construct, id: string, props: NaviqueOperatorProps = {}) {
    super(scope, id);
    // Every problem is reported at synth, with every other construct's, under this construct's path.
    const problems = new PropsProblems();
    this.node.addValidation({ validate: () => [...problems.lines(OPERATOR_CONSTRUCT), ...this.otherOperators()] });
    const namespace = props.namespace ?? SYSTEM_NAMESPACE;
    problems.take(checkInput(namespaceName, namespace, "namespace"));
    const replicas = props.replicas ?? OPERATOR_REPLICAS;
    problems.take(checkInput(operatorReplicas, replicas, "replicas"));
    const image = props.image ?? DEFAULT_OPERATOR_IMAGE;
    problems.take(checkInput(imageReference, image, "image"));
    const mirror = chartMirror(props, problems);
    const resources = props.resources ?? OPERATOR_RESOURCES;
    problems.take(checkInput(resourceRequirements, resources, "resources"));
    const args = ["operator", "--resync", String(props.resyncSeconds ?? 30)];
    if (props.chartSource) args.push("--chart-source", props.chartSource);
    if (props.watchNamespaces && props.watchNamespaces.length > 0) {
      for (const [i, name] of props.watchNamespaces.entries()) {
        problems.take(checkInput(namespaceName, name, `watchNamespaces[${i}]`));
      }
      args.push("--watch-namespaces", props.watchNamespaces.join(","));
    }
    const serveConsole = props.console ?? true;
    // The ports the pod declares, whatever the command's defaults become.
    args.push(
      "--metrics-bind-address",
      `:${OPERATOR_PORTS.metrics.port}`,
      "--health-probe-bind-address",
      `:${OPERATOR_PORTS.health.port}`,
      "--console-bind-address",
      serveConsole ? `:${OPERATOR_PORTS.console.port}` : "0",
    );

    for (const crd of allCustomResourceDefinitions()) clusterScoped(new ApiObject(this, crd.metadata.name, crd));
    const labels = operatorLabels();
    const selector = operatorSelectorLabels();
    // navique-system holds the install locks and the leader Lease wherever the operator runs; the
    // operator's own namespace, when another, is the user's to make.
    clusterScoped(
      new ApiObject(this, "Namespace", { apiVersion: "v1", kind: "Namespace", metadata: { name: SYSTEM_NAMESPACE } }),
    );
    new ApiObject(this, "ServiceAccount", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: OPERATOR_NAME, namespace, labels },
    });
    clusterScoped(
      new ApiObject(this, "ClusterRole", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: OPERATOR_NAME, labels },
        rules: policyRules(operatorClusterRules()),
      }),
    );
    const subjects = [{ kind: "ServiceAccount", name: OPERATOR_NAME, namespace }];
    clusterScoped(
      new ApiObject(this, "ClusterRoleBinding", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: OPERATOR_NAME, labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: OPERATOR_NAME },
        subjects,
      }),
    );
    new ApiObject(this, "Role", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels },
      rules: policyRules(operatorSystemNamespaceRules()),
    });
    new ApiObject(this, "RoleBinding", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: OPERATOR_NAME },
      subjects,
    });
    new ApiObject(this, "Deployment", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: OPERATOR_NAME, namespace, labels },
      spec: {
        // One leader, the others standing by (docs/adr/0027-leader-election.md): a standby takes over
        // within ~15 s of the leader's death, or at once when the leader stops gracefully.
        replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: OPERATOR_NAME,
            ...(replicas > 1 ? { affinity: spreadOverNodes(selector) } : {}),
            // Pod Security Standards' "restricted" profile: what a hardened namespace admits.
            securityContext: {
              runAsNonRoot: true,
              runAsUser: OPERATOR_UID,
              runAsGroup: OPERATOR_UID,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "operator",
                image,
                imagePullPolicy: "IfNotPresent",
                args,
                env: [
                  { name: "NODE_OPTIONS", value: OPERATOR_NODE_OPTIONS },
                  // Which Pod it runs in: a restarted container of the same Pod knows that its
                  // predecessor, whose Leases name this Pod, has ended (lib/cluster/holder-process.ts).
                  { name: POD_UID_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
                ],
                ports: [
                  { name: OPERATOR_PORTS.metrics.name, containerPort: OPERATOR_PORTS.metrics.port, protocol: "TCP" },
                  { name: OPERATOR_PORTS.health.name, containerPort: OPERATOR_PORTS.health.port, protocol: "TCP" },
                  ...(serveConsole
                    ? [
                        {
                          name: OPERATOR_PORTS.console.name,
                          containerPort: OPERATOR_PORTS.console.port,
                          protocol: "TCP",
                        },
                      ]
                    : []),
                ],
                ...OPERATOR_PROBES,
                resources,
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ["ALL"] },
                },
                // The image's root file system read-only: its two writable paths are volumes.
                volumeMounts: [
                  { name: "tmp", mountPath: OPERATOR_WRITABLE_PATHS.tmp },
                  { name: "home", mountPath: OPERATOR_WRITABLE_PATHS.home },
                  ...(mirror ? [{ name: CHART_MIRROR, mountPath: mirror.path, readOnly: true }] : []),
                ],
              },
            ],
            volumes: [
              { name: "tmp", emptyDir: {} },
              { name: "home", emptyDir: {} },
              ...(mirror ? [{ name: CHART_MIRROR, ...mirror.volume }] : []),
            ],
          },
        },
      },
    });
    new ApiObject(this, "MetricsService", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: `${OPERATOR_NAME}-metrics`, namespace, labels },
      spec: {
        type: "ClusterIP",
        selector,
        ports: [
          {
            name: OPERATOR_PORTS.metrics.name,
            port: OPERATOR_PORTS.metrics.port,
            targetPort: OPERATOR_PORTS.metrics.name,
            protocol: "TCP",
          },
        ],
      },
    });
    if (serveConsole) this.console(namespace, labels, selector);
    // A drain evicts one pod at a time and waits for another to be ready: the operator is never without
    // a pod with warm caches. With one replica such a budget would forbid every drain.
    if (replicas > 1) {
      new ApiObject(this, "PodDisruptionBudget", {
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        metadata: { name: OPERATOR_NAME, namespace, labels },
        spec: { minAvailable: 1, selector: { matchLabels: selector } },
      });
    }
  }

  /**
   * The console: its Service (every replica serves it, the leader or not), the singleton of settings that
   * configures it — one per cluster, deployed by default —, and the ClusterRole a user is bound to for
   * reading it (docs/console.md).
   */
  private console(
    namespace: string,
    labels: Readonly<Record<string, string>>,
    selector: Readonly<Record<string, string>>,
  ): void {
    new ApiObject(this, "ConsoleService", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: `${OPERATOR_NAME}-console`, namespace, labels },
      spec: {
        type: "ClusterIP",
        selector,
        ports: [{ name: "http", port: 80, targetPort: OPERATOR_PORTS.console.name, protocol: "TCP" }],
      },
    });
    clusterScoped(
      new ApiObject(this, "ConsoleSettings", {
        apiVersion: API_GROUP_VERSION,
        kind: REGISTRY.managementPlane.definition.kind,
        metadata: { name: CONSOLE_ACCESS.name, labels },
        spec: {},
      }),
    );
    clusterScoped(
      new ApiObject(this, "ConsoleViewerRole", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: CONSOLE_VIEWER_ROLE, labels },
        rules: [
          {
            apiGroups: [CONSOLE_ACCESS.group],
            resources: [CONSOLE_ACCESS.resource],
            resourceNames: [CONSOLE_ACCESS.name],
            verbs: [CONSOLE_ACCESS.verb],
          },
        ],
      }),
    );
  }

  /**
   * The operator is installed once per cluster: its CRDs, namespace, RBAC and Deployment are cluster-wide
   * or fixed names, so a second construct in the app would write them all again. Each one after the
   * first is refused, naming the first.
   */
  private otherOperators(): string[] {
    const operators = this.node.root.node.findAll().filter((c) => c instanceof NaviqueOperator);
    const first = operators[0];
    if (!first || first === this) return [];
    return [
      `${OPERATOR_CONSTRUCT}: the operator is already installed by the ${OPERATOR_CONSTRUCT} at ${first.node.path}, and there is one operator per cluster (both would write the same CRDs, namespace, RBAC and Deployment): remove the ${OPERATOR_CONSTRUCT} at ${this.node.path}`,
    ];
  }
}

/** The operator's replicas: one leader reconciles, the other waits on the leader Lease as a standby. */
export const OPERATOR_REPLICAS = 2;

/** A count of operator pods: at least one; the chart's `replicaCount` has the same bounds. */
export const operatorReplicas = z.int().min(1).max(10);

/**
 * The kubelet's probes of the operator container (docs/operator.md). Liveness asks whether the process
 * runs and is not shutting down: /healthz answers before the operator connects, so no start-up probe or
 * delay is needed, and a busy event loop is given 5 s per answer and three misses before a restart.
 * Readiness asks whether every watch has listed: the Deployment's rollout and the PodDisruptionBudget
 * count a pod whose caches are behind as unavailable.
 */
export const OPERATOR_PROBES = {
  livenessProbe: {
    httpGet: { path: OPERATOR_PROBE_PATHS.liveness, port: OPERATOR_PORTS.health.name },
    periodSeconds: 10,
    timeoutSeconds: 5,
    failureThreshold: 3,
  },
  readinessProbe: {
    httpGet: { path: OPERATOR_PROBE_PATHS.readiness, port: OPERATOR_PORTS.health.name },
    periodSeconds: 5,
    timeoutSeconds: 5,
    failureThreshold: 3,
  },
} as const;

/**
 * The pods of several replicas preferring distinct nodes: a node's loss then takes the leader or its
 * standby, not both. Preferred, not required, so that a one-node cluster still runs every replica.
 */
function spreadOverNodes(selector: Readonly<Record<string, string>>) {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: selector } },
        },
      ],
    },
  };
}

/** The volume of the mirrored charts. */
export const CHART_MIRROR = "chart-mirror";

/** The mirror's volume and where it is mounted, for a `dir:` chart source; none for another. */
function chartMirror(
  props: NaviqueOperatorProps,
  problems: PropsProblems,
): { readonly path: string; readonly volume: Readonly<Record<string, unknown>> } | undefined {
  let source: ChartSource;
  try {
    source = parseChartSource(props.chartSource);
  } catch (error) {
    problems.add({ path: "chartSource", message: (error as Error).message });
    return undefined;
  }
  if (source.kind !== "directory") {
    if (props.chartMirrorVolume) {
      problems.add({
        path: "chartMirrorVolume",
        message: `only a dir: chart source is read from a volume; this one is ${props.chartSource ?? "official"}: drop chartMirrorVolume, or set chartSource to dir:PATH`,
      });
    }
    return undefined;
  }
  if (!props.chartMirrorVolume || Object.keys(props.chartMirrorVolume).length === 0) {
    problems.add({
      path: "chartMirrorVolume",
      message: `chartSource ${props.chartSource} is read inside the operator's pod: give the volume holding the packaged charts, e.g. { persistentVolumeClaim: { claimName: "chart-mirror" } }`,
    });
    return undefined;
  }
  return { path: source.path, volume: props.chartMirrorVolume };
}
