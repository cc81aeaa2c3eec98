import { stalledOf } from "../../lib/api/conditions.js";
import { ownedByValue, ownerOf } from "../../lib/engine/ownership.js";
import { PostgresCluster } from "../../lib/kinds/postgres-cluster/schema.js";
import { MAX_STACK_NAME, Stack } from "../../lib/kinds/stack/schema.js";
import type { Instance } from "../../lib/licence/enforce.js";
import { COMMUNITY_CAPS, communityEntitlements, type Entitlements } from "../../lib/licence/entitlements.js";
import { planStack } from "../support/plans.js";

function stack(name: string, status?: unknown, extra: Record<string, unknown> = {}): Stack {
  return Stack.parse({
    apiVersion: "core.navique.com/v1alpha1",
    kind: "Stack",
    metadata: { name, namespace: "ai", uid: `uid-${name}`, generation: 1, ...extra },
    spec: {},
    ...(status ? { status } : {}),
  });
}

const licensed = (caps: Partial<Entitlements["caps"]>, features: Entitlements["features"] = new Set(["stack"])) =>
  ({
    edition: "Licensed",
    features,
    caps: { ...COMMUNITY_CAPS, ...caps },
    licenseId: "lic-1",
  }) satisfies Entitlements;

const instance = (name: string, created: string, admitted = false) => ({
  namespace: "ai",
  name,
  creationTimestamp: created,
  admitted,
});

function observation(
  entitlements: Entitlements,
  instances = [instance("team", "2027-01-01T00:00:00Z")],
  members: PostgresCluster[] = [],
): { licence: { entitlements: Entitlements; instances: Instance[] }; members: PostgresCluster[] } {
  return { licence: { entitlements, instances }, members };
}

/** A member as the Stack `team` created it: carrying its owned-by label. */
function ownMember(resource: PostgresCluster): PostgresCluster {
  return PostgresCluster.parse({
    ...resource,
    metadata: { ...resource.metadata, labels: { "core.navique.com/owned-by": "stack.ai.team" } },
  });
}

function member(name: string, ready: boolean): PostgresCluster {
  return PostgresCluster.parse({
    apiVersion: "core.navique.com/v1alpha1",
    kind: "PostgresCluster",
    metadata: { name, namespace: "ai" },
    spec: {},
    status: {
      conditions: [
        { type: "Ready", status: ready ? "True" : "False", reason: "R", message: ready ? "ready" : "waiting for CNPG" },
      ],
    },
  });
}

const HOW =
  "ask your navique account contact for a licence that includes it, then apply it as the License named `navique`";

