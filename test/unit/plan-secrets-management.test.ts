import { checkInput } from "../../lib/api/validation.js";
import { type KubeObject, keyOf } from "../../lib/engine/objects.js";
import { SECRETS_MANAGEMENT_MODULE } from "../../lib/kinds/secrets-management/module.js";
import { SecretsManagementSpec } from "../../lib/kinds/secrets-management/schema.js";
import { COMMUNITY_CAPS, communityEntitlements } from "../../lib/licence/entitlements.js";
import { operatorKindPlans } from "../support/plans.js";

const eso = operatorKindPlans(
  SECRETS_MANAGEMENT_MODULE,
  { name: "platform", namespace: "apps" },
  { capability: "external-secrets", namespace: "external-secrets" },
);
const sealed = operatorKindPlans(
  SECRETS_MANAGEMENT_MODULE,
  { name: "platform", namespace: "apps" },
  { capability: "sealed-secrets", namespace: "kube-system", release: "sealed-secrets" },
);

const AZURE = { azureKeyVault: { vaultUrl: "https://platform.vault.azure.net" } };
const GATEWAY_KEYS = {
  name: "gateway-keys",
  data: [
    { key: "openai", remoteKey: "openai-api-key" },
    { key: "anthropic", remoteKey: "providers", property: "anthropic" },
  ],
};

/** An upstream object as its controller leaves it: the condition `type` written (no controller runs here). */
function withCondition(object: KubeObject, type: string, status: string, reason: string, message = ""): KubeObject {
  return { ...object, status: { conditions: [{ type, status, reason, message }] } };
}

/** The messages a spec is refused with, each with its field: what every front end says. */
function refusals(spec: unknown): string[] {
  const checked = checkInput(SecretsManagementSpec, spec, "spec");
  return checked.ok ? [] : checked.problems.map((p) => `${p.path}: ${p.message}`);
}

describe("a SecretsManagement's spec", () => {
  it("needs its backend's block, allows no other, and one store of eso: each refusal names the field and what to do", () => {
    expect(refusals({ backend: "eso" })).toEqual([
      "spec.eso: spec.eso is required when spec.backend is eso: set spec.eso.provider (or spec.eso.clusterSecretStoreRef)",
    ]);
    expect(refusals({ backend: "sealed-secrets", eso: { provider: AZURE } })).toEqual([
      "spec.eso: spec.eso is only allowed when spec.backend is eso: remove it or set spec.backend: eso",
    ]);
    expect(refusals({ backend: "eso", eso: { provider: AZURE }, sealedSecrets: {} })).toEqual([
      "spec.sealedSecrets: spec.sealedSecrets is only allowed when spec.backend is sealed-secrets: remove it or set spec.backend: sealed-secrets",
    ]);
    expect(refusals({ backend: "eso", eso: {} })).toEqual([
      "spec.eso.provider: spec.eso needs exactly one of provider (a SecretStore the product makes) and clusterSecretStoreRef (a ClusterSecretStore you own)",
    ]);
    expect(
      refusals({ backend: "eso", eso: { provider: AZURE, clusterSecretStoreRef: { name: "shared" } } }),
    ).toHaveLength(1);
    expect(refusals({ backend: "eso", eso: { provider: { ...AZURE, gcp: { projectID: "platform-123" } } } })).toEqual([
      "spec.eso.provider: spec.eso.provider names exactly one provider: azureKeyVault, vault, aws, gcp",
    ]);
  });

  it("refuses a Secret named twice, a key named twice, and malformed provider fields, naming each", () => {
    const twice = refusals({
      backend: "eso",
      eso: { provider: AZURE, secrets: [GATEWAY_KEYS, { name: "gateway-keys", data: [{ key: "a", remoteKey: "b" }] }] },
    });
    expect(twice).toEqual([
      'spec.eso.secrets[1].name: spec.eso.secrets must name each name once: "gateway-keys" appears twice; remove or rename the duplicate',
    ]);
    expect(
      refusals({
        backend: "eso",
        eso: {
          provider: AZURE,
          secrets: [
            {
              name: "k",
              data: [
                { key: "a", remoteKey: "x" },
                { key: "a", remoteKey: "y" },
              ],
            },
          ],
        },
      }),
    ).toEqual([
      'spec.eso.secrets[0].data[1].key: the keys of a Secret must name each key once: "a" appears twice; remove or rename the duplicate',
    ]);
    expect(
      refusals({ backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "db" }, { name: "db" }] } }),
    ).toHaveLength(1);
    expect(refusals({ backend: "eso", eso: { provider: { azureKeyVault: { vaultUrl: "http://vault" } } } })).toEqual([
      "spec.eso.provider.azureKeyVault.vaultUrl: must be a URL with a host and no path, e.g. https://my-vault.vault.azure.net",
    ]);
    expect(refusals({ backend: "eso", eso: { provider: { aws: { region: "Europe" } } } })).toEqual([
      "spec.eso.provider.aws.region: must be an AWS region, e.g. eu-west-1",
    ]);
    expect(refusals({ backend: "eso", eso: { provider: AZURE, refreshInterval: "hourly" } })).toEqual([
      "spec.eso.refreshInterval: must be a Go duration: 0, or a number and a unit for each of h, m, s, ms, us and ns used, in that order, each once, no sign, at most 999999h (e.g. 1h, 15m or 1h30m; 0 reads once)",
    ]);
  });

  it("defaults Azure Key Vault to Workload Identity, and ESO's refresh to 1h", () => {
    const spec = SecretsManagementSpec.parse({ backend: "eso", eso: { provider: AZURE } });
    expect(spec.eso?.provider?.azureKeyVault?.authType).toBe("WorkloadIdentity");
    expect(spec.eso?.refreshInterval).toBe("1h");
    expect(spec.eso?.secrets).toEqual([]);
  });
});

