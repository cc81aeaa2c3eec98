import { doctorExitCode } from "../reports/doctor-report.js";
import { diagnose } from "../status/diagnose.js";
import { readStatus } from "../status/read-status.js";
import { doctorText } from "./doctor-text.js";
import { trustedKeys } from "./license-command.js";
import { writeJson } from "./output-format.js";
import { type ClusterReadOptions, reportClient } from "./status-command.js";

/**
 * `navique doctor`: the status of every namespace read, changing nothing — a resource of the namespace
 * asked for may wait on one elsewhere —, diagnosed (lib/status/diagnose.ts), and printed as text or as
 * one DoctorReport; exits 0 without a finding, 1 with one.
 */
export async function runDoctor(
  options: ClusterReadOptions & { readonly namespace: string | undefined },
): Promise<number> {
  const client = await reportClient(options.kubeconfig);
  const status = await readStatus(client, { now: new Date(), trustedKeys: await trustedKeys(options.trust) });
  const report = diagnose(status, options.namespace ? { namespace: options.namespace } : {});
  if (options.output === "json") writeJson(report);
  else process.stdout.write(`${doctorText(report)}\n`);
  return doctorExitCode(report);
}
