import type { PostgresCluster } from "../api/postgres-cluster.js";
import { STACK_PLURAL, Stack } from "../api/stack.js";
import type { KubeClient } from "../cluster/kube-client.js";
import { type StackObservation, stackInstance, stackMembers } from "../plan/stack.js";
import { capInstances, observeEntitlements } from "./license.js";
import { readPostgresCluster } from "./postgres-cluster.js";
import { listStored, readStored } from "./stored.js";

/** Every Stack in the cluster, parsed: the cap counts from here, never from memory. */
export function observeStacks(client: KubeClient): Promise<Stack[]> {
  return listStored(client, STACK_PLURAL, Stack);
}

/** One Stack as stored, parsed by the schema (which throws on an invalid one); undefined when absent. */
export function readStack(client: KubeClient, namespace: string, name: string): Promise<Stack | undefined> {
  return readStored(client, STACK_PLURAL, Stack, namespace, name);
}

/** Reads what planning one Stack needs: the licence, every Stack (for the cap), and its members by name. */
export async function observeStack(
  client: KubeClient,
  stack: Stack,
  options: { readonly now: Date; readonly trustedKeys?: ReadonlyMap<string, string> },
): Promise<StackObservation> {
  const [all, entitlements, members] = await Promise.all([
    observeStacks(client),
    observeEntitlements(client, options),
    Promise.all(
      stackMembers(stack).map((member) =>
        // A member the schema refuses (edited by hand) is re-applied by the Stack; it counts as not Ready.
        readPostgresCluster(client, stack.metadata.namespace, member.metadata.name).catch(() => undefined),
      ),
    ),
  ]);
  const instances = capInstances(all, stack, stackInstance, options.now);
  const found = new Map<string, PostgresCluster>();
  for (const member of members) if (member) found.set(member.metadata.name, member);
  return { licence: { entitlements, instances }, members: found };
}
