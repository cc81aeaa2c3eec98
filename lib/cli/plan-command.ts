import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { API_GROUP_VERSION } from "../api/group.js";
import { parseInput } from "../api/validation.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import type { EngineResource } from "../engine/kind-module.js";
import { previewDesired } from "../engine/preview.js";
import { stderrReporter } from "../engine/reporter.js";
import { REGISTRY } from "../kinds/registry.js";
import { createReconcileContext } from "../reconcile/context.js";
import { cliHelm } from "./helm-binary.js";
import { resolveClusterTarget } from "./target.js";

/**
 * `navique plan -f FILE`: for every resource of a registered kind in a YAML file (e.g. cdk8s synth
 * output), the decisions a reconcile would make against the cluster — the same lines `pulumi preview`
 * prints. The file's grants count as applied (with it, they will be). Changes nothing.
 */
export async function runPlan(options: {
  readonly file: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly chartSource: string | undefined;
}): Promise<number> {
  const kinds = REGISTRY.kinds.map((m) => m.definition.kind);
  if (!options.file)
    throw new Error(`plan needs -f FILE: a YAML file holding ${kinds.join(", ")} resources (e.g. cdk8s synth output)`);
  const documents = parseAllDocuments(await readFile(options.file, "utf8")).map(
    (d) => d.toJS() as { apiVersion?: string; kind?: string } | null,
  );
  const ours = (document: { apiVersion?: string } | null) => document?.apiVersion === API_GROUP_VERSION;
  // Parsed before the cluster is touched: a bad document is reported with its field paths, nothing planned.
  const resources = documents.flatMap((document, index): EngineResource[] => {
    const module = ours(document) ? REGISTRY.kinds.find((m) => m.definition.kind === document?.kind) : undefined;
    return module ? [parseInput(module.schema, document, `${options.file} document ${index + 1}`)] : [];
  });
  // The file's grants are applied with it: they count as if in the cluster already.
  const pendingGrants = documents.flatMap((document, index) =>
    ours(document) && document?.kind === REGISTRY.grants.kind
      ? [parseInput(REGISTRY.grantSchema, document, `${options.file} document ${index + 1}`)].map((grant) => ({
          namespace: grant.metadata.namespace,
          spec: grant.spec,
        }))
      : [],
  );
  const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
  const client = KubeClient.fromFile(target.kubeconfig);
  const context = createReconcileContext({
    client,
    helm: new HelmCli({ binary: await cliHelm(undefined), kubeconfig: target.kubeconfig }),
    source: parseChartSource(options.chartSource),
  });
  for (const resource of resources) {
    const decisions = await previewDesired(context, resource, { pendingGrants });
    for (const line of decisions.lines) process.stdout.write(`${line}\n`);
    // A resource in place has no decision: the plan still names it, once.
    if (decisions.inPlace) {
      process.stdout.write(
        `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}: nothing to change\n`,
      );
    }
  }
  return 0;
}
