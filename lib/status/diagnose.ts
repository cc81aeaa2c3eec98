import { type Condition, OPERATORS_READY } from "../api/conditions.js";
import { DEPENDENCIES_READY } from "../engine/dependencies.js";
import { labelOf } from "../engine/objects.js";
import { LICENSE_KIND, LICENSE_NAME } from "../kinds/license/schema.js";
import { LICENSED } from "../licence/enforce.js";
import { HOW_TO_LICENSE } from "../licence/entitlements.js";
import {
  capabilitySubject,
  DOCTOR_REPORT_VERSION,
  type DoctorReport,
  FINDING_CODES,
  type Finding,
  type FindingCode,
  SUBJECTS,
} from "../reports/doctor-report.js";
import {
  type CapabilityState,
  type CapUse,
  NOT_RECONCILED,
  type ResourceState,
  type StatusReport,
} from "../reports/status-report.js";
import { OPERATOR_SELECTOR } from "./read-operator.js";

/** A finding while it is made: what it is about, for the namespace filter, and what it holds up besides its links. */
interface Draft {
  readonly code: FindingCode;
  readonly subject: string;
  readonly problem: string;
  readonly blockedBy: readonly string[];
  /** What it holds up that has no finding of its own (a resource the cap refused). */
  readonly holds?: readonly string[];
  readonly fix: string;
  /** The namespaces of the resources it concerns; undefined: the whole cluster's. */
  readonly namespaces?: readonly string[];
}

const conditionOf = (resource: ResourceState, type: string): Condition | undefined =>
  resource.conditions.find((c) => c.type === type);

const capSubject = (kind: string) => `cap ${kind}`;

/** The cluster's own findings: no node to run anything on, the product's kinds not served. */
function clusterFindings(report: StatusReport): Draft[] {
  const { nodes, crds } = report.cluster;
  const drafts: Draft[] = [];
  if (nodes.ready === 0)
    drafts.push({
      code: "NoNodeReady",
      subject: SUBJECTS.cluster,
      problem: `no node is Ready (${nodes.ready} of ${nodes.total}): no pod of the operator or of a capability's controller can run`,
      blockedBy: [],
      fix: "see why with `kubectl get nodes` and `kubectl describe node NAME` (a kubelet stopped, a network lost, a node under pressure), and repair or add a node",
    });
  if (crds.missing.length > 0)
    drafts.push({
      code: "CrdsMissing",
      subject: SUBJECTS.crds,
      problem: `the API server does not serve ${crds.missing.length} of the product's ${crds.expected.length} CRDs: ${crds.missing.join(", ")}; resources of their kinds can be neither created nor read`,
      blockedBy: [],
      fix: "install or upgrade the operator's chart, whose crds/ directory holds them (docs/operator.md), or start the operator, which applies them when it takes the lead; a CRD that exists without being served is not Established: `kubectl get crd NAME -o yaml` says why in its status",
    });
  return drafts;
}

/** The operator's findings: none running, its Deployment without an available replica, or no leader. */
function operatorFindings(report: StatusReport, blockedByCluster: readonly string[]): Draft[] {
  const { deployments, lease } = report.operator;
  const leaseName = `${lease.namespace}/${lease.name}`;
  if (deployments.length === 0) {
    if (lease.live) return [];
    return [
      {
        code: "OperatorNotRunning",
        subject: SUBJECTS.operator,
        problem: `no operator runs: no Deployment labelled ${OPERATOR_SELECTOR}, and the leader Lease ${leaseName} ${
          !lease.exists ? "does not exist" : lease.holder ? "is not renewed" : "has no holder"
        }; nothing is reconciled`,
        blockedBy: [],
        fix: "install the operator's chart, which the package ships in charts/navique-ai-core-operator (`helm install navique-operator node_modules/@navique/ai-core/charts/navique-ai-core-operator -n navique-system --create-namespace`), or run `navique operator` against this cluster. An operator run with --leader-elect=false outside the cluster leaves no trace to see: if one runs, this finding is wrong",
      },
    ];
  }
  const down = deployments.filter((d) => d.availableReplicas === 0);
  if (down.length === deployments.length)
    return down.map((d) => ({
      code: "OperatorDeploymentUnavailable",
      subject: SUBJECTS.operator,
      problem: `Deployment ${d.namespace}/${d.name} has no available replica (0 of ${d.replicas}); nothing is reconciled`,
      blockedBy: blockedByCluster,
      fix: `see why with \`kubectl -n ${d.namespace} describe deployment ${d.name}\` and its pods' events, and \`kubectl -n ${d.namespace} logs deployment/${d.name}\`; its readiness probe (GET /readyz) says what it waits for (docs/operator.md)`,
    }));
  if (lease.live) return [];
  const [first] = deployments;
  const logs = first ? `\`kubectl -n ${first.namespace} logs deployment/${first.name}\`` : "the replicas' logs";
  return [
    {
      code: "NoLeader",
      subject: SUBJECTS.operator,
      problem: `its replicas run, but the leader Lease ${leaseName} ${
        !lease.exists
          ? "does not exist"
          : lease.holder
            ? `was last renewed by ${lease.holder} at ${lease.renewTime ?? "an unknown time"}, longer ago than its ${lease.leaseDurationSeconds ?? "?"} s`
            : "has no holder"
      }: none of them reconciles`,
      blockedBy: [],
      fix: `read their [leader] lines in ${logs}: a replica that may not get or update Leases there, or that cannot reach the API server, stays a standby. The Lease is judged by this machine's clock: one off by more than the lease's duration misjudges it`,
    },
  ];
}

