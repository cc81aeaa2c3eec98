import type { DoctorReport } from "../reports/doctor-report.js";
import { wrap } from "./text-layout.js";

/** Where the label of a finding's lines ends and its text begins. */
const COLUMN = 14;

function labelled(label: string, text: string): string {
  return `  ${label.padEnd(COLUMN - 2)}${wrap(text, COLUMN).slice(COLUMN)}`;
}

/**
 * `navique doctor` as text: a first line with the count, then each finding — its subject and code, what is
 * wrong, what it waits on and holds up, and the fix —, causes first.
 */
export function doctorText(report: DoctorReport): string {
  const scope = report.namespace === null ? "" : ` for namespace ${report.namespace} and what it waits on`;
  if (report.findings.length === 0)
    return `no finding${scope}: the cluster serves the product's kinds, the operator leads, and every resource is Ready`;
  return [
    `${report.findings.length} finding(s)${scope}, causes first (docs/status-and-doctor.md):`,
    ...report.findings.flatMap((finding) => [
      "",
      `${finding.subject} [${finding.code}]`,
      labelled("problem:", finding.problem),
      ...(finding.blockedBy.length > 0 ? [labelled("blocked by:", finding.blockedBy.join(", "))] : []),
      ...(finding.blocks.length > 0 ? [labelled("blocks:", finding.blocks.join(", "))] : []),
      labelled("fix:", finding.fix),
    ]),
  ].join("\n");
}
