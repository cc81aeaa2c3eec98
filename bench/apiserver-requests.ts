import { type RequestOptions, request } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

/** Requests the apiserver has served so far, by `VERB resource[/subresource] (scope)`, from its /metrics. */
export async function apiserverRequests(kubeconfig: KubeConfig): Promise<Map<string, number>> {
  const server = kubeconfig.getCurrentCluster()?.server;
  if (!server) throw new Error("the kubeconfig has no current cluster");
  const options: RequestOptions = { method: "GET" };
  await kubeconfig.applyToHTTPSOptions(options);
  const text = await new Promise<string>((resolve, reject) => {
    const sent = request(new URL("/metrics", server), options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      response.on("error", reject);
    });
    sent.on("error", reject);
    sent.end();
  });
  const counts = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const labels = Object.fromEntries(
      [...line.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1] as string, match[2] as string]),
    );
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    const key = `${labels.verb} ${labels.resource}${labels.subresource ? `/${labels.subresource}` : ""} (${labels.scope})`;
    counts.set(key, (counts.get(key) ?? 0) + value);
  }
  return counts;
}

/** The requests served between two readings, by rate, the busiest first. */
export function requestRates(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  seconds: number,
): { readonly what: string; readonly perSecond: number }[] {
  return [...after]
    .map(([what, count]) => ({ what, perSecond: (count - (before.get(what) ?? 0)) / seconds }))
    .filter((rate) => rate.perSecond > 0)
    .sort((a, b) => b.perSecond - a.perSecond);
}
