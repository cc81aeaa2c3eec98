/**
 * The backends a kind's `spec.type` may name, as its schema declares them, and which of them are
 * implemented: every front end refuses another one with the same message (lib/engine/not-implemented.ts).
 */
export interface BackendTypes {
  /** Every type the schema accepts. */
  readonly declared: readonly string[];
  /** Those a reconcile can act on. */
  readonly implemented: readonly string[];
  /** What to write instead of a type not implemented: `type: cnpg (CloudNativePG)`. */
  readonly instead: string;
}