describe("a SecretsManagement with backend eso", () => {
  it("emits a SecretStore named after it and one ExternalSecret per Secret, owned, its target the Secret", () => {
    const first = eso.plan(
      eso.resource({ backend: "eso", eso: { provider: AZURE, secrets: [GATEWAY_KEYS] } }),
      eso.view(),
    );
    expect(first.steps.map((s) => s.description)).toEqual([
      "apply SecretStore apps/platform (Azure Key Vault https://platform.vault.azure.net)",
      "apply ExternalSecret apps/gateway-keys (Secret gateway-keys: openai, anthropic from SecretStore platform)",
    ]);
    const [store, external] = first.steps.map((s) => (s as { object: KubeObject }).object);
    expect(store).toMatchObject({
      apiVersion: "external-secrets.io/v1",
      kind: "SecretStore",
      metadata: {
        name: "platform",
        namespace: "apps",
        ownerReferences: [{ kind: "SecretsManagement", name: "platform" }],
      },
      spec: { provider: { azurekv: { vaultUrl: "https://platform.vault.azure.net", authType: "WorkloadIdentity" } } },
    });
    expect(external).toMatchObject({
      apiVersion: "external-secrets.io/v1",
      kind: "ExternalSecret",
      metadata: { name: "gateway-keys", ownerReferences: [{ kind: "SecretsManagement", name: "platform" }] },
      spec: {
        refreshInterval: "1h",
        secretStoreRef: { kind: "SecretStore", name: "platform" },
        target: { name: "gateway-keys", creationPolicy: "Owner" },
        data: [
          { secretKey: "openai", remoteRef: { key: "openai-api-key" } },
          { secretKey: "anthropic", remoteRef: { key: "providers", property: "anthropic" } },
        ],
      },
    });
    expect(first.status).toMatchObject({
      provenance: "owned",
      store: { kind: "SecretStore", name: "platform" },
      secrets: [{ name: "gateway-keys", ready: false }],
    });
    expect(first.conditions.find((c) => c.type === "SecretsReady")).toMatchObject({
      status: "False",
      reason: "WaitingForSecrets",
      message:
        "waiting for SecretStore apps/platform: the External Secrets Operator has not reported Ready yet; ExternalSecret apps/gateway-keys: the External Secrets Operator has not reported Ready yet",
    });
    expect(first.requeue).toBe(true);
  });

  it("writes each provider in ESO's words: vault's Kubernetes auth, aws's service account token, gcpsm's workload identity", () => {
    const storeOf = (provider: unknown) =>
      (eso.plan(eso.resource({ backend: "eso", eso: { provider } }), eso.view()).steps[0] as { object: KubeObject })
        .object.spec;
    expect(
      storeOf({ vault: { server: "https://vault.example.com:8200", role: "apps", serviceAccountRef: { name: "v" } } }),
    ).toEqual({
      provider: {
        vault: {
          server: "https://vault.example.com:8200",
          path: "secret",
          version: "v2",
          auth: { kubernetes: { mountPath: "kubernetes", role: "apps", serviceAccountRef: { name: "v" } } },
        },
      },
    });
    expect(storeOf({ aws: { region: "eu-west-1", serviceAccountRef: { name: "irsa" } } })).toEqual({
      provider: {
        aws: { service: "SecretsManager", region: "eu-west-1", auth: { jwt: { serviceAccountRef: { name: "irsa" } } } },
      },
    });
    expect(
      storeOf({ gcp: { projectID: "platform-123", workloadIdentity: { serviceAccountRef: { name: "g" } } } }),
    ).toEqual({
      provider: {
        gcpsm: { projectID: "platform-123", auth: { workloadIdentity: { serviceAccountRef: { name: "g" } } } },
      },
    });
  });

  it("is Ready once the store is Ready and every ExternalSecret reports SecretSynced; a message names what it waits for", () => {
    const resource = eso.resource({ backend: "eso", eso: { provider: AZURE, secrets: [GATEWAY_KEYS] } });
    const first = eso.plan(resource, eso.view());
    const [store, external] = first.steps.map((s) => (s as { object: KubeObject }).object);
    if (!store || !external) throw new Error("nothing emitted");
    const objects = (storeStatus: KubeObject, externalStatus: KubeObject) =>
      new Map([
        [keyOf(store), storeStatus],
        [keyOf(external), externalStatus],
      ]);
    const failing = eso.plan(
      resource,
      eso.view({
        objects: objects(
          withCondition(store, "Ready", "False", "InvalidProviderConfig", "unable to create client"),
          withCondition(external, "Ready", "False", "SecretSyncedError", "could not get secret data from provider"),
        ),
      }),
    );
    expect(failing.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      "waiting for SecretStore apps/platform: Ready False (InvalidProviderConfig: unable to create client); ExternalSecret apps/gateway-keys: Ready False (SecretSyncedError: could not get secret data from provider)",
    );
    const ready = eso.plan(
      resource,
      eso.view({
        objects: objects(
          withCondition(store, "Ready", "True", "Valid", "store validated"),
          withCondition(external, "Ready", "True", "SecretSynced", "secret synced"),
        ),
      }),
    );
    expect(ready.conditions.find((c) => c.type === "SecretsReady")).toMatchObject({
      status: "True",
      reason: "SecretsSynced",
      message: "SecretStore platform is Ready; 1 Secret(s) synced: gateway-keys",
    });
    expect(ready.conditions.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      message: "provides gateway-keys in apps through SecretStore platform",
    });
    expect(ready.status.secrets).toEqual([{ name: "gateway-keys", ready: true }]);
    expect(ready.requeue).toBe(false);
    // A Ready ESO wrote for an earlier spec is not taken: it records the generation it synced.
    const synced = (generation: number, syncedResourceVersion: string): KubeObject => {
      const object = withCondition(external, "Ready", "True", "SecretSynced", "secret synced");
      return {
        ...object,
        metadata: { ...object.metadata, generation } as KubeObject["metadata"],
        status: { ...(object.status as object), syncedResourceVersion },
      };
    };
    const stale = eso.plan(
      resource,
      eso.view({
        objects: objects(withCondition(store, "Ready", "True", "Valid", "store validated"), synced(2, "1-5c2e")),
      }),
    );
    expect(stale.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      "waiting for ExternalSecret apps/gateway-keys: the External Secrets Operator has not synced generation 2 yet (it synced 1)",
    );
    const current = eso.plan(
      resource,
      eso.view({
        objects: objects(withCondition(store, "Ready", "True", "Valid", "store validated"), synced(2, "2-5c2e")),
      }),
    );
    expect(current.conditions.find((c) => c.type === "SecretsReady")?.status).toBe("True");
  });

  it("with clusterSecretStoreRef emits no store, reads the ClusterSecretStore, and says when it does not exist", () => {
    const resource = eso.resource({
      backend: "eso",
      eso: { clusterSecretStoreRef: { name: "shared-vault" }, secrets: [GATEWAY_KEYS] },
    });
    expect(SECRETS_MANAGEMENT_MODULE.observes(resource as never)).toEqual([
      expect.objectContaining({
        id: "clusterSecretStore",
        field: "spec.eso.clusterSecretStoreRef",
        apiVersion: "external-secrets.io/v1",
        kind: "ClusterSecretStore",
        name: "shared-vault",
      }),
    ]);
    const missing = eso.plan(resource, eso.view());
    expect(missing.steps.map((s) => (s as { object: KubeObject }).object.kind)).toEqual(["ExternalSecret"]);
    expect((missing.steps[0] as { object: KubeObject }).object.spec).toMatchObject({
      secretStoreRef: { kind: "ClusterSecretStore", name: "shared-vault" },
    });
    expect(missing.status).toMatchObject({
      provenance: "adopted",
      store: { kind: "ClusterSecretStore", name: "shared-vault" },
    });
    expect(missing.conditions.find((c) => c.type === "SecretsReady")?.message).toContain(
      "ClusterSecretStore shared-vault: it does not exist (spec.eso.clusterSecretStoreRef): create it, or name one that exists",
    );
  });

  it("refuses a second SecretsManagement in a namespace: stalled, nothing emitted, nothing installed, the first named", () => {
    const second = operatorKindPlans(
      SECRETS_MANAGEMENT_MODULE,
      { name: "later", namespace: "apps" },
      { capability: "external-secrets", namespace: "external-secrets" },
    );
    const view = second.view({
      capabilities: [{ ...second.operatorReady, state: "Absent", ready: false, action: "install" }],
      licence: {
        // A licence allowing several: the cap is not what refuses it.
        entitlements: { ...communityEntitlements(), caps: { ...COMMUNITY_CAPS, SecretsManagement: 5 } },
        instances: [
          { namespace: "apps", name: "platform", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true },
          { namespace: "apps", name: "later", creationTimestamp: "2027-01-02T00:00:00Z", admitted: false },
          { namespace: "other", name: "early", creationTimestamp: "2026-01-01T00:00:00Z", admitted: true },
        ],
      },
    });
    const refused = second.plan(second.resource({ backend: "eso", eso: { provider: AZURE } }), view);
    expect(refused.steps).toEqual([]);
    expect(refused.conditions.find((c) => c.type === "Stalled")).toMatchObject({
      status: "True",
      reason: "OnePerNamespace",
      message:
        "SecretsManagement apps/later is refused: SecretsManagement apps/platform came first, and a namespace has one SecretsManagement, which its workloads' secretsRef name. Move its secrets into platform and delete this one, or put it in another namespace",
    });
  });
});

