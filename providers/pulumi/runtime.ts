/**
 * What the Pulumi dynamic provider runs, inside the provider process. It is imported at call time by
 * the serialized provider (see runtime-provider.ts), so that no module is captured into the
 * Pulumi state: only this file's location is.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import {
  POSTGRES_CLUSTER_KIND,
  POSTGRES_CLUSTER_PLURAL,
  PostgresClusterSpec,
  type PostgresClusterSpecInput,
} from "../../lib/api/postgres-cluster.js";
import { fieldPath } from "../../lib/api/validation.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient, orUndefined, statusOf } from "../../lib/cluster/kube-client.js";
import { readPostgresCluster } from "../../lib/observe/postgres-cluster.js";
import { REFERENCE_NOT_PERMITTED } from "../../lib/plan/reference-grants.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  type ReconcileContext,
  type ReconcileOutcome,
  reconcilePostgresCluster,
} from "../../lib/reconcile/postgres-cluster.js";

/** The dynamic resource's inputs, as stored in the Pulumi state (no secret among them). */
export interface PostgresClusterInputs extends ClusterInputs {
  readonly namespace: string;
  readonly name: string;
  readonly spec: PostgresClusterSpecInput;
  readonly timeoutSeconds: number;
}

/** The dynamic resource's outputs. `password` is made a secret by the component (additionalSecretOutputs). */
export interface PostgresClusterOutputs extends PostgresClusterInputs {
  readonly host: string;
  readonly port: number;
  readonly credentialsSecret: { readonly name: string; readonly namespace: string };
  readonly username: string;
  readonly password: string;
  readonly provenance: string;
  readonly capabilities: readonly {
    readonly name: string;
    readonly provenance: string;
    readonly chartVersion?: string;
  }[];
}

const PASS_INTERVAL_MS = 1_000;

/** Pulumi's `check` of a spec: every schema problem as a `{property, reason}` failure, the property being the field path. */
export function checkSpec<I extends { readonly spec: unknown }>(
  schema: z.ZodType,
  news: I,
): { inputs: I; failures: { property: string; reason: string }[] } {
  const parsed = schema.safeParse(news.spec, { reportInput: true });
  if (parsed.success) return { inputs: news, failures: [] };
  return {
    inputs: news,
    failures: parsed.error.issues.map((issue) => ({ property: fieldPath(issue.path, "spec"), reason: issue.message })),
  };
}

/** Pulumi's `check` of a PostgresCluster. */
export function check(news: PostgresClusterInputs) {
  return checkSpec(PostgresClusterSpec, news);
}

/** What every dynamic resource of the product is told about its cluster. */
export interface ClusterInputs {
  readonly kubeconfig: string;
  readonly helm: string;
  readonly chartSource?: string;
}

/**
 * The core wired for the provider process. `trustedKeys` is for tests that call the runtime in-process;
 * a Pulumi program cannot set it, so licences are verified with the product's own keys.
 */
export function contextFor(inputs: ClusterInputs, trustedKeys?: ReadonlyMap<string, string>): ReconcileContext {
  const client = KubeClient.fromFile(inputs.kubeconfig);
  return createReconcileContext({
    client,
    helm: new HelmCli({ binary: inputs.helm, kubeconfig: inputs.kubeconfig }),
    source: parseChartSource(inputs.chartSource),
    ...(trustedKeys ? { trustedKeys } : {}),
  });
}

/** Before a resource is recorded: the product's CRDs applied, and its namespace created when missing (never deleted). */
export async function prepareCluster(client: KubeClient, namespace: string): Promise<void> {
  await ensureNaviqueCrds(client);
  await client.core.createNamespace({ body: { metadata: { name: namespace } } }).catch((error: unknown) => {
    if (statusOf(error) !== 409) throw error;
  });
}

/**
 * Reconciles one PostgresCluster once, as `up` does at each pass; a licence refusal or a reference into
 * another namespace that it does not grant is an error, since Pulumi cannot deliver what was declared.
 */
export async function reconcileOnce(
  context: ReconcileContext,
  namespace: string,
  name: string,
): Promise<ReconcileOutcome> {
  const resource = await readPostgresCluster(context.client, namespace, name);
  if (!resource) throw new Error(`PostgresCluster ${namespace}/${name} vanished while being reconciled`);
  const outcome = await reconcilePostgresCluster(context, resource);
  if (outcome.plan.refusal) {
    throw new Error(`PostgresCluster ${namespace}/${name} refused by the licence: ${outcome.plan.refusal.message}`);
  }
  // Nothing is done until the other namespace grants the reference: waiting would not change that.
  const ready = outcome.plan.conditions.find((c) => c.type === "Ready");
  if (ready?.reason === REFERENCE_NOT_PERMITTED) {
    throw new Error(`PostgresCluster ${namespace}/${name}: reference not permitted: ${ready.message}`);
  }
  return outcome;
}

