/**
 * The example platform as one Stack (licensed features `stack` and `auto-wiring`): the same gateway,
 * Langfuse and LibreChat as app.ts, with their datastores, declared by one resource whose members the
 * operator creates, owns and keeps in step in the Stack's namespace — each consumer with a database of its
 * own in the shared datastores, wired by the product. The Secrets a person provides still come through the
 * namespace's SecretsManagement. Unlike app.ts, every member is managed and in one namespace: a Stack
 * adopts nothing and reaches into no other namespace (docs/stack.md).
 */
import { ApiObject, App, Chart } from "cdk8s";
import { NaviqueLicense, NaviqueOperator, SecretsManagement, Stack } from "../../constructs/index.js";
import { KEY_VAULT, LANGFUSE_S3, MODELS, PLATFORM_NAMESPACE, PROVIDED_SECRETS } from "./platform-parts.js";

export interface StackExampleOptions {
  /** The cluster's licence, which must include `stack` and `auto-wiring`: synth checks it offline. */
  readonly licenseToken: string;
  /** Keys the token is verified with. @default the product's own */
  readonly trustedKeys?: ReadonlyMap<string, string>;
}

export function buildStackApp(outdir: string, options: StackExampleOptions): App {
  const app = new App({ outdir, outputFileExtension: ".yaml" });
  const chart = new Chart(app, "navique-example-stack", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator");
  new NaviqueLicense(chart, "licence", {
    token: options.licenseToken,
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
  });
  new ApiObject(chart, PLATFORM_NAMESPACE, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: PLATFORM_NAMESPACE },
  });

  // The LLM providers' keys and Langfuse's storage keys, from Azure Key Vault (as in app.ts).
  new SecretsManagement(chart, "platform-secrets", {
    namespace: PLATFORM_NAMESPACE,
    spec: { backend: "eso", eso: { provider: KEY_VAULT, secrets: PROVIDED_SECRETS } },
  });

  // The platform: members `platform-postgres`, `-clickhouse`, `-redis`, `-mongo`, `-search`,
  // `-langfuse`, `-gateway` and `-chat`. Datastore parts left out take their kind's defaults; a
  // datastore no consumer needs is not made.
  new Stack(chart, "platform", {
    namespace: PLATFORM_NAMESPACE,
    spec: {
      clickhouse: { managed: { replicas: 1, storage: { size: "20Gi" } } },
      redis: { managed: { topology: "standalone" } },
      mongo: { managed: { members: 3 } },
      meilisearch: { managed: { storage: { size: "5Gi" } } },
      observability: { s3: LANGFUSE_S3 },
      gateway: { models: MODELS },
      chatUI: {},
    },
  });
  return app;
}