describe("a SecretsManagement with backend sealed-secrets", () => {
  const resource = sealed.resource({ backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "db" }] } });
  const sealedSecret = (status: string, message = "") => ({
    apiVersion: "bitnami.com/v1alpha1",
    kind: "SealedSecret",
    metadata: { name: "db", namespace: "apps" },
    status: { conditions: [{ type: "Synced", status, message }] },
  });

  it("emits nothing, needs the controller, and waits for each named Secret", () => {
    expect(SECRETS_MANAGEMENT_MODULE.needs(resource as never)).toEqual(["sealed-secrets"]);
    const waiting = sealed.plan(resource, sealed.view());
    expect(waiting.steps).toEqual([]);
    expect(waiting.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      "waiting for Secret apps/db: no Secret, nor SealedSecret, of that name yet: commit the SealedSecret that produces it",
    );
  });

  it("waits on a SealedSecret the controller could not unseal, and is Ready once the Secret is there", () => {
    const failing = sealed.plan(
      resource,
      sealed.view({ reads: { "sealedSecret/db": sealedSecret("False", "no key could decrypt secret") as never } }),
    );
    expect(failing.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      "waiting for SealedSecret apps/db to be unsealed: Synced False (no key could decrypt secret)",
    );
    const ready = sealed.plan(
      resource,
      sealed.view({
        reads: {
          "sealedSecret/db": sealedSecret("True") as never,
          "secret/db": { apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "apps" } } as never,
        },
      }),
    );
    expect(ready.conditions.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      message: "provides db in apps, from your SealedSecrets",
    });
    expect(ready.status).toMatchObject({ provenance: "adopted", secrets: [{ name: "db", ready: true }] });
  });
});

