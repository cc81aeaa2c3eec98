import type * as z from "zod";
import type { Credentials } from "./objects.js";

/**
 * The outputs of a resource once Ready, declared once by its kind: a schema giving each output's name,
 * type and description — from which the Pulumi component's properties are generated, with their docs
 * (lib/docs/front-end-files.ts) — the ones that are secrets, and the projection computing them from the
 * status and, for secrets, the Secret the status names.
 */
export interface OutputsProjection<Status> {
  readonly schema: z.ZodObject;
  /** Outputs made secrets in the Pulumi state. */
  readonly secrets: readonly string[];
  /** The Secret whose keys the secret outputs come from, if any. */
  credentialsSecret?(status: Status): { readonly name: string; readonly namespace: string } | undefined;
  project(status: Status, namespace: string, credentials: Credentials | undefined): object;
}

/**
 * A kind's outputs, checked where the kind declares them: `project` must return what `schema` describes,
 * and `secrets` name only outputs of the schema.
 */
export function outputsProjection<Status, S extends z.ZodObject>(projection: {
  readonly schema: S;
  readonly secrets: readonly (keyof z.output<S> & string)[];
  credentialsSecret?(status: Status): { readonly name: string; readonly namespace: string } | undefined;
  project(status: Status, namespace: string, credentials: Credentials | undefined): z.output<S>;
}): OutputsProjection<Status> {
  return projection;
}

/** Each output's name and whether it is a secret, in the schema's order. */
export function outputNames(
  projection: OutputsProjection<never>,
): { readonly name: string; readonly secret: boolean }[] {
  return Object.keys(projection.schema.shape).map((name) => ({ name, secret: projection.secrets.includes(name) }));
}
