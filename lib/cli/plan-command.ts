import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { POSTGRES_CLUSTER_KIND, PostgresCluster } from "../api/postgres-cluster.js";
import { REFERENCE_GRANT_KIND, ReferenceGrant } from "../api/reference-grant.js";
import { STACK_KIND, Stack } from "../api/stack.js";
import { parseInput } from "../api/validation.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import { resolveClusterTarget } from "../cluster/target.js";
import { stderrReporter } from "../local-plane/progress.js";
import { toolchainPaths } from "../local-plane/toolchain-paths.js";
import { createReconcileContext } from "../reconcile/context.js";
import { previewDesired, previewDesiredStack } from "../reconcile/preview.js";

/**
 * `navique plan -f FILE`: for every PostgresCluster and Stack in a YAML file (e.g. cdk8s synth output), the
 * decisions a reconcile would make against the cluster — the same lines `pulumi preview` prints. The
 * file's ReferenceGrants count as applied (with it, they will be). Changes nothing.
 */
export async function runPlan(options: {
  readonly file: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly chartSource: string | undefined;
}): Promise<number> {
  if (!options.file)
    throw new Error(
      "plan needs -f FILE: a YAML file holding PostgresCluster and Stack resources (e.g. cdk8s synth output)",
    );
  const documents = parseAllDocuments(await readFile(options.file, "utf8")).map(
    (d) => d.toJS() as { kind?: string } | null,
  );
  // Parsed before the cluster is touched: a bad document is reported with its field paths, nothing planned.
  const resources = documents.flatMap((document, index): (PostgresCluster | Stack)[] => {
    const where = `${options.file} document ${index + 1}`;
    if (document?.kind === POSTGRES_CLUSTER_KIND) return [parseInput(PostgresCluster, document, where)];
    if (document?.kind === STACK_KIND) return [parseInput(Stack, document, where)];
    return [];
  });
  // The file's ReferenceGrants are applied with it: they count as if in the cluster already.
  const pendingGrants = documents.flatMap((document, index) =>
    document?.kind === REFERENCE_GRANT_KIND
      ? [parseInput(ReferenceGrant, document, `${options.file} document ${index + 1}`)].map((grant) => ({
          namespace: grant.metadata.namespace,
          spec: grant.spec,
        }))
      : [],
  );
  const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
  const client = KubeClient.fromFile(target.kubeconfig);
  const context = createReconcileContext({
    client,
    helm: new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig: target.kubeconfig }),
    source: parseChartSource(options.chartSource),
  });
  for (const resource of resources) {
    const decisions =
      resource.kind === STACK_KIND
        ? await previewDesiredStack(context, resource)
        : await previewDesired(context, resource, pendingGrants);
    for (const line of decisions.lines) process.stdout.write(`${line}\n`);
  }

  return 0;
}
