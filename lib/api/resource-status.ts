import * as z from "zod";
import { Condition } from "./conditions.js";
import { namespaceName, ObjectRef, objectName } from "./refs.js";

export const Provenance = z.enum(["owned", "adopted"]);
export type Provenance = z.infer<typeof Provenance>;

export const CapabilityStatus = z
  .object({
    name: z.string().describe("Capability operator, e.g. cloudnative-pg."),
    provenance: Provenance.describe("owned: installed by the product; adopted: found installed, never managed."),
    chartVersion: z.string().optional().describe("Chart version of the release relied on, when known."),
    release: ObjectRef.optional().describe("Helm release relied on, when there is one."),
    evidence: z.string().describe("What detection found."),
  })
  .strict();
export type CapabilityStatus = z.infer<typeof CapabilityStatus>;

export const EmittedObject = z
  .object({
    apiVersion: z.string().describe("API version of the object, e.g. postgresql.cnpg.io/v1."),
    kind: z.string().describe("Kind of the object, e.g. Cluster or Secret."),
    name: objectName.describe("Name of the object."),
    namespace: namespaceName.describe("Namespace of the object."),
  })
  .strict();
export type EmittedObject = z.infer<typeof EmittedObject>;

/** The keys of the Secret a connection names: the same for every datastore, so that a consumer reads any. */
export const CONNECTION_SECRET_KEYS = { username: "username", password: "password" } as const;

/**
 * The keys of a credentials Secret by what they hold, where it holds more than a username and password:
 * what a consumer reads it under, whatever the Secret's maker named them.
 */
export const CredentialsKeys = z
  .object({
    publicKey: z.string().optional().describe("The key holding a public key (an Observability's project, pk-lf-…)."),
    secretKey: z.string().optional().describe("The key holding the secret key paired with publicKey (sk-lf-…)."),
    apiKey: z.string().optional().describe("The key holding an API key (a gateway's virtual key, sk-…)."),
  })
  .strict()
  .describe(
    "The keys of the credentials Secret by what they hold, where it holds more than a username and password (an Observability's publicKey and secretKey, a virtual key's apiKey).",
  );
export type CredentialsKeys = z.infer<typeof CredentialsKeys>;

/**
 * Where consumers connect to what a resource provides, the one shape every datastore publishes as
 * `status.connection`: never a password, the Secret that holds it, under fixed keys.
 */
export const Connection = z
  .object({
    host: z.string().describe("Host to connect to."),
    port: z.number().int().describe("TCP port to connect to."),
    credentialsSecret: ObjectRef.optional().describe(
      `Secret, in this namespace, holding the credentials: key ${CONNECTION_SECRET_KEYS.password}, and ${CONNECTION_SECRET_KEYS.username} where the datastore has users.`,
    ),
    keys: CredentialsKeys.optional(),
    database: z.string().optional().describe("Database to use, when the datastore has several."),
    url: z
      .string()
      .optional()
      .describe("URL to connect to, without credentials (scheme, host and port), where the datastore has one."),
  })
  .strict();
export type Connection = z.infer<typeof Connection>;

/**
 * One claim a resource made for a consumer that depends on it (lib/engine/claims.ts): what it made — a
 * database and a user, a gateway's virtual key — and where the consumer's credentials are. Published in
 * the target's `status.claims`.
 */
export const PublishedClaim = z
  .object({
    claimant: z.string().describe("The consumer, as Kind/namespace/name."),
    database: z.string().optional().describe("The database made for it."),
    user: z.string().optional().describe("The user (role) made for it, owner of its database."),
    credentialsSecret: ObjectRef.required({ namespace: true }).describe(
      `Secret, in the target's namespace, holding its credentials: keys ${CONNECTION_SECRET_KEYS.username} and ${CONNECTION_SECRET_KEYS.password}, or those \`keys\` names.`,
    ),
    keys: CredentialsKeys.optional(),
  })
  .strict();
export type PublishedClaim = z.infer<typeof PublishedClaim>;

/**
 * The status fields the engine writes for every kind (lib/engine): conditions, what was emitted (garbage
 * collection diffs it with what is desired now), the capabilities relied on, the capabilities needed when
 * last reconciled (migration garbage collection compares them with what is needed now) and whether the
 * licence admitted the resource (an admitted resource keeps its place under any cap afterwards).
 */
export const ENGINE_STATUS = {
  observedGeneration: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("The metadata.generation of the spec this status was last written for."),
  conditions: z.array(Condition).default([]).describe("Ready plus one condition per reconcile phase."),
  admitted: z
    .boolean()
    .optional()
    .describe("Counted against the licence's cap since a pass admitted it; never refused by the cap afterwards."),
  needs: z
    .array(z.string())
    .optional()
    .describe("The capability operators it needed when last reconciled; released once no longer needed."),
  capabilities: z
    .array(CapabilityStatus)
    .default([])
    .describe("Capability operators relied on, with provenance and chart version."),
  emitted: z
    .array(EmittedObject)
    .default([])
    .describe("Objects the product created for this resource and may garbage-collect."),
};

/** The status every kind's status extends. */
export const EngineStatus = z.object(ENGINE_STATUS).strict();
export type EngineStatus = z.infer<typeof EngineStatus>;
