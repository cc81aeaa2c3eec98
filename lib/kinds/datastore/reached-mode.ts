/**
 * The mode a datastore reached, as its status records it: written only once reached, so that after a
 * change what the former mode made is garbage-collected from the state it was really in.
 */

/** What a datastore records once reached: its mode and its type. */
export function reachedModeAndType<const Spec extends { readonly mode: string; readonly type: string }>(resource: {
  readonly spec: Spec;
}): { mode: Spec["mode"]; type: Spec["type"] } {
  return { mode: resource.spec.mode, type: resource.spec.type };
}

/** Why what the former mode made is collected: the mode recorded is no longer spec.mode. */
export function modeChangeReason(resource: {
  readonly spec: { readonly mode: string };
  readonly status?: { readonly mode?: string | undefined } | undefined;
}): string | undefined {
  const { mode } = resource.status ?? {};
  return mode && mode !== resource.spec.mode ? `(mode changed from ${mode} to ${resource.spec.mode})` : undefined;
}
