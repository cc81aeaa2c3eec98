import * as z from "zod";
import { Condition, ConditionStatus } from "../api/conditions.js";
import { CapabilityStatus } from "../api/resource-status.js";

/**
 * The version of `navique status -o json`'s shape. Fields may be added under the same version; one
 * removed, renamed or given another meaning makes a new version (docs/status-and-doctor.md).
 */
export const STATUS_REPORT_VERSION = 1;

/** A resource of the product's kinds, named. */
export const ResourceReference = z
  .object({
    kind: z.string().describe("Its kind, e.g. the kind's name in the core.navique.com group."),
    namespace: z.string(),
    name: z.string(),
  })
  .strict();
export type ResourceReference = z.infer<typeof ResourceReference>;

/** The reason `navique status` reports for a resource without a Ready condition: no pass has written its status. */
export const NOT_RECONCILED = "NotReconciled";

/** One resource of the product as its status says it is. */
export const ResourceState = ResourceReference.extend({
  ready: ConditionStatus.describe(`Its Ready condition's status; Unknown while it has none (${NOT_RECONCILED}).`),
  reason: z
    .string()
    .describe(`Ready's reason, stable for machines; ${NOT_RECONCILED} while it has no Ready condition.`),
  message: z.string().describe("Ready's message: what it is, or what it waits for and what to do."),
  stalled: z
    .boolean()
    .describe("Its Stalled condition is True: waiting cannot clear the cause, only a change by someone can."),
  current: z
    .boolean()
    .describe("Its status was written for its spec as it is now (status.observedGeneration = metadata.generation)."),
  deleting: z.boolean().describe("It is being deleted."),
  conditions: z.array(Condition).describe("Every condition of its status, as stored."),
  dependsOn: z
    .array(ResourceReference.extend({ field: z.string().describe("The spec field that names it.") }).strict())
    .describe("The resources of the product it cannot do without, as its kind declares them."),
  needs: z.array(z.string()).describe("The capabilities its spec needs now, prerequisites first."),
  capabilities: z
    .array(CapabilityStatus)
    .describe("The capabilities it relied on when last reconciled, with their provenance, as its status records them."),
}).strict();
export type ResourceState = z.infer<typeof ResourceState>;

/** One capability of the catalog as detection finds it. */
export const CapabilityState = z
  .object({
    name: z.string().describe("The capability, e.g. cloudnative-pg."),
    state: z
      .enum(["Absent", "Adopted", "Owned"])
      .describe(
        "Absent: not installed; Adopted: installed by someone else, never changed; Owned: installed by the product.",
      ),
    evidence: z.string().describe("What detection found, as the engine words it."),
    ready: z
      .boolean()
      .describe("Its CRDs are Established and its controller's workloads rolled out; false when Absent."),
    waitingFor: z.array(z.string()).describe("What it is not Ready for, one item each."),
    unavailable: z.array(z.string()).describe("Why its controller serves nothing now, workload by workload."),
    release: z
      .object({ namespace: z.string(), name: z.string() })
      .strict()
      .describe("The release the product installs it as (and looks for first)."),
    chartVersion: z.string().optional().describe("The chart version of the release found, when there is one."),
    pinnedVersion: z.string().describe("The chart version the product installs."),
    usedBy: z.array(ResourceReference).describe("The resources reported whose spec needs it now."),
  })
  .strict();
export type CapabilityState = z.infer<typeof CapabilityState>;

/** The instances of one capped kind against its cap. */
export const CapUse = z
  .object({
    kind: z.string(),
    cap: z.number().int().min(0).describe("Most instances the licence in force admits in the cluster."),
    instances: z.number().int().min(0).describe("Its resources in the cluster, every namespace."),
    admitted: z.number().int().min(0).describe("Those the licence admitted (they keep their place under any cap)."),
    refused: z
      .array(ResourceReference)
      .describe("Those refused for the cap: their Licensed condition is False with reason InstanceCapExceeded."),
  })
  .strict();
export type CapUse = z.infer<typeof CapUse>;

/** The licence in force, as the product resolves the cluster's License. */
export const LicenceState = z
  .object({
    stored: z.boolean().describe("The cluster holds the License singleton."),
    edition: z.enum(["Community", "Licensed"]),
    licenseId: z.string().optional(),
    expiresAt: z.string().optional().describe("When the licence expires (RFC 3339); Community applies from then on."),
    daysLeft: z.number().int().optional().describe("Whole days until it expires."),
    reason: z
      .string()
      .optional()
      .describe("Why Community applies although a License is stored: why its token is refused."),
    features: z.array(z.string()).describe("The paid features in force."),
    caps: z.array(CapUse).describe("Every kind of the product, with its cap and its instances."),
  })
  .strict();
export type LicenceState = z.infer<typeof LicenceState>;

/** The operator as the cluster shows it: its Deployment(s) and the holder of its leader Lease. */
export const OperatorState = z
  .object({
    deployments: z
      .array(
        z
          .object({
            namespace: z.string(),
            name: z.string(),
            replicas: z.number().int().min(0),
            availableReplicas: z.number().int().min(0),
          })
          .strict(),
      )
      .describe("The Deployments labelled app.kubernetes.io/name=navique-ai-core-operator, in any namespace."),
    lease: z
      .object({
        namespace: z.string(),
        name: z.string(),
        exists: z.boolean(),
        holder: z.string().optional().describe("Its holder's identity: the leading replica's Pod name and a suffix."),
        renewTime: z.string().optional(),
        leaseDurationSeconds: z.number().int().optional(),
        live: z
          .boolean()
          .describe("Held and renewed within its duration, by this machine's clock: a replica leads and reconciles."),
      })
      .strict(),
  })
  .strict();
export type OperatorState = z.infer<typeof OperatorState>;

/** The cluster itself: where it is, its nodes and whether it serves the product's kinds. */
export const ClusterState = z
  .object({
    server: z.string().describe("The API server's URL, from the kubeconfig."),
    kubernetesVersion: z.string().optional(),
    nodes: z.object({ ready: z.number().int().min(0), total: z.number().int().min(0) }).strict(),
    crds: z
      .object({
        expected: z.array(z.string()).describe("The product's CRDs, by name."),
        missing: z.array(z.string()).describe("Those the API server does not serve: absent, or not Established."),
      })
      .strict(),
  })
  .strict();
export type ClusterState = z.infer<typeof ClusterState>;

/** `navique status -o json`: one document, in this shape. */
export const StatusReport = z
  .object({
    version: z.literal(STATUS_REPORT_VERSION),
    observedAt: z.string().describe("When the cluster was read (RFC 3339)."),
    namespace: z.string().nullable().describe("The namespace the resources were limited to (-n); null: every one."),
    ready: z.boolean().describe("Every resource reported is Ready: what the exit code says (0 when true, 1 when not)."),
    cluster: ClusterState,
    operator: OperatorState,
    licence: LicenceState,
    capabilities: z.array(CapabilityState).describe("Every capability of the catalog, in its order."),
    resources: z.array(ResourceState).describe("Every resource of the product's kinds, by kind, namespace and name."),
  })
  .strict();
export type StatusReport = z.infer<typeof StatusReport>;

/** `navique status`'s exit codes: scripts gate on them. */
export const STATUS_EXIT_CODES = { allReady: 0, notReady: 1 } as const;

/** 0 when every resource reported is Ready (none counts as Ready), 1 otherwise. */
export function statusExitCode(report: Pick<StatusReport, "ready">): number {
  return report.ready ? STATUS_EXIT_CODES.allReady : STATUS_EXIT_CODES.notReady;
}
