import * as z from "zod";

/** Where the apiserver serves a kind: its API group ("" for the core group) and plural, as RBAC names it. */
export interface ServedAs {
  readonly group: string;
  readonly plural: string;
}

/**
 * The kinds the catalog's capability charts render besides their CRDs, each with the group and plural it
 * is served under (Kubernetes' built-in kinds; Certificate and Issuer are cert-manager's). A kind a new
 * chart renders is added here first: the operator's permissions are written in these plurals
 * (lib/package/operator-rbac.ts), and an entry's `renders` may name no other kind.
 */
export const CHART_KINDS = {
  ConfigMap: { group: "", plural: "configmaps" },
  Secret: { group: "", plural: "secrets" },
  Service: { group: "", plural: "services" },
  ServiceAccount: { group: "", plural: "serviceaccounts" },
  Deployment: { group: "apps", plural: "deployments" },
  Job: { group: "batch", plural: "jobs" },
  ClusterRole: { group: "rbac.authorization.k8s.io", plural: "clusterroles" },
  ClusterRoleBinding: { group: "rbac.authorization.k8s.io", plural: "clusterrolebindings" },
  Role: { group: "rbac.authorization.k8s.io", plural: "roles" },
  RoleBinding: { group: "rbac.authorization.k8s.io", plural: "rolebindings" },
  MutatingWebhookConfiguration: { group: "admissionregistration.k8s.io", plural: "mutatingwebhookconfigurations" },
  ValidatingWebhookConfiguration: { group: "admissionregistration.k8s.io", plural: "validatingwebhookconfigurations" },
  Certificate: { group: "cert-manager.io", plural: "certificates" },
  Issuer: { group: "cert-manager.io", plural: "issuers" },
} as const satisfies Readonly<Record<string, ServedAs>>;

export type ChartKind = keyof typeof CHART_KINDS;

const chartKind = z.enum(Object.keys(CHART_KINDS) as [ChartKind, ...ChartKind[]]);

/**
 * What a chart renders with the catalog's values, besides its CRDs: by kind, the objects' names (hooks
 * included; RBAC allows names with a colon, which cert-manager's roles carry). Names are unique per kind
 * across namespaces here, as the operator's permissions name objects without their namespace.
 */
export const ChartObjects = z.partialRecord(
  chartKind,
  z.array(z.string().regex(/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/, { message: "must be an object name" })).min(1),
);
export type ChartObjects = z.infer<typeof ChartObjects>;
