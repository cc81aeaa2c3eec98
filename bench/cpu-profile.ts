import { readFileSync } from "node:fs";

/** The parts of a V8 `.cpuprofile` (as `node --cpu-prof` writes it) that a summary needs. */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  /** Microseconds on the system's monotonic clock (as process.hrtime), like every sample time. */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  /** Sampled time inside the window, in milliseconds. */
  readonly totalMs: number;
  /** Whether samples fell inside the window (false: the window was outside the profile, the whole is summarised). */
  readonly windowed: boolean;
  /** Self time by area: a package, a part of Node (tls, zlib, …), the project's directories, GC, idle. */
  readonly areas: readonly { readonly frame: string; readonly ms: number }[];
  /** Functions by the time spent in them alone. */
  readonly self: readonly { readonly frame: string; readonly ms: number }[];
  /** Functions of the project (not node_modules, not Node's own) by the time spent in them and their callees. */
  readonly inclusive: readonly { readonly frame: string; readonly ms: number }[];
}

/** `function file:line`, the file relative to the project (dist/ included) or to node_modules. */
function frameName(frame: CpuProfile["nodes"][number]["callFrame"]): string {
  const file = frame.url
    .replace(/^file:\/\//, "")
    .replace(/^.*\/node_modules\//, "")
    .replace(`${process.cwd()}/`, "");
  return `${frame.functionName || "(anonymous)"} ${file || "(native)"}:${frame.lineNumber + 1}`;
}

/** Where a frame's code lives, coarsely: what a reader of the profile asks first. */
function areaOf(frame: CpuProfile["nodes"][number]["callFrame"]): string {
  const { url, functionName } = frame;
  if (url === "") return functionName.startsWith("(") ? functionName : "(native code)";
  const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage) return `package ${inPackage[1]}`;
  const inNode = /^node:(?:internal\/)?([a-z_]+)/.exec(url);
  if (inNode) return `node ${(inNode[1] ?? "").replace(/^_/, "")}`;
  const inProject = /\/(?:dist\/)?((?:lib|providers|constructs)\/[^/]+)\//.exec(url);
  return inProject ? `project ${inProject[1]}` : "other";
}

const isProjectCode = (url: string) =>
  url.startsWith(`file://${process.cwd()}/`) && !url.includes("/node_modules/") && !url.includes("/bench/");

/**
 * Where the time went between `fromUs` and `toUs` (monotonic microseconds): the top functions by self
 * time, and the project's functions by inclusive time (each counted once per sample, however deep it recurs).
 */
export function summariseCpuProfile(path: string, fromUs: number, toUs: number, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  const weights = (inWindow: (at: number) => boolean) => {
    const perNode = new Map<number, number>();
    let at = profile.startTime;
    profile.samples.forEach((id, index) => {
      const delta = profile.timeDeltas[index] ?? 0;
      at += delta;
      if (inWindow(at)) perNode.set(id, (perNode.get(id) ?? 0) + delta);
    });
    return perNode;
  };
  let perNode = weights((at) => at >= fromUs && at <= toUs);
  const windowed = perNode.size > 0;
  if (!windowed) perNode = weights(() => true);

  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalUs = 0;
  for (const [id, us] of perNode) {
    totalUs += us;
    const node = byId.get(id);
    if (!node) continue;
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + us);
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (!frame || !isProjectCode(frame.url)) continue;
      const ancestor = frameName(frame);
      if (seen.has(ancestor)) continue;
      seen.add(ancestor);
      inclusive.set(ancestor, (inclusive.get(ancestor) ?? 0) + us);
    }
  }
  const ranked = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, us]) => ({ frame, ms: us / 1000 }));
  return {
    totalMs: totalUs / 1000,
    windowed,
    areas: ranked(areas),
    self: ranked(self),
    inclusive: ranked(inclusive),
  };
}
