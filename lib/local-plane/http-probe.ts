import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export interface ProbeResult {
  readonly status: number;
  readonly body: string;
}

/**
 * One GET with a short timeout, for health endpoints. Never throws: a refused connection or a timeout is
 * reported as status 0, because while a component starts those are expected answers, not failures.
 */
export function probe(
  url: string,
  options: { readonly ca?: string | Buffer; readonly token?: string; readonly timeoutMs?: number } = {},
): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const requestFn = target.protocol === "https:" ? httpsRequest : httpRequest;
    const req = requestFn(
      target,
      {
        method: "GET",
        timeout: options.timeoutMs ?? 2_000,
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        ...(target.protocol === "https:" ? (options.ca ? { ca: options.ca } : { rejectUnauthorized: false }) : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", () => resolve({ status: 0, body: "" }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ status: 0, body: error.message }));
    req.end();
  });
}