/** Why a stored licence does not apply, and what to do for that reason (the refusal's code leads its text). */
function licenceFix(reason: string): string {
  if (reason.startsWith("expired")) return `renew it: ${HOW_TO_LICENSE}`;
  if (reason.startsWith("unknown-key"))
    return "it is signed with a key this command does not trust: if the operator trusts it (its --trust), give the same key here with --trust ID=PUBFILE and look again; otherwise ask your navique account contact for a licence signed with a key the product trusts";
  if (reason.startsWith("not-yet-valid")) return "it applies from its notBefore on: wait, or ask for one valid now";
  return `apply a licence that verifies (\`navique license inspect --file FILE\` says what a token grants), or ${HOW_TO_LICENSE}`;
}

/** The licence's findings: a stored licence that does not apply, and each cap that refused resources. */
function licenceFindings(report: StatusReport): Draft[] {
  const { licence } = report;
  const drafts: Draft[] = [];
  const inForce =
    licence.edition === "Licensed" ? `licence ${licence.licenseId ?? ""}`.trim() : "the Community edition";
  if (licence.stored && licence.edition === "Community" && licence.reason)
    drafts.push({
      code: "LicenceNotInForce",
      subject: SUBJECTS.licence,
      problem: `the ${LICENSE_KIND} ${LICENSE_NAME} does not apply (${licence.reason}): the Community edition does, without paid features and with its caps`,
      blockedBy: [],
      fix: licenceFix(licence.reason),
    });
  const refusedBy = (cap: CapUse) => cap.refused.map(labelOf);
  for (const cap of licence.caps.filter((c) => c.refused.length > 0))
    drafts.push({
      code: "CapExceeded",
      subject: capSubject(cap.kind),
      problem: `${cap.instances} ${cap.kind} instance(s) for a cap of ${cap.cap} under ${inForce}: ${refusedBy(cap).join(", ")} ${cap.refused.length === 1 ? "is" : "are"} refused, nothing created for ${cap.refused.length === 1 ? "it" : "them"}`,
      blockedBy: drafts.some((d) => d.code === "LicenceNotInForce") ? [SUBJECTS.licence] : [],
      holds: refusedBy(cap),
      fix: `delete an unused ${cap.kind}, or ${HOW_TO_LICENSE}`,
      namespaces: cap.refused.map((r) => r.namespace),
    });
  return drafts;
}

/**
 * A capability that is not Ready while resources wait for it (`waiting`: their OperatorsReady is False),
 * with what to do by its provenance.
 */
function capabilityFinding(
  capability: CapabilityState,
  waiting: readonly ResourceState[],
  blockedBy: readonly string[],
): Draft {
  const release = `${capability.release.namespace}/${capability.release.name}`;
  const why = [...capability.unavailable, ...capability.waitingFor.filter((w) => !capability.unavailable.includes(w))];
  const fixes: Record<CapabilityState["state"], string> = {
    Absent: `the operator installs it (release ${release}, chart ${capability.pinnedVersion}) when it reconciles a resource that needs it; if it stays Absent, read the OperatorsReady condition of ${waiting.map(labelOf)[0] ?? "a resource that needs it"}`,
    Owned: `the operator installs, upgrades or restores its release ${release} at its next pass; if it stays not Ready, see why with \`kubectl -n ${capability.release.namespace} describe deployment\` and the pods' events`,
    Adopted:
      "it was installed by someone else, and the product repairs nothing of it: repair that installation (its Deployments' events and logs say why), or uninstall it and the product installs its own",
  };
  return {
    code: "CapabilityNotReady",
    subject: capabilitySubject(capability.name),
    problem: `${capability.name} is ${capability.state} and not Ready: ${why.join("; ") || "not Ready"} (${capability.evidence})`,
    blockedBy,
    fix: fixes[capability.state],
    namespaces: waiting.map((r) => r.namespace),
  };
}

