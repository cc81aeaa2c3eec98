import * as z from "zod";
import { CONNECTION_SECRET_KEYS } from "../../api/resource-status.js";
import type { Credentials } from "../../engine/objects.js";

/**
 * What a datastore with adopt and external modes exposes as outputs beside its connection (Pulumi,
 * `navique plan`): the credentials its connection's Secret holds — the user where the kind has users, and
 * the password, a secret — and who owns what it stands for. Each kind says what its user and password are.
 */

/** The credentials a datastore's connection Secret may hold, under the connection's keys, in output order. */
type CredentialOutput = keyof typeof CONNECTION_SECRET_KEYS;
const CREDENTIAL_OUTPUTS: readonly CredentialOutput[] = ["username", "password"];

/**
 * The outputs' schema and their projection from the status and the credentials Secret, for the credentials
 * `descriptions` names (a missing credential, or no Secret read, projects as "").
 */
export function credentialsOutputs<const Output extends CredentialOutput>(
  descriptions: {
    readonly [Name in Output]: string;
  },
) {
  const names = CREDENTIAL_OUTPUTS.filter((name): name is Output => name in descriptions);
  return {
    shape: {
      ...(Object.fromEntries(names.map((name) => [name, z.string().describe(descriptions[name])])) as {
        [Name in Output]: z.ZodString;
      }),
      provenance: z.string().describe("owned, adopted or external."),
    },
    project: (status: { readonly provenance?: string | undefined }, credentials: Credentials | undefined) => ({
      ...(Object.fromEntries(names.map((name) => [name, credentials?.[CONNECTION_SECRET_KEYS[name]] ?? ""])) as {
        [Name in Output]: string;
      }),
      provenance: status.provenance ?? "",
    }),
  };
}
