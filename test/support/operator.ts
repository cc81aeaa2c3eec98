import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { NaviqueOperator, type OperatorOptions } from "../../providers/operator/operator.js";
import { FIXTURE_SOURCE } from "./capabilities.js";
import { TEST_TRUSTED_KEYS } from "./licence.js";

/**
 * The operator in the test's own process, quiet, with the fixture chart mirror, quick resyncs and the
 * test's licence key: what a test then changes (a clock, namespaces) comes in `options`.
 */
export function inProcessOperator(
  client: KubeClient,
  helm: HelmCli,
  options: Partial<Omit<OperatorOptions, "client" | "helm">> = {},
): NaviqueOperator {
  return new NaviqueOperator({
    client,
    helm,
    source: FIXTURE_SOURCE,
    resyncMs: 300,
    requeueMs: 300,
    report: () => {},
    trustedKeys: TEST_TRUSTED_KEYS,
    ...options,
  });
}