describe("a SecretsManagement whose backend changes", () => {
  it("from eso to sealed-secrets: its SecretStore and ExternalSecrets collected, each said; ESO released only once they are gone", () => {
    const before = eso.plan(
      eso.resource({ backend: "eso", eso: { provider: AZURE, secrets: [GATEWAY_KEYS] } }),
      eso.view(),
    );
    const live = new Map<string, KubeObject>();
    for (const step of before.steps) if (step.kind === "apply") live.set(keyOf(step.object), step.object);
    const spec = { backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "gateway-keys" }] } };
    const moved = sealed.plan(
      sealed.resource(spec, { ...(before.status as object), needs: ["external-secrets"] }),
      sealed.view({ objects: live }),
    );
    expect(moved.steps.map((s) => s.description)).toEqual([
      expect.stringMatching(/^delete SecretStore apps\/platform/),
      expect.stringMatching(/^delete ExternalSecret apps\/gateway-keys/),
    ]);
    expect(moved.events.map((e) => [e.reason, e.message])).toEqual([
      ["GarbageCollected", expect.stringContaining("SecretStore apps/platform")],
      ["GarbageCollected", expect.stringContaining("ExternalSecret apps/gateway-keys")],
    ]);
    expect(moved.events.map((e) => e.message).join("\n")).toContain("(backend changed from eso to sealed-secrets)");
    // ESO finalizes every ExternalSecret (externalsecret-cleanup) and alone removes that finalizer: released in
    // the same pass, it would leave them Terminating for ever. The release waits, and says for what.
    const operatorsReady = (plan: typeof moved) => plan.conditions.find((c) => c.type === "OperatorsReady");
    expect(operatorsReady(moved)).toMatchObject({
      status: "False",
      reason: "WaitingForRelease",
      message:
        "external-secrets is released once its operator has let go of SecretStore apps/platform, ExternalSecret apps/gateway-keys (it removes their finalizers)",
    });
    expect(moved.status).toMatchObject({ needs: ["sealed-secrets", "external-secrets"] });
    expect(moved.requeue).toBe(true);

    // The next pass: the SecretStore gone, the ExternalSecret Terminating under ESO's finalizer. Nothing is
    // deleted or said again; the release still waits, naming it.
    const external = [...live.values()].find((o) => o.kind === "ExternalSecret") as KubeObject;
    const finalized = { finalizers: ["externalsecrets.external-secrets.io/externalsecret-cleanup"] };
    const terminating: KubeObject = {
      ...external,
      metadata: { ...external.metadata, deletionTimestamp: "2027-01-02T00:00:00Z", ...finalized },
    };
    const waiting = sealed.plan(
      sealed.resource(spec, moved.status),
      sealed.view({ objects: new Map([[keyOf(terminating), terminating]]) }),
    );
    expect(waiting.steps).toEqual([]);
    expect(waiting.events).toEqual([]);
    expect(operatorsReady(waiting)).toMatchObject({
      status: "False",
      reason: "WaitingForRelease",
      message:
        "external-secrets is released once its operator has let go of ExternalSecret apps/gateway-keys (deleting) (it removes their finalizers)",
    });
    expect(waiting.conditions.find((c) => c.type === "Ready")).toMatchObject({ status: "False" });
    expect(waiting.status).toMatchObject({
      needs: ["sealed-secrets", "external-secrets"],
      emitted: [expect.objectContaining({ kind: "ExternalSecret", name: "gateway-keys" })],
    });
    expect(waiting.requeue).toBe(true);

    // Gone: ESO released.
    const gone = sealed.plan(sealed.resource(spec, waiting.status), sealed.view());
    expect(gone.steps.map((s) => s.description)).toEqual([
      "release external-secrets: no consumer left (uninstalled only if owned)",
    ]);
    expect(operatorsReady(gone)).toMatchObject({ status: "True" });
    expect(gone.status).toMatchObject({ needs: ["sealed-secrets"], emitted: [] });
  });

  it("from eso to sealed-secrets: the Secret ESO wrote is not taken for the SealedSecret's while it goes with its ExternalSecret", () => {
    const spec = { backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "gateway-keys" }] } };
    const resource = sealed.resource(spec, { backend: "eso", needs: ["external-secrets"] });
    const secret = (ownerReferences: unknown[]) =>
      ({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "gateway-keys", namespace: "apps", ownerReferences },
      }) as never;
    const byEso = {
      apiVersion: "external-secrets.io/v1",
      kind: "ExternalSecret",
      name: "gateway-keys",
      controller: true,
    };
    const lingering = sealed.plan(resource, sealed.view({ reads: { "secret/gateway-keys": secret([byEso]) } }));
    expect(lingering.conditions.find((c) => c.type === "Ready")).toMatchObject({
      status: "False",
      reason: "WaitingForSecrets",
      message:
        "waiting for Secret apps/gateway-keys: the External Secrets Operator wrote it for ExternalSecret gateway-keys, and it goes with it (creationPolicy Owner); once it is gone, commit the SealedSecret that produces it",
    });
    expect(lingering.status).toMatchObject({ secrets: [{ name: "gateway-keys", ready: false }] });
    // The controller's own Secret (controlled by its SealedSecret), or one of yours without an owner: provided.
    const bySealed = {
      apiVersion: "bitnami.com/v1alpha1",
      kind: "SealedSecret",
      name: "gateway-keys",
      controller: true,
    };
    for (const owners of [[bySealed], []]) {
      const ready = sealed.plan(resource, sealed.view({ reads: { "secret/gateway-keys": secret(owners) } }));
      expect(ready.conditions.find((c) => c.type === "Ready")).toMatchObject({
        status: "True",
        message: "provides gateway-keys in apps, from your SealedSecrets",
      });
    }
  });
});

