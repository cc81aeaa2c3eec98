import type { KubeClient } from "../../lib/cluster/kube-client.js";

/**
 * The forms a planted secret would take in what the product writes: as it is, as a JSON string escapes it
 * (what JSON.stringify of an object holding it contains), and base64-encoded (a Secret's `data`, copied
 * where it must not be).
 */
function formsOf(planted: string): Record<string, string> {
  return {
    "in plain text": planted,
    "JSON-escaped": JSON.stringify(planted).slice(1, -1),
    "base64-encoded": Buffer.from(planted).toString("base64"),
  };
}

/**
 * What was read at a place that may rightly hold nothing when scanned — the Events of a flow that records
 * none today —: scanned all the same, against one that would say the secret, but not refused when empty.
 */
class MayHoldNothing {
  constructor(readonly content: unknown) {}
}

/** Marks what was read at a place as one that may rightly hold nothing (see MayHoldNothing); say why beside it. */
export function mayHoldNothing(content: unknown): MayHoldNothing {
  return new MayHoldNothing(content);
}

/** What was read at a place, as the text a secret would be searched for in. */
function textOf(content: unknown): string {
  if (content instanceof MayHoldNothing) return textOf(content.content);
  return typeof content === "string" ? content : (JSON.stringify(content) ?? "");
}

/** Nothing was read there: a scan of it could not find a secret, so it would pass for the wrong reason. */
function holdsNothing(content: unknown): boolean {
  if (content instanceof MayHoldNothing) return false;
  if (content === undefined || content === null) return true;
  if (Array.isArray(content)) return content.length === 0;
  if (typeof content === "object") return Object.keys(content).length === 0;
  return textOf(content).trim() === "";
}

/**
 * Asserts that no secret of `planted` (a password the user keeps in a Secret, one the product generated)
 * is in any of `places` — what the product wrote, each by a name that says where it was read (a resource,
 * its Events, a release's values, a log, a plan's output, a synthesized file) —, in plain text, JSON-escaped
 * or base64-encoded. A scan that could not fail is refused: a secret too short to be told from other text,
 * or a place that holds nothing (an empty log, a resource not found, no Events recorded) fails the test,
 * unless marked with `mayHoldNothing`.
 */
export function expectPlantedNowhere(planted: string | readonly string[], places: Record<string, unknown>): void {
  const secrets = typeof planted === "string" ? [planted] : planted;
  expect(secrets.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(secret.length).toBeGreaterThanOrEqual(6);
  const empty = Object.entries(places).flatMap(([place, content]) => (holdsNothing(content) ? [place] : []));
  expect({ "places that hold nothing": empty }).toEqual({ "places that hold nothing": [] });
  const found = Object.entries(places).flatMap(([place, content]) => {
    const text = textOf(content);
    return secrets.flatMap((secret, index) =>
      Object.entries(formsOf(secret)).flatMap(([form, value]) =>
        text.includes(value) ? [`planted secret ${index + 1} ${form} in ${place}`] : [],
      ),
    );
  });
  expect(found).toEqual([]);
}

/** Every Event recorded in `namespaces`, whole: what the product said, where no secret may be. */
export async function recordedEvents(client: KubeClient, ...namespaces: readonly string[]) {
  const lists = await Promise.all(namespaces.map((namespace) => client.events.listNamespacedEvent({ namespace })));
  return lists.flatMap((list) => list.items);
}
