import { randomUUID } from "node:crypto";
import { SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { LEADER_LEASE_NAME } from "../../lib/cluster/leader-election.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { playControllers } from "../support/drift.js";
import { naviqueCrdsServed } from "../support/failing-step.js";
import { operatorKilledMidInstall, releaseStatuses } from "../support/killed-mid-install.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";

const CAPABILITIES = [CLOUDNATIVE_PG, CERT_MANAGER];
/** Issue 20's bound on a busy machine; bench/kill-mid-install.ts prints the figure beside stress-ng --cpu 4. */
const CONVERGED_WITHIN_MS = 30_000;

// `navique operator` in its own process, as users run it, killed with -9 (with the helm it runs) while it
// holds an install lock, and started again at once, as a restarted container: it takes the lock the dead
// process held, finishes what was half done and brings the resource to Ready, leaving each release with
// one deployed record and none pending. CloudNativePG cannot run here: the test plays it (the Cluster
// status it writes). Each case starts with nothing installed.
describe("an operator killed -9 while it installs", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    await naviqueCrdsServed(client);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      if (helm) {
        // The operators are stopped: what they left is finalized here, then the releases go.
        await namespaces.discard(createReconcileContext({ client, helm, source: FIXTURE_SOURCE }));
        await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
      }
    } finally {
      await unlock?.();
    }
  });

  it.each([
    ["a prerequisite", CERT_MANAGER],
    ["the capability itself", CLOUDNATIVE_PG],
  ] as const)(
    "converges within 30 s when killed holding the install lock of %s, one deployed record per release",
    async (_what, target) => {
      await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
      const ns = await namespaces.create("killed-install");
      const stopPlaying = playControllers(client, ns);
      const operators: ReturnType<typeof startOperatorProcess>[] = [];
      try {
        const killed = await operatorKilledMidInstall(
          { client, namespace: ns, target, killWhen: "lock-held", timeoutMs: 120_000, start: startOperatorProcess },
          operators,
        );
        expect(killed.convergedAfterMs).toBeLessThan(CONVERGED_WITHIN_MS);
        for (const entry of CAPABILITIES) {
          const statuses = await releaseStatuses(client, entry);
          expect([entry.name, statuses.filter((s) => s === "deployed").length, statuses.at(-1)]).toEqual([
            entry.name,
            1,
            "deployed",
          ]);
          expect(statuses.filter((s) => s.startsWith("pending-"))).toEqual([]);
        }
        // The dead holder was this machine's process: its lock taken at once, not after the lease ran out.
        expect(operators[1]?.output()).toContain(`[${target.name}] taking the install lock from `);
      } finally {
        stopPlaying();
        for (const operator of operators) await stopOperatorProcess(operator.process);
      }
    },
    CAPABILITY_SUITE_SETUP_MS,
  );

  // As the chart runs it: leader election on, the operator in a pid namespace of its own (a container),
  // the Pod's UID in its environment (the downward API). The process started after the kill is the same
  // Pod's restarted container: it knows its predecessor ended, so it neither waits out the leader Lease
  // nor the install lock's (lib/cluster/holder-process.ts).
  it(
    "converges within 30 s as the chart runs it: election on, restarted as the same Pod's container",
    async () => {
      await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
      await orUndefined(
        client.coordination.deleteNamespacedLease({ name: LEADER_LEASE_NAME, namespace: SYSTEM_NAMESPACE }),
      );
      const ns = await namespaces.create("killed-elected");
      const stopPlaying = playControllers(client, ns);
      const operators: ReturnType<typeof startOperatorProcess>[] = [];
      const podUid = randomUUID();
      try {
        const killed = await operatorKilledMidInstall(
          {
            client,
            namespace: ns,
            target: CLOUDNATIVE_PG,
            killWhen: "lock-held",
            timeoutMs: 120_000,
            start: () => startOperatorProcess({ leaderElect: true, ownPidNamespace: true, podUid }),
          },
          operators,
        );
        process.stdout.write(
          `killed holding the install lock, election on: Ready ${Math.round(killed.convergedAfterMs)} ms after the kill\n`,
        );
        expect(killed.convergedAfterMs).toBeLessThan(CONVERGED_WITHIN_MS);
        const restarted = operators[1]?.output() ?? "";
        expect(restarted).toContain("acquired the leader lease");
        expect(restarted).not.toContain("waits as a standby");
        expect(restarted).toContain(`[${CLOUDNATIVE_PG.name}] taking the install lock from `);
      } finally {
        stopPlaying();
        for (const operator of operators) await stopOperatorProcess(operator.process);
        await orUndefined(
          client.coordination.deleteNamespacedLease({ name: LEADER_LEASE_NAME, namespace: SYSTEM_NAMESPACE }),
        );
      }
    },
    CAPABILITY_SUITE_SETUP_MS,
  );
});
