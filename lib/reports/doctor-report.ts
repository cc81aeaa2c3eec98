import * as z from "zod";

/** The version of `navique doctor -o json`'s shape; the same rule as the status report's (docs/status-and-doctor.md). */
export const DOCTOR_REPORT_VERSION = 1;

/**
 * What a finding is about, stable for machines: scripts may count or filter on it. The order is the order
 * findings are listed in — the cluster's before the resources', a cause before what it holds up.
 */
export const FINDING_CODES = [
  "NoNodeReady",
  "CrdsMissing",
  "OperatorNotRunning",
  "OperatorDeploymentUnavailable",
  "NoLeader",
  "LicenceNotInForce",
  "CapExceeded",
  "CapabilityNotReady",
  "NotReconciled",
  "ResourceStalled",
  "ResourceNotReady",
  "WaitingForCapability",
  "WaitingForDependency",
] as const;
export const FindingCode = z.enum(FINDING_CODES);
export type FindingCode = z.infer<typeof FindingCode>;

/**
 * The subjects findings name besides resources (`Kind namespace/name`) and capabilities
 * (`capability <name>`): what blocks and is blocked are linked by these words.
 */
export const SUBJECTS = {
  cluster: "cluster",
  crds: "CRDs",
  operator: "operator",
  licence: "licence",
} as const;

/** `capability <name>`: how a finding names a capability. */
export function capabilitySubject(name: string): string {
  return `capability ${name}`;
}

/** One thing that is wrong, what it holds up and what it waits on, and what to do. */
export const Finding = z
  .object({
    code: FindingCode,
    subject: z
      .string()
      .describe("What is wrong: `Kind namespace/name`, `capability <name>`, cluster, CRDs, operator, licence."),
    problem: z.string().describe("What is wrong, in the words of the conditions and detection that say it."),
    blockedBy: z
      .array(z.string())
      .describe("The subjects it waits on: each has a finding of its own, listed before it."),
    blocks: z.array(z.string()).describe("The subjects it holds up."),
    fix: z.string().describe("What to do."),
  })
  .strict();
export type Finding = z.infer<typeof Finding>;

/** `navique doctor -o json`: one document, in this shape. */
export const DoctorReport = z
  .object({
    version: z.literal(DOCTOR_REPORT_VERSION),
    observedAt: z.string().describe("When the cluster was read (RFC 3339)."),
    namespace: z.string().nullable().describe("The namespace the resources were limited to (-n); null: every one."),
    findings: z.array(Finding).describe("Every finding, causes first; empty when nothing is wrong."),
  })
  .strict();
export type DoctorReport = z.infer<typeof DoctorReport>;

/** `navique doctor`'s exit codes. */
export const DOCTOR_EXIT_CODES = { noFinding: 0, findings: 1 } as const;

/** 0 without a finding, 1 with at least one. */
export function doctorExitCode(report: Pick<DoctorReport, "findings">): number {
  return report.findings.length === 0 ? DOCTOR_EXIT_CODES.noFinding : DOCTOR_EXIT_CODES.findings;
}
