import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { OPERATOR_NODE_OPTIONS } from "../lib/api/operator-process.js";
import { namespaceName } from "../lib/api/refs.js";
import { parseInput } from "../lib/api/validation.js";
import { allCustomResourceDefinitions } from "../lib/kinds/registry.js";
import { clusterScoped } from "./cluster-scoped.js";

/** @default image of the operator, tagged with the package version. */
export const DEFAULT_OPERATOR_IMAGE = `ghcr.io/navique/${OPERATOR_NAME}:0.1.0`;

export interface NaviqueOperatorProps {
  /** @default DEFAULT_OPERATOR_IMAGE */
  readonly image?: string;
  /** Where capability charts come from: official, dir:PATH or oci://REGISTRY. @default official */
  readonly chartSource?: string;
  /** Seconds between full resyncs. @default 30 */
  readonly resyncSeconds?: number;
  /**
   * Serve only these namespaces (`--watch-namespaces`); every namespace adopted from must be among them.
   * @default every namespace
   */
  readonly watchNamespaces?: readonly string[];
}

/**
 * The operator's own install, for GitOps: the product's CRDs (generated from the zod schemas), its
 * namespace, identity and permissions, and its Deployment running `navique operator`.
 *
 * Its ClusterRole is broad on purpose: installing a capability operator's chart creates that operator's
 * RBAC, CRDs and webhooks, which Kubernetes only lets a subject do when it already holds those rights.
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
        rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }],
      }),
    );
    clusterScoped(
      new ApiObject(this, "ClusterRoleBinding", {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: OPERATOR_NAME, labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: OPERATOR_NAME },
        subjects: [{ kind: "ServiceAccount", name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE }],
      }),
    );
    const args = ["operator", "--resync", String(props.resyncSeconds ?? 30)];
    if (props.chartSource) args.push("--chart-source", props.chartSource);
    if (props.watchNamespaces && props.watchNamespaces.length > 0) {
      const where = `NaviqueOperator at ${this.node.path}`;
      const names = props.watchNamespaces.map((n, i) => parseInput(namespaceName, n, where, `watchNamespaces[${i}]`));
      args.push("--watch-namespaces", names.join(","));
    }
    new ApiObject(this, "Deployment", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: OPERATOR_NAME,
            containers: [
              {
                name: "operator",
                image: props.image ?? DEFAULT_OPERATOR_IMAGE,
                args,
                env: [{ name: "NODE_OPTIONS", value: OPERATOR_NODE_OPTIONS }],
              },
            ],
          },
        },
      },
    });
  }
}