describe("planStack", () => {
  it("skips a Stack under Community: feature named, how to get it, nothing applied, one Event", () => {
    const plan = planStack(stack("team"), observation(communityEntitlements()));
    const message = `Stack ai/team uses feature "stack", which the Community edition does not include; it is skipped. To use it, ${HOW}`;
    expect(plan.refusal).toEqual({ allowed: false, reason: "FeatureNotLicensed", message });
    expect(plan.steps).toEqual([]);
    expect(plan.conditions).toEqual([
      { type: "Ready", status: "False", reason: "FeatureNotLicensed", message, observedGeneration: 1 },
      { type: "Licensed", status: "False", reason: "FeatureNotLicensed", message, observedGeneration: 1 },
      { type: "Stalled", status: "True", reason: "FeatureNotLicensed", message, observedGeneration: 1 },
    ]);
    expect(plan.events).toEqual([{ type: "Warning", reason: "FeatureNotLicensed", message }]);
    expect(plan.requeue).toBe(false);

    // The next pass, which finds the refusal already reported, records no second Event.
    const again = planStack(stack("team", plan.status), observation(communityEntitlements()));
    expect(again.conditions).toEqual(plan.conditions);
    expect(again.events).toEqual([]);
  });

  it("with the feature, applies the PostgreSQL member with the curated defaults, owned by the Stack", () => {
    const plan = planStack(stack("team"), observation(licensed({ Stack: 1 })));
    expect(plan.refusal).toBeUndefined();
    expect(plan.steps.map((s) => s.description)).toEqual([
      "apply PostgresCluster ai/team-postgres (member of the Stack)",
    ]);
    expect(plan.steps[0]).toMatchObject({ kind: "apply" });
    expect((plan.steps[0] as { object?: unknown } | undefined)?.object).toEqual({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "PostgresCluster",
      metadata: {
        name: "team-postgres",
        namespace: "ai",
        labels: {
          "core.navique.com/owned-by": "stack.ai.team",
          "app.kubernetes.io/managed-by": "navique-ai-core-operator",
        },
        annotations: { "core.navique.com/owner": "Stack/ai/team" },
        ownerReferences: [
          {
            apiVersion: "core.navique.com/v1alpha1",
            kind: "Stack",
            name: "team",
            uid: "uid-team",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        type: "cnpg",
        mode: "managed",
        managed: { instances: 1, storage: { size: "10Gi" }, deletionPolicy: "Retain" },
        databases: [{ name: "litellm" }, { name: "langfuse" }],
      },
    });
    expect(plan.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Ready", "False", "WaitingForMembers"],
      ["OperatorsReady", "True", "NotRequired"],
      ["MembersReady", "False", "WaitingForMembers"],
      ["Licensed", "True", "Admitted"],
    ]);
    expect(plan.conditions[2]?.message).toBe("waiting for PostgresCluster ai/team-postgres (not created yet)");
    expect(plan.status.admitted).toBe(true);
    expect(plan.requeue).toBe(true);
  });

  it.each([
    [
      "its status.connection",
      {
        connection: {
          host: "team-postgres-rw.ai.svc",
          port: 5432,
          credentialsSecret: { name: "team-postgres-credentials", namespace: "ai" },
          url: "postgresql://team-postgres-rw.ai.svc:5432",
        },
      },
    ],
    [
      "the deprecated fields an earlier release wrote",
      {
        host: "team-postgres-rw.ai.svc",
        port: 5432,
        credentialsSecret: { name: "team-postgres-credentials" },
      },
    ],
  ])("publishes where its PostgreSQL member says consumers connect, read from %s", (_from, said) => {
    const ready = member("team-postgres", true);
    const withConnection = PostgresCluster.parse({ ...ready, status: { ...ready.status, ...said } });
    const plan = planStack(stack("team"), observation(licensed({ Stack: 1 }), undefined, [ownMember(withConnection)]));
    expect(plan.status.postgres).toMatchObject({
      host: "team-postgres-rw.ai.svc",
      port: 5432,
      credentialsSecret: { name: "team-postgres-credentials", namespace: "ai" },
    });
  });

  it("is Ready when every member is, and says which member it waits for otherwise", () => {
    const waiting = planStack(
      stack("team"),
      observation(licensed({ Stack: 1 }), undefined, [ownMember(member("team-postgres", false))]),
    );
    expect(waiting.conditions[0]?.message).toBe("waiting for PostgresCluster ai/team-postgres (waiting for CNPG)");
    expect(stalledOf(waiting.conditions)).toBeUndefined();
    const ready = planStack(
      stack("team"),
      observation(licensed({ Stack: 1 }), undefined, [ownMember(member("team-postgres", true))]),
    );
    expect(ready.conditions[0]).toMatchObject({ type: "Ready", status: "True", message: "every member is Ready" });
    expect(ready.status.members).toEqual([
      { kind: "PostgresCluster", name: "team-postgres", namespace: "ai", ready: true },
    ]);
    expect(ready.requeue).toBe(false);
  });

  it("is Stalled while a member is: a member that cannot go on without a change holds the Stack too", () => {
    const held = member("team-postgres", false);
    const stalledMember = PostgresCluster.parse({
      ...held,
      status: {
        conditions: [
          ...(held.status?.conditions ?? []),
          { type: "Stalled", status: "True", reason: "NameTaken", message: "taken" },
        ],
      },
    });
    const plan = planStack(stack("team"), observation(licensed({ Stack: 1 }), undefined, [ownMember(stalledMember)]));
    expect(stalledOf(plan.conditions)).toMatchObject({
      reason: "WaitingForMembers",
      message: "waiting for PostgresCluster ai/team-postgres (waiting for CNPG)",
    });
  });

  it("refuses only the NEW Stack beyond the cap, in creation order, never an admitted one", () => {
    const instances = [
      instance("old", "2027-01-05T00:00:00Z", true),
      instance("early", "2027-01-02T00:00:00Z"),
      instance("late", "2027-01-03T00:00:00Z"),
    ];
    const entitlements = licensed({ Stack: 2 });
    expect(planStack(stack("old", { admitted: true }), observation(entitlements, instances)).refusal).toBeUndefined();
    expect(planStack(stack("early"), observation(entitlements, instances)).refusal).toBeUndefined();
    const late = planStack(stack("late"), observation(entitlements, instances));
    expect(late.refusal?.reason).toBe("InstanceCapExceeded");
    expect(late.refusal?.message).toBe(
      `Stack ai/late is refused: licence lic-1 allows 2 Stack instance(s) and 2 come before it (admitted earlier or created first); nothing was created for it. Delete an unused Stack, or ${HOW}`,
    );
    expect(late.steps).toEqual([]);
  });

  it("downgraded at expiry: the admitted Stack is skipped, its running members named and left untouched", () => {
    const expired = communityEntitlements("expired: licence lic-1 expired at 2027-01-11T00:00:00Z");
    const recorded = { kind: "PostgresCluster", name: "team-postgres", namespace: "ai", ready: true };
    const plan = planStack(
      stack("team", {
        admitted: true,
        members: [recorded],
        emitted: [
          { apiVersion: "core.navique.com/v1alpha1", kind: "PostgresCluster", name: "team-postgres", namespace: "ai" },
        ],
      }),
      observation(
        expired,
        [instance("team", "2027-01-01T00:00:00Z", true)],
        [ownMember(member("team-postgres", true))],
      ),
    );
    expect(plan.steps).toEqual([]);
    expect(plan.refusal?.reason).toBe("FeatureNotLicensed");
    expect(plan.refusal?.message).toContain(
      "which the Community edition (expired: licence lic-1 expired at 2027-01-11T00:00:00Z) does not include",
    );
    expect(plan.conditions[0]?.message).toContain(
      "Its members (PostgresCluster ai/team-postgres) keep running as they are; the Stack no longer changes them.",
    );
    expect(plan.events[0]?.message).toContain("keep running as they are");
    // Still counted as admitted: a renewed licence does not make it compete again for the cap.
    expect(plan.status.admitted).toBe(true);
    expect(plan.status.members).toEqual([
      { kind: "PostgresCluster", name: "team-postgres", namespace: "ai", ready: true },
    ]);
  });

  it("being deleted: deletes its own members first, says which it waits for, and drops its finalizer last", () => {
    const deleting = stack("team", undefined, { deletionTimestamp: "2027-01-01T00:00:00Z" });
    const own = ownMember(member("team-postgres", true));
    const first = planStack(deleting, observation(communityEntitlements(), undefined, [own]));
    // Never licence-gated: deleting works under Community too.
    expect(first.steps).toEqual([
      {
        kind: "delete",
        target: {
          apiVersion: "core.navique.com/v1alpha1",
          kind: "PostgresCluster",
          name: "team-postgres",
          namespace: "ai",
        },
        description: "delete PostgresCluster ai/team-postgres (member of the Stack; its own deletion policy applies)",
      },
    ]);
    expect(first.conditions[0]).toMatchObject({
      type: "Ready",
      status: "False",
      reason: "Deleting",
      message: "waiting for its members to be deleted: PostgresCluster ai/team-postgres (ready)",
    });
    expect(first.requeue).toBe(true);

    const finalizing = PostgresCluster.parse({
      ...own,
      metadata: { ...own.metadata, deletionTimestamp: "2027-01-01T00:00:01Z" },
    });
    expect(planStack(deleting, observation(communityEntitlements(), undefined, [finalizing])).steps).toEqual([]);

    const gone = planStack(deleting, observation(communityEntitlements()));
    expect(gone.steps).toEqual([
      { kind: "remove-finalizer", description: "remove the finalizer: everything owned is released" },
    ]);
    expect(gone.requeue).toBe(false);
  });

  it("never takes over, nor deletes, a resource of a member's name that it did not create", () => {
    const foreign = member("team-postgres", true);
    const plan = planStack(stack("team"), observation(licensed({ Stack: 1 }), undefined, [foreign]));
    expect(plan.steps).toEqual([]);
    expect(plan.conditions[0]).toMatchObject({
      status: "False",
      reason: "NameTaken",
      message:
        "PostgresCluster ai/team-postgres already exists and is not this Stack's: it is left alone. Rename the Stack, or delete or rename that resource",
    });
    expect(plan.status.members).toEqual([
      { kind: "PostgresCluster", name: "team-postgres", namespace: "ai", ready: false },
    ]);
    expect(plan.requeue).toBe(false);
    const deleting = stack("team", undefined, { deletionTimestamp: "2027-01-01T00:00:00Z" });
    expect(planStack(deleting, observation(licensed({ Stack: 1 }), undefined, [foreign])).steps).toEqual([
      { kind: "remove-finalizer", description: "remove the finalizer: everything owned is released" },
    ]);
  });

  it("marks members as the Stack's and finds the Stack back from a member's owner annotation", () => {
    expect(ownedByValue(stack("team"))).toBe("stack.ai.team");
    expect(ownerOf({ metadata: { annotations: { "core.navique.com/owner": "Stack/ai/team" } } }, ["Stack"])).toBe(
      "Stack/ai/team",
    );
    // A member emitted before the annotation existed: its owned-by label, short enough never to have been cut.
    expect(ownerOf({ metadata: { labels: { "core.navique.com/owned-by": "stack.ai.team" } } }, ["Stack"])).toBe(
      "Stack/ai/team",
    );
    expect(
      ownerOf({ metadata: { labels: { "core.navique.com/owned-by": "gizmo.ai.team" } } }, ["Stack"]),
    ).toBeUndefined();
  });
});

describe("the Stack schema", () => {
  it("refuses a name its members could not be named after", () => {
    const result = Stack.safeParse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "Stack",
      metadata: { name: "a".repeat(MAX_STACK_NAME + 1), namespace: "ai" },
      spec: {},
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["metadata", "name"]);
  });

  it("refuses unknown fields and bad member settings, with their paths", () => {
    const result = Stack.safeParse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "Stack",
      metadata: { name: "team", namespace: "ai" },
      spec: { postgres: { managed: { instances: 0 }, databases: [{ name: "Bad" }] }, langfuse: {} },
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join(".")).sort();
    expect(paths).toEqual(["spec", "spec.postgres.databases.0.name", "spec.postgres.managed.instances"]);
  });
});
