import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";

/** Label carried by every namespace a test creates, naming the suite that owns it. */
export const TEST_SUITE_LABEL = "test.navique.com/suite";

/** The kubeconfig of the local control plane the global setup started. */
export function testKubeConfig(): KubeConfig {
  const path = process.env.NAVIQUE_TEST_KUBECONFIG;
  if (!path)
    throw new Error(
      "NAVIQUE_TEST_KUBECONFIG is unset: run these tests through `npm test` (jest's global setup starts the plane)",
    );
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(path);
  return kubeconfig;
}

/**
 * A namespace of the suite's own, with a random suffix, so that suites running at once (or the leftovers
 * of an earlier run on a reused plane) never see each other's objects. `cleanup` deletes it.
 */
export async function createTestNamespace(suite: string): Promise<{ name: string; cleanup: () => Promise<void> }> {
  const core = testKubeConfig().makeApiClient(CoreV1Api);
  const name = `${suite}-${randomBytes(3).toString("hex")}`;
  await core.createNamespace({ body: { metadata: { name, labels: { [TEST_SUITE_LABEL]: suite } } } });
  return {
    name,
    cleanup: async () => {
      await core.deleteNamespace({ name }).catch((error: unknown) => {
        if (!(error instanceof ApiException && error.code === 404)) throw error;
      });
    },
  };
}

/** Polls `probe` until it returns a value other than undefined; fails with `what` and the last value seen. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(options.intervalMs ?? 200);
  }
  const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
  throw new Error(`timed out waiting for ${what}${detail}`);
}

/** The HTTP status of a failed client-node call, or undefined for anything else. */
export function apiStatus(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

type Conditioned = {
  readonly conditions?: readonly { type: string; status: string; reason: string; message: string }[];
};

/** A condition of a status, or of a resource's status. */
export function condition(holder: Conditioned | { status?: Conditioned | undefined } | undefined, type: string) {
  const status: Conditioned | undefined =
    holder && "conditions" in holder ? holder : (holder as { status?: Conditioned } | undefined)?.status;
  return status?.conditions?.find((c) => c.type === type);
}