/** The resources that hold `resource` up among those it depends on: missing, or not Ready. */
function blockers(
  resource: ResourceState,
  byLabel: ReadonlyMap<string, ResourceState>,
): { label: string; field: string; found?: ResourceState }[] {
  return resource.dependsOn.flatMap((d) => {
    const label = labelOf(d);
    const found = byLabel.get(label);
    if (found?.ready === "True") return [];
    return [{ label, field: d.field, ...(found ? { found } : {}) }];
  });
}

/**
 * The resources at the end of the chains that hold `resource` up: each dependency not Ready that does not
 * itself wait for one, or one missing. A cycle cannot be (the registry refuses one among kinds); the set
 * of visited ones stops one all the same.
 */
function roots(
  resource: ResourceState,
  byLabel: ReadonlyMap<string, ResourceState>,
  seen = new Set<string>(),
): { label: string; field: string; found?: ResourceState }[] {
  seen.add(labelOf(resource));
  return blockers(resource, byLabel).flatMap((blocker) => {
    if (seen.has(blocker.label)) return [];
    const further = blocker.found && waitsForDependency(blocker.found) ? roots(blocker.found, byLabel, seen) : [];
    return further.length > 0 ? further : [blocker];
  });
}

/** Whether a resource waits for a dependency (DependenciesReady False) and nothing else holds it for good (not Stalled). */
function waitsForDependency(resource: ResourceState): boolean {
  return conditionOf(resource, DEPENDENCIES_READY)?.status === "False" && !resource.stalled;
}

/**
 * Whether a resource waits for its capabilities (OperatorsReady False), and for nothing that comes before
 * them: a pass ensures capabilities only for a resource past its gates and dependencies.
 */
function waitsForCapabilities(resource: ResourceState): boolean {
  return (
    resource.ready !== "True" &&
    resource.reason !== NOT_RECONCILED &&
    !resource.stalled &&
    !waitsForDependency(resource) &&
    conditionOf(resource, OPERATORS_READY)?.status === "False"
  );
}

/** The finding of one resource that is not Ready, from its own conditions; none for one the cap refused (the cap's finding names it). */
function resourceFinding(
  resource: ResourceState,
  context: {
    readonly byLabel: ReadonlyMap<string, ResourceState>;
    readonly capabilities: ReadonlyMap<string, Draft>;
    readonly operator: string | undefined;
    readonly licence: string | undefined;
    readonly caps: ReadonlySet<string>;
  },
): Draft | undefined {
  const subject = labelOf(resource);
  const base = { subject, namespaces: [resource.namespace] };
  const stale = resource.current ? "" : " (its status is for an earlier spec: the operator has not caught up with it)";
  if (resource.reason === NOT_RECONCILED)
    return {
      ...base,
      code: "NotReconciled",
      problem: "it has no status: no pass of the operator has reconciled it",
      blockedBy: context.operator ? [context.operator] : [],
      fix: context.operator
        ? "the operator does not reconcile (its finding says why, and what to do); once it leads, it reconciles every resource"
        : "the operator has not come to it yet: look again after a pass; if it stays so, the operator's log names it",
    };
  if (context.caps.has(subject)) return undefined;
  if (resource.stalled)
    return {
      ...base,
      code: "ResourceStalled",
      problem: `not Ready (${resource.reason}), and waiting will not clear it: ${resource.message}${stale}`,
      blockedBy: context.licence && conditionOf(resource, LICENSED)?.status === "False" ? [context.licence] : [],
      fix: resource.message,
    };
  if (waitsForDependency(resource)) {
    const direct = blockers(resource, context.byLabel).map((b) => b.label);
    const fixes = roots(resource, context.byLabel).map((root) =>
      root.found
        ? `make ${root.label} Ready — ${root.found.reason}: ${root.found.message}`
        : `${root.label} does not exist: create it, or point ${root.field} at one that does`,
    );
    return {
      ...base,
      code: "WaitingForDependency",
      problem: `not Ready (${resource.reason}): ${conditionOf(resource, DEPENDENCIES_READY)?.message ?? resource.message}${stale}`,
      blockedBy: direct,
      fix: fixes.join("; ") || "its dependencies are Ready now: the operator's next pass takes it on",
    };
  }
  const operators = conditionOf(resource, OPERATORS_READY);
  if (operators && waitsForCapabilities(resource)) {
    const waited = resource.needs.flatMap((name) => {
      const finding = context.capabilities.get(name);
      return finding ? [finding] : [];
    });
    return {
      ...base,
      code: "WaitingForCapability",
      problem: `not Ready (${operators.reason}): ${operators.message}${stale}`,
      blockedBy: waited.map((f) => f.subject),
      fix:
        waited.map((f) => `${f.subject}: ${f.fix}`).join("; ") ||
        "the capabilities it needs are Ready now: the operator's next pass takes it on",
    };
  }
  return {
    ...base,
    code: "ResourceNotReady",
    problem: `not Ready (${resource.reason})${stale}`,
    blockedBy: [],
    fix: resource.message,
  };
}

