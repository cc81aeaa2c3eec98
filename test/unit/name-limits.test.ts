import * as pulumi from "@pulumi/pulumi";
import { Testing } from "cdk8s";
import { PostgresCluster as PostgresClusterConstruct, Stack as StackConstruct } from "../../constructs/kinds.js";
import { parseInput } from "../../lib/api/validation.js";
import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";
import { eventName } from "../../lib/engine/event-name.js";
import { CNPG_API_VERSION, readWriteHost } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { MAX_POSTGRES_CLUSTER_NAME, PostgresCluster } from "../../lib/kinds/postgres-cluster/schema.js";
import { postgresMemberName, stackMembers } from "../../lib/kinds/stack/module.js";
import { MAX_STACK_NAME, Stack } from "../../lib/kinds/stack/schema.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";
import { PostgresCluster as PulumiPostgresCluster, Stack as PulumiStack } from "../../providers/pulumi/kinds.js";
import { type PlanContext, planPostgresCluster } from "../support/plans.js";
import { synthProblems } from "../support/synth-problems.js";

/** A Kubernetes object name (RFC 1123 subdomain) and a DNS-1035 label, as the apiserver checks them. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const stored = (name: string, kind = "PostgresCluster", spec: unknown = {}) => ({
  apiVersion: "core.navique.com/v1alpha1",
  kind,
  metadata: { name, namespace: "team-a", uid: "u-1", generation: 1 },
  spec,
});

const context: PlanContext = {
  withPrerequisites: (name) => (name === "cloudnative-pg" ? ["cert-manager", "cloudnative-pg"] : [name]),
  releaseOf: (name) => ({ name, namespace: name }),
};

const ready = (capability: string): CapabilityDecision => ({
  capability,
  state: "Owned",
  evidence: "release carries the ownership marks",
  action: "none",
  summary: `keep ${capability}`,
  ready: true,
  waitingFor: [],
  unavailable: [],
});

const longest = `p${"a".repeat(MAX_POSTGRES_CLUSTER_NAME - 1)}`;
const tooLong = `${longest}x`;

describe("the name limits", () => {
  it("the PostgresCluster schema refuses a name over the limit, naming the field, the limit, the length and what to do", () => {
    expect(PostgresCluster.safeParse(stored(longest)).success).toBe(true);
    expect(() => parseInput(PostgresCluster, stored("a".repeat(253)), "PostgresCluster team-a/long")).toThrow(
      "PostgresCluster team-a/long is invalid:\n  - metadata.name: a PostgresCluster name has at most 50 characters, received 253: its CNPG Cluster, and the Services CloudNativePG derives from it (<name>-rw), are named after it. Choose a shorter name",
    );
  });

  it("the PostgresCluster schema refuses a name CloudNativePG would refuse as a Cluster name (not a DNS-1035 label)", () => {
    for (const name of ["main.db", "1main"]) {
      expect(() => parseInput(PostgresCluster, stored(name), "PostgresCluster team-a/x")).toThrow(
        `metadata.name: a PostgresCluster name must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, no '.'): its CNPG Cluster, and the Services CloudNativePG derives from it (<name>-rw), are named after it. Rename it (received "${name}")`,
      );
    }
  });

  it("every name derived from the longest PostgresCluster name fits", () => {
    const owner = `o${"w".repeat(62)}`;
    const resource = PostgresCluster.parse(
      stored(longest, "PostgresCluster", { databases: [{ name: `d${"b".repeat(62)}`, owner }] }),
    );
    const plan = planPostgresCluster(
      resource,
      {
        capabilities: [ready("cert-manager"), ready("cloudnative-pg")],
        consumers: [],
        objects: new Map(),
        licence: {
          entitlements: communityEntitlements(),
          instances: [
            { namespace: "team-a", name: longest, creationTimestamp: "2027-01-01T00:00:00Z", admitted: true },
          ],
        },
      },
      context,
    );
    const names = plan.status.emitted.map((e) => e.name);
    expect(names).toHaveLength(4); // credentials, the owner's credentials, the CNPG Cluster, its Database
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(253);
      expect(name).toMatch(SUBDOMAIN);
    }
    const cluster = plan.status.emitted.find((e) => e.kind === "Cluster" && e.apiVersion === CNPG_API_VERSION);
    // CloudNativePG's own rule for a Cluster name (webhook validateName), and the Services it derives.
    expect(cluster?.name.length).toBeLessThanOrEqual(50);
    expect(cluster?.name).toMatch(DNS_1035);
    const service = readWriteHost(longest, "team-a").split(".")[0] ?? "";
    expect(service.length).toBeLessThanOrEqual(63);
    const event = eventName(resource, { type: "Warning", reason: "ApplyRejected", message: "m" });
    expect(event.length).toBeLessThanOrEqual(253);
    expect(event).toMatch(SUBDOMAIN);
  });

  it("the Stack limit is derived from the PostgresCluster limit: its member fits exactly", () => {
    expect(MAX_STACK_NAME + "-postgres".length).toBe(MAX_POSTGRES_CLUSTER_NAME);
    const longestStack = `s${"a".repeat(MAX_STACK_NAME - 1)}`;
    const stack = Stack.parse(stored(longestStack, "Stack"));
    for (const { object: member } of stackMembers(stack)) {
      expect(PostgresCluster.safeParse({ ...member, metadata: { ...member.metadata, uid: "u-2" } }).success).toBe(true);
    }
    expect(postgresMemberName(longestStack)).toHaveLength(MAX_POSTGRES_CLUSTER_NAME);
    expect(() => parseInput(Stack, stored(`${longestStack}x`, "Stack"), "Stack team-a/x")).toThrow(
      "metadata.name: a Stack name has at most 41 characters, received 42: its member PostgresCluster <stack>-postgres is named after it, and a PostgresCluster name (a CNPG Cluster's) has at most 50 characters. Choose a shorter name",
    );
  });

  it("the constructs refuse a name over the limit at synth time, with the construct path", () => {
    const chart = Testing.chart();
    new PostgresClusterConstruct(chart, tooLong, { spec: {} });
    new PostgresClusterConstruct(chart, "main", { name: "main.db", spec: {} });
    new StackConstruct(chart, "s".repeat(42));
    expect(synthProblems(chart)).toEqual([
      `[test/${tooLong}] PostgresCluster name: a PostgresCluster name has at most 50 characters, received 51: its CNPG Cluster, and the Services CloudNativePG derives from it (<name>-rw), are named after it. Choose a shorter name`,
      expect.stringMatching(
        /^\[test\/main\] PostgresCluster name: a PostgresCluster name must be a DNS-1035 label .* \(received "main\.db"\)$/,
      ),
      expect.stringMatching(
        /^\[test\/s{42}\] Stack name: a Stack name has at most 41 characters, received 42: its member PostgresCluster <stack>-postgres is named after it/,
      ),
    ]);
  });
});

describe("the Pulumi components' name check", () => {
  beforeAll(async () => {
    // Pulumi's own mocks: a component is constructed as in a program, with no engine behind it.
    await pulumi.runtime.setMocks(
      { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
      "project",
      "stack",
      true,
    );
  });

  it("a PostgresCluster component whose name is over the limit is a ResourceError naming the field and the limit", () => {
    expect(() => new PulumiPostgresCluster("pg", { namespace: "team-a", name: "a".repeat(253), spec: {} })).toThrow(
      "PostgresCluster pg is invalid:\n  - name: a PostgresCluster name has at most 50 characters, received 253: its CNPG Cluster, and the Services CloudNativePG derives from it (<name>-rw), are named after it. Choose a shorter name",
    );
    // The component's own name is the default resource name, and is checked the same way.
    expect(() => new PulumiPostgresCluster(tooLong, { namespace: "team-a", spec: {} })).toThrow(
      /- name: a PostgresCluster name has at most 50 characters, received 51/,
    );
  });

  it("a Stack component whose name is over the limit is a ResourceError naming the field and the limit", () => {
    expect(() => new PulumiStack("team", { namespace: "team-a", name: `t${"a".repeat(MAX_STACK_NAME)}` })).toThrow(
      /^Stack team is invalid:\n {2}- name: a Stack name has at most 41 characters, received 42/,
    );
  });
});
