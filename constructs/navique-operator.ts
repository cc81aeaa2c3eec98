import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { imageReference, pinnedReference } from "../lib/api/image-reference.js";
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
import { allCustomResourceDefinitions } from "../lib/kinds/registry.js";
import { OPERATOR_IMAGE } from "../lib/package/operator-image.js";
import { operatorClusterRules, operatorSystemNamespaceRules, policyRules } from "../lib/package/operator-rbac.js";
import { clusterScoped } from "./cluster-scoped.js";
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
}

/**
 * The operator's own install, for GitOps: the product's CRDs (generated from the zod schemas), its
 * namespace, identity and permissions, and its Deployment running `navique operator`.
 *
 * Its permissions are what the operator does (lib/package/operator-rbac.ts, each rule with its reason),
 * and a Role for its install locks in its own namespace. One part stays broad: installing a capability
 * chart creates that controller's RBAC, which Kubernetes allows only a subject that holds every permission
 * granted or may escalate and bind (docs/adr/0024-operator-rbac.md).
 */
export class NaviqueOperator extends Construct {
  constructor(scope: Construct, id: string, props: NaviqueOperatorProps = {}) {
    super(scope, id);
    for (const crd of allCustomResourceDefinitions()) clusterScoped(new ApiObject(this, crd.metadata.name, crd));
    const labels = { "app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/component": "operator" };
    clusterScoped(
      new ApiObject(this, "Namespace", { apiVersion: "v1", kind: "Namespace", metadata: { name: SYSTEM_NAMESPACE } }),
    );
    new ApiObject(this, "ServiceAccount", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels },
    });
    clusterScoped(
      new ApiObject(this, "ClusterRole", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: OPERATOR_NAME, labels },
        rules: policyRules(operatorClusterRules()),
      }),
    );
    const subjects = [{ kind: "ServiceAccount", name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE }];
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
    // Every problem is reported at synth, with every other construct's, under this construct's path.
    const problems = new PropsProblems();
    this.node.addValidation({ validate: () => [...problems.lines(OPERATOR_CONSTRUCT), ...this.otherOperators()] });
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
    new ApiObject(this, "Deployment", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels },
      spec: {
        // Two replicas, one leader (docs/adr/0027-leader-election.md): the standby takes over within
        // ~15 s of the leader's death, or at once when the leader stops gracefully.
        replicas: OPERATOR_REPLICAS,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: OPERATOR_NAME,
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
                args,
                env: [
                  { name: "NODE_OPTIONS", value: OPERATOR_NODE_OPTIONS },
                  // Which Pod it runs in: a restarted container of the same Pod knows that its
                  // predecessor, whose Leases name this Pod, has ended (lib/cluster/holder-process.ts).
                  { name: POD_UID_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
                ],
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
