import { labelOf } from "../engine/objects.js";
import {
  type LicenceState,
  type OperatorState,
  type ResourceReference,
  type StatusReport,
  statusExitCode,
} from "../reports/status-report.js";
import { table } from "./text-layout.js";

/** The resources that use a capability, the first two by name: the JSON report lists every one. */
function usedBy(resources: readonly ResourceReference[]): string {
  if (resources.length === 0) return "-";
  const named = resources.slice(0, 2).map(labelOf).join(", ");
  return resources.length > 2 ? `${named} and ${resources.length - 2} more` : named;
}

function operatorLine(operator: OperatorState): string {
  const deployments =
    operator.deployments.length === 0
      ? "no Deployment of the operator's chart"
      : operator.deployments
          .map((d) => `Deployment ${d.namespace}/${d.name} ${d.availableReplicas}/${d.replicas} available`)
          .join(", ");
  const { lease } = operator;
  const where = `Lease ${lease.namespace}/${lease.name}`;
  const leader = lease.live
    ? `leader ${lease.holder} (${where})`
    : lease.exists
      ? `no live leader (${where}${lease.holder ? ` last renewed by ${lease.holder} at ${lease.renewTime}` : ", no holder"})`
      : `no leader (no ${where})`;
  return `${deployments}; ${leader}`;
}

function licenceLine(licence: LicenceState): string {
  const edition =
    licence.edition === "Licensed"
      ? `Licensed — licence ${licence.licenseId}, expires ${licence.expiresAt} (${licence.daysLeft} days left)`
      : `Community${licence.reason ? ` — the stored licence does not apply: ${licence.reason}` : licence.stored ? "" : " (no licence stored)"}`;
  return `${edition}; features: ${licence.features.join(", ") || "none"}`;
}

/**
 * `navique status` as text: the cluster, the operator and the licence in a line each, then tables of the
 * resources (the message of each one not Ready under it), the capabilities (the evidence under each) and
 * the caps, and a last line with the count and the exit code.
 */
export function statusText(report: StatusReport): string {
  const { cluster, resources, capabilities, licence } = report;
  const notReady = resources.filter((r) => r.ready !== "True");
  const scope = report.namespace === null ? "every namespace" : `namespace ${report.namespace}`;
  const served = cluster.crds.expected.length - cluster.crds.missing.length;
  return [
    `cluster:   ${cluster.server}${cluster.kubernetesVersion ? `, Kubernetes ${cluster.kubernetesVersion}` : ""}, ${cluster.nodes.ready}/${cluster.nodes.total} nodes Ready, ${served}/${cluster.crds.expected.length} CRDs served`,
    `operator:  ${operatorLine(report.operator)}`,
    `licence:   ${licenceLine(licence)}`,
    "",
    `RESOURCES (${scope})`,
    resources.length === 0
      ? "none"
      : table(
          ["kind", "namespace", "name", "ready", "reason"],
          resources.map((r) => ({
            cells: [r.kind, r.namespace, r.name, r.ready, r.reason],
            ...(r.ready === "True" ? {} : { below: [r.message] }),
          })),
        ),
    "",
    "CAPABILITIES",
    table(
      ["name", "state", "ready", "chart", "used by"],
      capabilities.map((c) => ({
        cells: [
          c.name,
          c.state,
          c.state === "Absent" ? "-" : c.ready ? "True" : "False",
          c.chartVersion ?? "-",
          usedBy(c.usedBy),
        ],
        below: [c.evidence, ...(c.state !== "Absent" && !c.ready ? [`not Ready: ${c.waitingFor.join("; ")}`] : [])],
      })),
    ),
    "",
    `CAPS (${licence.edition === "Licensed" ? `licence ${licence.licenseId}` : "Community edition"}; every namespace)`,
    table(
      ["kind", "instances", "admitted", "cap", "refused"],
      licence.caps.map((c) => ({
        cells: [c.kind, String(c.instances), String(c.admitted), String(c.cap), String(c.refused.length)],
      })),
    ),
    "",
    `${resources.length} resource(s), ${notReady.length} not Ready: exit ${statusExitCode(report)} (docs/status-and-doctor.md)`,
  ].join("\n");
}