async function credentials(
  client: KubeClient,
  secret: { name: string; namespace: string },
): Promise<{ username: string; password: string }> {
  const found = await orUndefined(client.core.readNamespacedSecret(secret));
  const read = (key: string) => Buffer.from(found?.data?.[key] ?? "", "base64").toString("utf8");
  return { username: read("username"), password: read("password") };
}

/**
 * Create or update: records the desired state as the PostgresCluster custom resource (so kubectl, the
 * operator and every front end see the same object), then reconciles it pass after pass until Ready.
 */
export async function up(inputs: PostgresClusterInputs): Promise<{ id: string; outs: PostgresClusterOutputs }> {
  const context = contextFor(inputs);
  const { client } = context;
  await prepareCluster(client, inputs.namespace);
  await client.apply({
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: POSTGRES_CLUSTER_KIND,
    metadata: { name: inputs.name, namespace: inputs.namespace },
    // Parsed again at this boundary: the defaults are written out, so the object says exactly what runs.
    spec: PostgresClusterSpec.parse(inputs.spec),
  } as never);
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  let last = "";
  for (;;) {
    const outcome = await reconcileOnce(context, inputs.namespace, inputs.name);
    const ready = outcome.plan.conditions.find((c) => c.type === "Ready");
    last = ready?.message ?? last;
    if (!outcome.requeue) {
      const status = outcome.plan.status;
      const secret = status.credentialsSecret ?? { name: "", namespace: inputs.namespace };
      const found = await credentials(client, { name: secret.name, namespace: secret.namespace ?? inputs.namespace });
      return {
        id: `${inputs.namespace}/${inputs.name}`,
        outs: {
          ...inputs,
          host: status.host ?? "",
          port: status.port ?? 5432,
          credentialsSecret: { name: secret.name, namespace: secret.namespace ?? inputs.namespace },
          username: found.username,
          password: found.password,
          provenance: status.provenance ?? "",
          capabilities: status.capabilities.map((c) => ({
            name: c.name,
            provenance: c.provenance,
            ...(c.chartVersion ? { chartVersion: c.chartVersion } : {}),
          })),
        },
      };
    }
    if (Date.now() > deadline) {
      throw new Error(
        `PostgresCluster ${inputs.namespace}/${inputs.name} was not Ready after ${inputs.timeoutSeconds}s: ${last}`,
      );
    }
    await sleep(PASS_INTERVAL_MS);
  }
}

/**
 * Runs one deletion pass of a resource that another front end (the operator, a second `pulumi destroy`)
 * may be finalizing at the same time. The pass works on the copy it read; when the other one removed the
 * last finalizer meanwhile, the pass's next write answers 404. A resource gone is what a delete wants:
 * undefined (done) when the pass failed with 404 and the resource is indeed gone; any other failure is
 * thrown.
 */
export async function unlessVanished<T>(pass: () => Promise<T>, gone: () => Promise<boolean>): Promise<T | undefined> {
  try {
    return await pass();
  } catch (error) {
    if (statusOf(error) === 404 && (await gone())) return undefined;
    throw error;
  }
}

/** Delete: deletes the custom resource and runs its finalization (release rules, deletion policy) to the end. */
export async function destroy(inputs: PostgresClusterInputs): Promise<void> {
  const context = contextFor(inputs);
  const { client } = context;
  await orUndefined(
    client.custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: POSTGRES_CLUSTER_PLURAL,
      namespace: inputs.namespace,
      name: inputs.name,
    }),
  );
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  for (;;) {
    const resource = await readPostgresCluster(client, inputs.namespace, inputs.name);
    if (!resource) return;
    const outcome = await unlessVanished(
      () => reconcilePostgresCluster(context, resource),
      async () => (await readPostgresCluster(client, inputs.namespace, inputs.name)) === undefined,
    );
    if (!outcome) return;
    if (Date.now() > deadline)
      throw new Error(
        `PostgresCluster ${inputs.namespace}/${inputs.name} was not finalized after ${inputs.timeoutSeconds}s`,
      );
    await sleep(PASS_INTERVAL_MS / 4);
  }
}