/** The findings that concern `namespace`, and every one they wait on, however far. */
function inScope(drafts: readonly Draft[], namespace: string | undefined): Draft[] {
  if (namespace === undefined) return [...drafts];
  const kept = new Set(drafts.filter((d) => !d.namespaces || d.namespaces.includes(namespace)));
  const bySubject = new Map(drafts.map((d) => [d.subject, d]));
  const queue = [...kept];
  for (let draft = queue.shift(); draft; draft = queue.shift()) {
    for (const subject of draft.blockedBy) {
      const cause = bySubject.get(subject);
      if (cause && !kept.has(cause)) {
        kept.add(cause);
        queue.push(cause);
      }
    }
  }
  return drafts.filter((d) => kept.has(d));
}

/**
 * `navique doctor`'s findings from a status report of every namespace: what is wrong, what it holds up
 * and what it waits on, each with its fix — in the words the resources' conditions, the engine's
 * detection and the licence already say; nothing is decided anew. With `namespace`, the findings of its
 * resources and of everything they wait on, wherever it is, and the cluster's own.
 */
export function diagnose(report: StatusReport, options: { readonly namespace?: string } = {}): DoctorReport {
  const cluster = clusterFindings(report);
  const noNode = cluster.some((d) => d.code === "NoNodeReady") ? [SUBJECTS.cluster] : [];
  const operator = operatorFindings(report, noNode);
  const licence = licenceFindings(report);
  const operatorSubject = operator.length > 0 ? SUBJECTS.operator : undefined;
  const refusedByCaps = new Set(licence.flatMap((d) => (d.code === "CapExceeded" ? (d.holds ?? []) : [])));
  // A capability is a finding while resources wait for it; one not Ready that nothing waits for holds nothing up.
  const capabilities = new Map<string, Draft>();
  for (const capability of report.capabilities.filter((c) => !c.ready)) {
    const waiting = report.resources.filter(
      (r) => waitsForCapabilities(r) && !refusedByCaps.has(labelOf(r)) && r.needs.includes(capability.name),
    );
    if (waiting.length === 0) continue;
    const blockedBy =
      capability.state === "Adopted" ? noNode : [...noNode, ...(operatorSubject ? [operatorSubject] : [])];
    capabilities.set(capability.name, capabilityFinding(capability, waiting, blockedBy));
  }
  const byLabel = new Map(report.resources.map((r) => [labelOf(r), r]));
  const resources = report.resources
    .filter((r) => r.ready !== "True")
    .flatMap(
      (r) =>
        resourceFinding(r, {
          byLabel,
          capabilities,
          operator: operatorSubject,
          licence: licence.some((d) => d.code === "LicenceNotInForce") ? SUBJECTS.licence : undefined,
          caps: refusedByCaps,
        }) ?? [],
    );
  const drafts = inScope(
    [...cluster, ...operator, ...licence, ...capabilities.values(), ...resources],
    options.namespace,
  );
  const order = (d: Draft) => FINDING_CODES.indexOf(d.code);
  const findings: Finding[] = drafts
    .sort((a, b) => order(a) - order(b))
    .map((draft) => ({
      code: draft.code,
      subject: draft.subject,
      problem: draft.problem,
      blockedBy: [...draft.blockedBy],
      blocks: [
        ...new Set([
          ...drafts.filter((other) => other.blockedBy.includes(draft.subject)).map((other) => other.subject),
          ...(draft.holds ?? []),
        ]),
      ],
      fix: draft.fix,
    }));
  return {
    version: DOCTOR_REPORT_VERSION,
    observedAt: report.observedAt,
    namespace: options.namespace ?? null,
    findings,
  };
}
