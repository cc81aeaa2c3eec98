import { graphlib, layout } from "@dagrejs/dagre";
import { labelOf } from "../../engine/objects.js";
import { capabilitySubject } from "../../reports/doctor-report.js";
import type { CapabilityState, ResourceState } from "../../reports/status-report.js";
import type { ServedSnapshot } from "../console-snapshot.js";
import { type Html, html } from "../html.js";

/** One box of the picture. */
interface GraphNode {
  readonly id: string;
  readonly lines: readonly [string, string];
  readonly tone: "good" | "bad" | "neutral" | "warn" | "missing";
  /** Where a click on it leads: the resource's row, or the capability's. */
  readonly href: string;
}

const COLOURS = {
  good: { fill: "#dafbe1", stroke: "#1a7f37" },
  bad: { fill: "#ffebe9", stroke: "#cf222e" },
  warn: { fill: "#fff8c5", stroke: "#9a6700" },
  neutral: { fill: "#f6f8fa", stroke: "#57606a" },
  missing: { fill: "#ffffff", stroke: "#cf222e" },
} as const;

/** Pixels per character of the 12px labels, and a box's padding: boxes as wide as their longest line. */
const CHAR_WIDTH = 7;
const PADDING = 20;
const LINE_HEIGHT = 16;

/** A resource's box: green when Ready, red when not, grey while unknown. */
function resourceNode(r: ResourceState): GraphNode {
  return {
    id: labelOf(r),
    lines: [r.kind, `${r.namespace}/${r.name}`],
    tone: r.ready === "True" ? "good" : r.ready === "False" ? "bad" : "neutral",
    href: `/resources#${r.kind}-${r.namespace}-${r.name}`,
  };
}

/** A capability's box: yellow while Absent, green when Ready, red when installed but not Ready. */
function capabilityNode(name: string, capability: CapabilityState | undefined): GraphNode {
  const state = capability?.state ?? "Absent";
  return {
    id: capabilitySubject(name),
    lines: [name, state],
    tone: state === "Absent" ? "warn" : capability?.ready ? "good" : "bad",
    href: `/capabilities#capability-${name}`,
  };
}

interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label: string;
}

/** The resources, what they depend on, and the capabilities they need, as boxes and arrows. */
function graphOf(snapshot: ServedSnapshot): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const { resources, capabilities } = snapshot.status;
  const nodes = new Map(resources.map((r) => [labelOf(r), resourceNode(r)]));
  const edges: GraphEdge[] = [];
  for (const r of resources) {
    const from = labelOf(r);
    for (const d of r.dependsOn) {
      const to = labelOf(d);
      // A dependency that does not exist is drawn too: it is what the resource waits for.
      if (!nodes.has(to))
        nodes.set(to, {
          id: to,
          lines: [`${d.kind} (missing)`, `${d.namespace}/${d.name}`],
          tone: "missing",
          href: "/resources",
        });
      edges.push({ from, to, label: d.field });
    }
    for (const name of r.needs) {
      const to = capabilitySubject(name);
      if (!nodes.has(to))
        nodes.set(
          to,
          capabilityNode(
            name,
            capabilities.find((c) => c.name === name),
          ),
        );
      edges.push({ from, to, label: "" });
    }
  }
  return { nodes: [...nodes.values()], edges };
}

/**
 * The dependency graph as an inline SVG, laid out by dagre (left to right: a resource, then what it
 * depends on, then the capabilities they need). Each box is a link to its row; its colour says Ready
 * (green), not Ready (red), Absent or unknown; a dashed red box is a dependency the cluster does not hold.
 */
export function dependencyGraph(snapshot: ServedSnapshot): Html {
  const { nodes, edges } = graphOf(snapshot);
  if (nodes.length === 0) return html`<p class="muted">No resource: nothing to draw.</p>`;
  const graph = new graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: "LR", nodesep: 18, ranksep: 70, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) {
    const width = Math.max(...node.lines.map((l) => l.length)) * CHAR_WIDTH + PADDING;
    graph.setNode(node.id, { width, height: LINE_HEIGHT * 2 + 12 });
  }
  edges.forEach((edge, index) => {
    graph.setEdge(edge.from, edge.to, { width: edge.label.length * 6, height: edge.label ? 14 : 0 }, String(index));
  });
  layout(graph);
  const size = graph.graph();
  const width = Math.ceil(size.width ?? 0);
  const height = Math.ceil(size.height ?? 0);
  const arrows = edges.map((edge, index) => {
    const laid = graph.edge({ v: edge.from, w: edge.to, name: String(index) }) as
      | { points?: { x: number; y: number }[]; x?: number; y?: number }
      | undefined;
    const points = (laid?.points ?? []).map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
    const label =
      edge.label && laid?.x !== undefined && laid.y !== undefined
        ? html`<text x="${laid.x.toFixed(1)}" y="${laid.y.toFixed(1)}" text-anchor="middle" fill="#57606a">${edge.label}</text>`
        : "";
    return html`<g class="edge" data-from="${edge.from}" data-to="${edge.to}"><polyline points="${points}" fill="none" stroke="#8c959f" marker-end="url(#arrow)"/>${label}</g>`;
  });
  const boxes = nodes.map((node) => {
    const laid = graph.node(node.id);
    const { fill, stroke } = COLOURS[node.tone];
    const x = laid.x - laid.width / 2;
    const y = laid.y - laid.height / 2;
    return html`<a href="${node.href}"><g class="node" data-id="${node.id}"><title>${node.id}</title>
<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${laid.width}" height="${laid.height}" rx="5" fill="${fill}" stroke="${stroke}"${node.tone === "missing" ? html` stroke-dasharray="4 3"` : ""}/>
<text x="${laid.x.toFixed(1)}" y="${(laid.y - 3).toFixed(1)}" text-anchor="middle" font-weight="600">${node.lines[0]}</text>
<text x="${laid.x.toFixed(1)}" y="${(laid.y + 13).toFixed(1)}" text-anchor="middle">${node.lines[1]}</text></g></a>`;
  });
  return html`<div class="graph"><svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Dependency graph: ${nodes.length} resources and capabilities" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#8c959f"/></marker></defs>
${arrows}${boxes}</svg></div>
<p class="muted">An arrow goes from a resource to what it cannot do without: another resource (labelled with the field that names it) or a capability operator. Green: Ready; red: not Ready; yellow: a capability still Absent; dashed: a resource named but not in the cluster.</p>`;
}
