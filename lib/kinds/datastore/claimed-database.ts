import { CLAIM_PENDING, takesClaims } from "../../engine/claims.js";
import type { Dependency } from "../../engine/dependencies.js";
import type { Verdict } from "../../engine/kind-module.js";
import type { KubeObject } from "../../engine/objects.js";
import type { DesiredStep } from "../../engine/steps.js";
import { isVerdict } from "../../engine/verdict.js";
import type { EngineView } from "../../engine/view.js";

/** A claimant's own database in a datastore, as the datastore made it: where it is and who logs in. */
export interface ClaimedDatabase {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly username: string;
  readonly password: string;
}

/** How a claimant's kind speaks of the claim: what the datastore says when it takes none, and the way out. */
export interface ClaimWording {
  /** The datastore kind's explanation of why it takes no claims in its mode, with the way out. */
  readonly notTaken: (target: KubeObject | undefined, where: string, field: string) => string;
  /** Appended to the not-taken message: another way out the claimant offers (a field wiring it by hand). */
  readonly orElse?: string;
  /** What the claim is for, in the waiting message: "the gateway's own database and user". */
  readonly what: string;
  /** The port when the datastore's connection names none. */
  readonly defaultPort: number;
}

/**
 * The database and user a dependency claimed (lib/engine/claims.ts), read from what the view holds — the
 * target's published claim with its credentials, and its `status.connection` — or why not yet: a target
 * that takes no claims in its mode is Stalled (`ClaimNotTaken`, with the way out); one that has not made
 * the claim yet is waited for (`ClaimPending`). The rule every claimant of a database follows.
 */
export function claimedDatabase(
  view: EngineView,
  dependency: Dependency,
  wording: ClaimWording,
): ClaimedDatabase | Verdict {
  const target = view.dependencies?.[dependency.field];
  const where = `${dependency.kind} ${dependency.namespace}/${dependency.name}`;
  if (!takesClaims(target))
    return {
      ok: false,
      reason: "ClaimNotTaken",
      stalled: true,
      message: `${dependency.field}: ${wording.notTaken(target, where, dependency.field)}${wording.orElse ? `, or ${wording.orElse}` : ""}`,
    };
  const claimed = view.claimed?.[dependency.field];
  const connection = (target?.status as { connection?: { host?: string; port?: number } } | undefined)?.connection;
  const { username, password } = claimed?.credentials ?? {};
  if (!claimed?.claim.database || !username || !password || !connection?.host)
    return {
      ok: false,
      reason: CLAIM_PENDING,
      message: `waiting for ${where} to make ${wording.what} (its claim${claimed ? `, credentials in Secret ${claimed.claim.credentialsSecret.namespace}/${claimed.claim.credentialsSecret.name}` : ""})`,
    };
  return {
    host: connection.host,
    port: connection.port ?? wording.defaultPort,
    database: claimed.claim.database,
    username,
    password,
  };
}

/** Whether a claimed database came back, or a verdict on why not. */
export function isClaimedDatabase(value: ClaimedDatabase | Verdict): value is ClaimedDatabase {
  return !isVerdict(value);
}

/**
 * The step copying credentials read through references into an owned Secret of the claimant's namespace —
 * the only namespace the workload reading them looks in. Deleted when the grant that allowed the read
 * goes (the kind's `copiedThroughReferences`).
 */
export function credentialsCopyStep(
  name: string,
  namespace: string,
  data: Readonly<Record<string, string>>,
  what: string,
): Extract<DesiredStep, { kind: "apply" }> {
  return {
    kind: "apply",
    object: { apiVersion: "v1", kind: "Secret", type: "Opaque", metadata: { name, namespace }, stringData: data },
    description: `copy ${what} into Secret ${namespace}/${name}`,
  };
}
