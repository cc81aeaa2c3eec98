import { type Condition, READY } from "../api/conditions.js";
import { API_GROUP, API_VERSION } from "../api/group.js";
import { checkInput } from "../api/validation.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";
import {
  MANAGEMENT_PLANE_NAME,
  MANAGEMENT_PLANE_PLURAL,
  ManagementPlaneSpec,
  ManagementPlaneStatus,
  StoredManagementPlane,
} from "../kinds/management-plane/schema.js";

/** The console's settings as it serves them, and whether they come from a stored ManagementPlane. */
export interface ConsoleSettings {
  readonly spec: ManagementPlaneSpec;
  /** False when the cluster holds no ManagementPlane: the defaults apply, and the pages say so. */
  readonly stored: boolean;
  /** Why the stored one is not used, when its spec is refused: the defaults apply. */
  readonly refused?: string;
}

/** What every page says while the ManagementPlane turns the console off. */
export const TURNED_OFF = `The console is turned off: the ManagementPlane ${MANAGEMENT_PLANE_NAME} says spec.enabled: false. Set it to true to serve the console again.`;

/** The settings the console applies without a ManagementPlane: the spec's defaults. */
export const DEFAULT_SETTINGS: ConsoleSettings = { spec: ManagementPlaneSpec.parse({}), stored: false };

const PATH = { group: API_GROUP, version: API_VERSION, plural: MANAGEMENT_PLANE_PLURAL, name: MANAGEMENT_PLANE_NAME };

/** The ManagementPlane as stored, or undefined while there is none or its CRD is not served (404 both). */
function readStored(client: KubeClient): Promise<unknown> {
  return orUndefined(client.custom.getClusterCustomObject(PATH));
}

/** What the console applies of a stored ManagementPlane: its spec, defaulted; the defaults without one, or with one refused. */
function settingsOf(stored: unknown): ConsoleSettings {
  if (stored === undefined) return DEFAULT_SETTINGS;
  const checked = checkInput(StoredManagementPlane, stored);
  if (checked.ok) return { spec: checked.data.spec, stored: true };
  // Every problem, each naming its field, what it expects and what it received.
  return {
    ...DEFAULT_SETTINGS,
    stored: true,
    refused: checked.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
  };
}

/** The console's settings, read from the cluster at each call. */
export async function readConsoleSettings(client: KubeClient): Promise<ConsoleSettings> {
  return settingsOf(await readStored(client));
}

/** The Ready condition the leader writes: served, turned off, or not served by this operator (its flag). */
export function consoleCondition(
  settings: ConsoleSettings,
  served: { readonly address: string } | undefined,
  generation: number | undefined,
  now: Date,
): Condition {
  const at = {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: now.toISOString(),
  };
  if (settings.refused)
    return {
      type: READY,
      status: "False",
      reason: "SpecRefused",
      message: `${settings.refused}; correct the ManagementPlane (the console applies the defaults meanwhile)`,
      ...at,
    };
  if (!settings.spec.enabled)
    return {
      type: READY,
      status: "False",
      reason: "Disabled",
      message: "spec.enabled is false: the console answers 503 on every page; set it to true to serve it",
      ...at,
    };
  if (!served)
    return {
      type: READY,
      status: "False",
      reason: "NotServed",
      message:
        "the operator runs with --console-bind-address 0: nothing serves the console; install the chart with console.enabled true",
      ...at,
    };
  return {
    type: READY,
    status: "True",
    reason: "Serving",
    message: `every operator replica serves the console on ${served.address}`,
    ...at,
  };
}

/**
 * Writes the ManagementPlane's status when it says something else than `condition` (its transition time
 * kept while the status, reason and message are unchanged); nothing without a ManagementPlane. True when
 * it wrote. A write that lost to another is left to the next call.
 */
export async function writeConsoleStatus(
  client: KubeClient,
  served: { readonly address: string } | undefined,
  now: Date,
): Promise<boolean> {
  const stored = (await readStored(client)) as
    | { metadata?: { generation?: number; resourceVersion?: string }; status?: unknown }
    | undefined;
  if (!stored) return false;
  const settings = settingsOf(stored);
  const generation = stored.metadata?.generation;
  const condition = consoleCondition(settings, served, generation, now);
  const previous = ManagementPlaneStatus.safeParse(stored.status ?? {});
  const was = previous.success ? previous.data.conditions.find((c) => c.type === READY) : undefined;
  const same = was?.status === condition.status && was.reason === condition.reason && was.message === condition.message;
  if (same && previous.success && previous.data.observedGeneration === generation) return false;
  const status: ManagementPlaneStatus = {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: [
      same && was?.lastTransitionTime ? { ...condition, lastTransitionTime: was.lastTransitionTime } : condition,
    ],
  };
  const resourceVersion = stored.metadata?.resourceVersion;
  try {
    await client.custom.patchClusterCustomObjectStatus(
      {
        ...PATH,
        body: [
          ...(resourceVersion ? [{ op: "replace", path: "/metadata/resourceVersion", value: resourceVersion }] : []),
          { op: "add", path: "/status", value: status },
        ],
      },
      undefined,
    );
    return true;
  } catch (error) {
    if (statusOf(error) === 409) return false;
    throw error;
  }
}