describe("a SecretsManagement on eso being deleted", () => {
  it("deletes its SecretStore and ExternalSecrets, keeps ESO and its own finalizer while they are there, then releases ESO and removes the finalizer", () => {
    const spec = { backend: "eso", eso: { provider: AZURE, secrets: [GATEWAY_KEYS] } };
    const before = eso.plan(eso.resource(spec), eso.view());
    const live = new Map<string, KubeObject>();
    for (const step of before.steps) if (step.kind === "apply") live.set(keyOf(step.object), step.object);
    const deleted = (status: unknown) => {
      const resource = eso.resource(spec, status);
      return { ...resource, metadata: { ...resource.metadata, deletionTimestamp: "2027-01-02T00:00:00Z" } };
    };
    const deleting = eso.plan(deleted(before.status), eso.view({ capabilities: [], objects: live }));
    expect(deleting.steps.map((s) => s.kind)).toEqual(["delete", "delete"]);
    expect(deleting.conditions.find((c) => c.type === "Ready")).toMatchObject({
      status: "False",
      reason: "WaitingForRelease",
      message:
        "external-secrets is released once its operator has let go of SecretStore apps/platform, ExternalSecret apps/gateway-keys (it removes their finalizers)",
    });
    expect(deleting.requeue).toBe(true);

    const gone = eso.plan(deleted(deleting.status), eso.view({ capabilities: [] }));
    expect(gone.steps.map((s) => s.description)).toEqual([
      "release external-secrets: no consumer left (uninstalled only if owned)",
      "remove the finalizer: everything owned is released",
    ]);
    expect(gone.requeue).toBe(false);
  });
});
