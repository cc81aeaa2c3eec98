import type { ChildProcess } from "node:child_process";
import { outputContains } from "./two-operators.js";

/** Where an operator process serves its endpoints. */
export interface OperatorEndpoints {
  readonly metrics: string;
  readonly healthz: string;
  readonly readyz: string;
}

/**
 * Where an operator started by startOperatorProcess serves /metrics, /healthz and /readyz — on free ports
 * (`127.0.0.1:0`), so read from what it said once it listens.
 */
export async function operatorEndpoints(child: ChildProcess, output: () => string): Promise<OperatorEndpoints> {
  await outputContains(child, output, /serving health probes on \S+/);
  await outputContains(child, output, /serving metrics on \S+/);
  const metrics = /serving metrics on (\S+)/.exec(output())?.[1];
  const probes = /serving health probes on (\S+) and (\S+)/.exec(output());
  if (!metrics || !probes?.[1] || !probes[2])
    throw new Error(`the operator did not say where it listens:\n${output()}`);
  return { metrics, healthz: probes[1], readyz: probes[2] };
}

/** The status and body of a GET. */
export async function httpGet(url: string): Promise<{ readonly status: number; readonly body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

/**
 * The value of one sample in Prometheus's text format, by its name and labels as written
 * (`navique_reconcile_total{kind="Stack",result="success"}`); undefined when the text has no such sample.
 */
export function sampleValue(text: string, sample: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}
